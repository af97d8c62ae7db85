// Next process dates: worked examples and properties of the cadence grid.
import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { nextProcessDate, stepDate } from '../../../src/modules/club-memberships/cadence'
import type { Cadence } from '../../../src/modules/club-memberships/schema'
import { daysInMonth, isCalendarDate } from '../../../src/platform/foundation/dates'

const month = (count: number): Cadence => ({ unit: 'month', count })

describe('cadence: worked examples', () => {
  test('month steps clamp to short months and come back to the anchor day', () => {
    expect(stepDate('2025-01-31', month(1), 1)).toBe('2025-02-28')
    expect(stepDate('2025-01-31', month(1), 2)).toBe('2025-03-31')
    expect(stepDate('2025-01-31', month(1), 3)).toBe('2025-04-30')
    expect(stepDate('2024-01-31', month(1), 1)).toBe('2024-02-29')
    expect(stepDate('2025-11-30', month(3), 1)).toBe('2026-02-28')
    expect(stepDate('2025-03-15', month(3), 0)).toBe('2025-03-15')
  })

  test('years from a leap day land on Feb 28, and on Feb 29 in leap years', () => {
    expect(stepDate('2024-02-29', { unit: 'year', count: 1 }, 1)).toBe('2025-02-28')
    expect(stepDate('2024-02-29', { unit: 'year', count: 1 }, 4)).toBe('2028-02-29')
  })

  test('days and weeks count calendar days across month and year ends', () => {
    expect(stepDate('2025-12-25', { unit: 'week', count: 2 }, 1)).toBe('2026-01-08')
    expect(stepDate('2024-02-28', { unit: 'day', count: 1 }, 1)).toBe('2024-02-29')
    expect(stepDate('2025-03-08', { unit: 'day', count: 30 }, 1)).toBe('2025-04-07')
  })

  test('the next date is one step after the anchor, or the first step on or after a hold', () => {
    expect(nextProcessDate('2025-01-31', month(3))).toBe('2025-04-30')
    expect(nextProcessDate('2025-01-15', month(1), '2025-03-20')).toBe('2025-04-15')
    expect(nextProcessDate('2025-01-15', month(1), '2025-03-15')).toBe('2025-03-15')
    expect(nextProcessDate('2025-01-15', month(1), '2025-01-20')).toBe('2025-02-15')
    // A hold that ends before the first step does not move it.
    expect(nextProcessDate('2025-01-15', month(3), '2025-02-01')).toBe('2025-04-15')
    // 2020-06-30 is a Tuesday; the first Tuesday from 2025-01-01 (a Wednesday) is the 7th.
    expect(nextProcessDate('2020-06-30', { unit: 'week', count: 1 }, '2025-01-01')).toBe('2025-01-07')
  })
})

const dateArb = fc
  .date({ min: new Date('1990-01-01T00:00:00Z'), max: new Date('2060-12-31T00:00:00Z'), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 10))
const cadenceArb = fc.record({
  unit: fc.constantFrom('day' as const, 'week' as const, 'month' as const, 'year' as const),
  count: fc.integer({ min: 1, max: 18 }),
})

describe('cadence: properties', () => {
  test('every step is a real date, in order, never past the anchor’s day of month', () => {
    fc.assert(
      fc.property(dateArb, cadenceArb, fc.integer({ min: 0, max: 40 }), (anchor, cadence, k) => {
        const a = stepDate(anchor, cadence, k)
        const b = stepDate(anchor, cadence, k + 1)
        expect(isCalendarDate(a)).toBe(true)
        expect(b > a).toBe(true)
        if (cadence.unit === 'month' || cadence.unit === 'year') {
          const anchorDay = Number(anchor.slice(8))
          const [y, m, d] = a.split('-').map(Number) as [number, number, number]
          expect(d).toBe(Math.min(anchorDay, daysInMonth(y, m)))
        }
      }),
      { numRuns: 500 },
    )
  })

  test('the next date is the first grid step after the anchor that is not before the hold end', () => {
    fc.assert(
      fc.property(dateArb, cadenceArb, fc.option(dateArb, { nil: undefined }), (anchor, cadence, holdEnd) => {
        const next = nextProcessDate(anchor, cadence, holdEnd)
        let k = 1
        while (stepDate(anchor, cadence, k) < next) k++
        expect(stepDate(anchor, cadence, k)).toBe(next) // on the grid
        expect(next > anchor).toBe(true)
        if (holdEnd) expect(next >= holdEnd).toBe(true)
        if (k > 1) expect(holdEnd !== undefined && stepDate(anchor, cadence, k - 1) < holdEnd).toBe(true) // minimal
      }),
      { numRuns: 300 },
    )
  })
})
