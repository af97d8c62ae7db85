// Every input price is bounded by MAX_MONEY, but quantities, portions and nested modifiers
// multiply them: an order whose computed amounts would pass 2^53 cents is refused (400) before
// anything is written, instead of storing rounded totals (or, past 2^63, floats).
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { priceOrder } from '../../../src/modules/orders/pricing'
import { MAX_MONEY } from '../../../src/platform/foundation/types'
import { countRows, createTestApp, type TestApp } from '../../harness'

/** An open item of `quantity` units at MAX_MONEY, each with `modifiers` of MAX_MONEY × 10 × 99. */
const bigLine = (quantity: number, modifiers = 0) => ({
  lineType: 'open_item',
  title: 'Estate',
  unitPrice: MAX_MONEY,
  quantity,
  openItemScope: 'food',
  modifiers: Array.from({ length: modifiers }, () => ({
    title: 'Magnum upgrade',
    priceDelta: MAX_MONEY,
    portionPriceMultiplier: 10,
    quantity: 99,
  })),
})
/** 9999 × (1e10 + 2 × 9.9e12) ≈ 2e17 cents: past 2^53 ≈ 9.007e15. */
const tooBig = bigLine(9999, 2)

let t: TestApp
beforeEach(async () => {
  t = await createTestApp()
})
afterEach(() => t.close())

const written = () => ({
  orders: countRows(t.tenant.db, 'orders'),
  lines: countRows(t.tenant.db, 'order_lines'),
  audit: countRows(t.tenant.db, 'audit_entries'),
  events: countRows(t.tenant.db, 'outbox_events'),
})

const refusedAsInexact = (res: { status: number; body: any }) => {
  expect(res.status).toBe(400)
  expect(res.body.code).toBe('validation_failed')
  expect(res.body.detail).toContain(String(Number.MAX_SAFE_INTEGER))
}

describe('order amounts stay exact', () => {
  test('the largest line the bounds allow without modifiers is priced exactly and stored as an integer', async () => {
    const res = await t.request('POST', '/order', {
      body: { locationId: t.tenant.locationId, lineItems: [bigLine(9999)] },
    })
    expect(res.status).toBe(201)
    expect(res.body.subtotal).toBe(MAX_MONEY * 9999)
    const stored = t.tenant.db.$client
      .query('SELECT typeof(subtotal) AS type, subtotal FROM orders WHERE id = ?')
      .get(res.body.id)
    expect(stored).toEqual({ type: 'integer', subtotal: 99_990_000_000_000 })
  })

  test('creating an order whose lines would pass 2^53 cents is 400 and writes nothing', async () => {
    const before = written()
    refusedAsInexact(
      await t.request('POST', '/order', { body: { locationId: t.tenant.locationId, lineItems: [tooBig] } }),
    )
    expect(written()).toEqual(before)
  })

  test('adding such a line, or raising a quantity past it, is 400 and leaves the order as it was', async () => {
    const created = await t.request('POST', '/order', {
      body: { locationId: t.tenant.locationId, lineItems: [bigLine(1, 2)] },
    })
    expect(created.status).toBe(201)
    const before = written()
    refusedAsInexact(await t.request('POST', `/order/${created.body.id}/line`, { body: tooBig }))
    const line = created.body.lineItems[0]
    refusedAsInexact(
      await t.request('PUT', `/order/${created.body.id}/line/${line.id}`, { body: { quantity: 9999 } }),
    )
    expect(written()).toEqual(before)
    expect((await t.request('GET', `/order/${created.body.id}`)).body).toEqual(created.body)
  })

  test('who may not change orders is refused before any pricing', async () => {
    const before = written()
    const res = await t.request('POST', '/order', {
      as: t.tenant.readOnly,
      body: { locationId: t.tenant.locationId, lineItems: [tooBig] },
    })
    expect(res.status).toBe(403)
    expect(written()).toEqual(before)
  })

  test('the pricing engine refuses a line subtotal that is not a safe integer', () => {
    const line = {
      id: 'l1',
      unitPrice: MAX_MONEY,
      quantity: 1_000_000,
      modifiers: [],
      taxRateBps: 0,
      taxCalculation: 'Added' as const,
      voided: false,
    }
    expect(() => priceOrder({ lines: [line], discounts: [], tipTotal: 0, fundraising: null })).toThrow(
      /could not stay exact/,
    )
    expect(
      priceOrder({ lines: [{ ...line, quantity: 900_000 }], discounts: [], tipTotal: 0, fundraising: null })
        .totals.subtotal,
    ).toBe(MAX_MONEY * 900_000)
  })
})
