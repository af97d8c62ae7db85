// taxRateFor (the lookup orders use) and taxOn (integer tax arithmetic): worked examples and
// fast-check properties.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { taxOn, taxRateFor } from '../../../src/modules/taxes/rates'
import { createTax } from '../../../src/modules/taxes/service'
import { systemActor } from '../../../src/platform/foundation/actor'
import { createTestApp, type TestApp } from '../../harness'

describe('taxRateFor', () => {
  let t: TestApp
  beforeEach(async () => {
    t = await createTestApp()
  })
  afterEach(() => t.close())

  test('the state tax where one exists, else the country-wide one, else null', () => {
    const db = t.tenant.db
    const actor = systemActor(t.tenant.id, 'test')
    const base = { freight: 0, generalMerchandise: 600, taxCalculation: 'Added' as const }
    const ca = createTax(db, actor, {
      ...base,
      title: 'California',
      countryCode: 'US',
      stateCode: 'CA',
      food: 875,
      wine: 925,
    })
    const us = createTax(db, actor, { ...base, title: 'US default', countryCode: 'US', food: 500, wine: 500 })
    createTax(db, actor, {
      ...base,
      title: 'NZ GST',
      countryCode: 'NZ',
      food: 1500,
      wine: 1500,
      taxCalculation: 'Included',
    })

    expect(taxRateFor(db, { countryCode: 'US', stateCode: 'CA' }, 'wine')).toEqual({
      taxId: ca.id,
      title: 'California',
      rateBps: 925,
      taxCalculation: 'Added',
    })
    expect(taxRateFor(db, { countryCode: 'us', stateCode: 'ca' }, 'food')?.rateBps).toBe(875)
    expect(taxRateFor(db, { countryCode: 'US', stateCode: 'CA' }, 'freight')?.rateBps).toBe(0)
    expect(taxRateFor(db, { countryCode: 'US', stateCode: 'CA' }, 'generalMerchandise')?.rateBps).toBe(600)
    expect(taxRateFor(db, { countryCode: 'US', stateCode: 'NV' }, 'food')).toMatchObject({
      taxId: us.id,
      rateBps: 500,
    })
    expect(taxRateFor(db, { countryCode: 'US' }, 'food')?.taxId).toBe(us.id)
    expect(taxRateFor(db, { countryCode: 'NZ', stateCode: 'AUK' }, 'wine')).toMatchObject({
      rateBps: 1500,
      taxCalculation: 'Included',
    })
    expect(taxRateFor(db, { countryCode: 'FR' }, 'wine')).toBeNull()
  })
})

describe('taxOn', () => {
  test('worked examples', () => {
    // $10.00 at 8.75% added: 87.5 cents rounds half up to 88.
    expect(taxOn(1000, 875, 'Added')).toBe(88)
    expect(taxOn(1999, 725, 'Added')).toBe(145) // 144.9275
    expect(taxOn(0, 875, 'Added')).toBe(0)
    expect(taxOn(1000, 0, 'Added')).toBe(0)
    expect(taxOn(1000, 10_000, 'Added')).toBe(1000)
    // NZ$11.50 including 15% GST: net 10.00, GST 1.50.
    expect(taxOn(1150, 1500, 'Included')).toBe(150)
    // €10.00 including 20% VAT: net 8.333 → 8.33, VAT 1.67.
    expect(taxOn(1000, 2000, 'Included')).toBe(167)
    // A refund is the exact negative of the sale.
    expect(taxOn(-1000, 875, 'Added')).toBe(-88)
  })

  test('refuses rates outside 0..10000 and unsafe amounts', () => {
    expect(() => taxOn(100, 10_001, 'Added')).toThrow(RangeError)
    expect(() => taxOn(100, 8.75, 'Added')).toThrow(RangeError)
    expect(() => taxOn(2 ** 60, 100, 'Added')).toThrow(RangeError)
  })

  const amount = fc.integer({ min: 0, max: 10_000_000_000 })
  const rate = fc.integer({ min: 0, max: 10_000 })

  test('added tax is within half a cent of the exact tax, never negative, never above the amount', () => {
    fc.assert(
      fc.property(amount, rate, (a, r) => {
        const tax = taxOn(a, r, 'Added')
        expect(Number.isInteger(tax)).toBe(true)
        expect(tax).toBeGreaterThanOrEqual(0)
        expect(tax).toBeLessThanOrEqual(a)
        expect(Math.abs(tax * 10_000 - a * r)).toBeLessThanOrEqual(5_000)
      }),
    )
  })

  test('included tax leaves a net that grossed up again gives back the amount within a cent', () => {
    fc.assert(
      fc.property(amount, rate, (a, r) => {
        const tax = taxOn(a, r, 'Included')
        const net = a - tax
        expect(tax).toBeGreaterThanOrEqual(0)
        expect(tax).toBeLessThanOrEqual(Math.ceil(a / 2))
        expect(Math.abs(net + taxOn(net, r, 'Added') - a)).toBeLessThanOrEqual(1)
      }),
    )
  })

  test('tax grows with the amount, and a refund mirrors the sale', () => {
    fc.assert(
      fc.property(
        amount,
        amount,
        rate,
        fc.constantFrom('Added' as const, 'Included' as const),
        (a, b, r, calc) => {
          const [lo, hi] = a <= b ? [a, b] : [b, a]
          expect(taxOn(lo, r, calc)).toBeLessThanOrEqual(taxOn(hi, r, calc))
          expect(taxOn(-a, r, calc) + taxOn(a, r, calc)).toBe(0)
        },
      ),
    )
  })
})
