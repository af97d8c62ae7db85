// ERA building blocks: periods of a range, and a line's sales with tax included in its price.
import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { lineSales } from '../../../src/modules/era/compute'
import { addDays, periodsOf } from '../../../src/modules/era/periods'
import type { OrderLineRow } from '../../../src/modules/orders/schema'

describe('periods', () => {
  test('weeks start on Monday; months and years are clipped to the range', () => {
    // 2025-03-01 is a Saturday.
    expect(periodsOf('week', '2025-03-01', '2025-03-12')).toEqual([
      { periodStart: '2025-03-01', periodEnd: '2025-03-02' },
      { periodStart: '2025-03-03', periodEnd: '2025-03-09' },
      { periodStart: '2025-03-10', periodEnd: '2025-03-12' },
    ])
    expect(periodsOf('month', '2024-01-15', '2024-03-01')).toEqual([
      { periodStart: '2024-01-15', periodEnd: '2024-01-31' },
      { periodStart: '2024-02-01', periodEnd: '2024-02-29' },
      { periodStart: '2024-03-01', periodEnd: '2024-03-01' },
    ])
    expect(periodsOf('year', '2024-12-30', '2025-01-02')).toHaveLength(2)
    expect(periodsOf('custom', '2024-12-30', '2025-01-02')).toEqual([
      { periodStart: '2024-12-30', periodEnd: '2025-01-02' },
    ])
  })

  test('property: the periods tile the range, in order, without gaps or overlaps', () => {
    const date = fc.integer({ min: 0, max: 3000 }).map((n) => addDays('2020-01-01', n))
    fc.assert(
      fc.property(
        date,
        fc.integer({ min: 0, max: 400 }),
        fc.constantFrom('day', 'week', 'month', 'year', 'custom' as const),
        (start, span, range) => {
          const end = addDays(start, span)
          const periods = periodsOf(range, start, end)
          expect(periods[0]!.periodStart).toBe(start)
          expect(periods.at(-1)!.periodEnd).toBe(end)
          for (let i = 1; i < periods.length; i++)
            expect(periods[i]!.periodStart).toBe(addDays(periods[i - 1]!.periodEnd, 1))
          if (range === 'day') expect(periods).toHaveLength(span + 1)
        },
      ),
    )
  })
})

describe('line sales', () => {
  const line = (over: Partial<OrderLineRow>) =>
    ({
      subtotal: 1000,
      discountAmount: 0,
      taxAmount: 0,
      taxCalculation: 'Added',
      voidedAt: null,
      giftCardSale: null,
      ...over,
    }) as OrderLineRow
  test('tax added on top is not sales; tax included in the price is taken out', () => {
    expect(lineSales(line({ taxAmount: 88 }))).toEqual({ gross: 1000, discount: 0, net: 1000 })
    // 10.00 including 8.75% tax: 0.80 of it is tax; 1.00 off first.
    expect(lineSales(line({ discountAmount: 100, taxAmount: 72, taxCalculation: 'Included' }))).toEqual({
      gross: 928,
      discount: 100,
      net: 828,
    })
  })
  test('voided lines and gift cards sold are not sales', () => {
    expect(lineSales(line({ voidedAt: '2025-01-01T00:00:00Z' }))).toEqual({ gross: 0, discount: 0, net: 0 })
    expect(lineSales(line({ giftCardSale: {} as never }))).toEqual({ gross: 0, discount: 0, net: 0 })
  })
})
