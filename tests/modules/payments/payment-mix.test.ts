// GET /payment-mix: money taken per tender, refunds subtracted, within the caller's locations.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { boundCallers } from '../../bound-callers'
import { createTestApp, type StaffFixture, type TestApp } from '../../harness'
import { ok, openDrawer } from '../cash/helpers'
import { act, orderOf, pay } from './helpers'

let t: TestApp
beforeEach(async () => {
  t = await createTestApp()
})
afterEach(() => t.close())

const mixOf = async (query = '', as?: StaffFixture | string) => {
  const res = await t.request('GET', `/payment-mix${query}`, { as })
  expect(res.status).toBe(200)
  return Object.fromEntries(res.body.tenders.map((row: any) => [row.tender, row]))
}

/** A paid order at `locationId` (the acme location by default): cash 4,000 + 500 tip, card 2,000. */
async function sales(locationId = t.tenant.locationId) {
  const order = await orderOf(t, 6_000, { locationId })
  const cash = await ok(pay(t, order.id, { tender: 'cash', amount: 4_000, tipAmount: 500 }), 201)
  await ok(pay(t, order.id, { tender: 'card', amount: 2_000, paymentMethod: 'tok_visa' }), 201)
  return { order, cash }
}

describe('payment mix', () => {
  test('per tender: captured, refunded, net and tips; unused tenders are zero', async () => {
    await openDrawer(t, { startingBalance: 0 })
    const { order, cash } = await sales()
    await ok(act(t, order.id, cash.id, 'refund', { amount: 1_000, reason: 'cold soup' }))
    const mix = await mixOf()
    expect(mix.cash).toEqual({
      tender: 'cash',
      payments: 1,
      capturedAmount: 4_500,
      refundedAmount: 1_000,
      netAmount: 3_500,
      tipAmount: 500,
    })
    expect(mix.card).toMatchObject({ payments: 1, capturedAmount: 2_000, netAmount: 2_000 })
    expect(mix.gift_card).toMatchObject({ payments: 0, capturedAmount: 0, netAmount: 0 })
  })

  test('the capture-time filter; a malformed one is 400', async () => {
    await openDrawer(t, { startingBalance: 0 })
    await sales()
    expect((await mixOf('?capturedAt=lt:2000-01-01')).cash.payments).toBe(0)
    expect((await mixOf(`?capturedAt=${new Date().toISOString().slice(0, 10)}`)).cash.payments).toBe(1)
    const bad = await t.request('GET', '/payment-mix?capturedAt=yesterday')
    expect(bad.status).toBe(400)
    expect(bad.body.errors[0].path).toBe('query/capturedAt')
  })

  test('needs analytics:read', async () => {
    expect((await t.request('GET', '/payment-mix', { as: t.tenant.staff })).status).toBe(403)
    expect((await t.request('GET', '/payment-mix', { as: null })).status).toBe(401)
  })

  test("another tenant's payments are never counted", async () => {
    const other = await t.addTenant('other')
    await openDrawer(t, { startingBalance: 0 }, { tenant: other })
    const order = await ok(
      t.request('POST', '/order', {
        as: other.owner,
        tenant: other,
        body: {
          locationId: other.locationId,
          lineItems: [{ lineType: 'open_item', title: 'Dinner', unitPrice: 1_000, openItemScope: 'food' }],
        },
      }),
      201,
    )
    const paid = await t.request('POST', `/order/${order.id}/payments`, {
      as: other.owner,
      tenant: other,
      body: { tender: 'card', amount: 1_000, paymentMethod: 'tok_visa' },
      headers: { 'idempotency-key': 'other-tenant-card-1' },
    })
    expect(paid.status).toBe(201)
    expect((await mixOf()).card.payments).toBe(0)
  })

  describe.each(boundCallers)('%s', (_name, bind) => {
    test('sees only its location; naming another location is 403', async () => {
      const B = t.addLocation(t.tenant, {
        name: 'B',
        timezone: 'UTC',
      }).id
      await openDrawer(t, { startingBalance: 0 })
      await openDrawer(t, { startingBalance: 0, locationId: B })
      await sales()
      await sales(B)
      expect((await mixOf()).cash.payments).toBe(2)
      const bound = await bind(t, t.tenant, t.tenant.locationId)
      expect((await mixOf('', bound)).cash.payments).toBe(1)
      expect((await t.request('GET', `/payment-mix?locationId=${B}`, { as: bound })).status).toBe(403)
      expect((await mixOf(`?locationId=${B}`)).cash.payments).toBe(1)
    })
  })
})
