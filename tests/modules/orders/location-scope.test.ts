// Orders live at their location: a caller confined to location A (a manager whose only role is
// there, a vps_ session there) neither sees nor changes an order at B through any /order/{id}
// route, lists and counts A's orders only, and cannot create one at B.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createTestApp, type TestApp } from '../../harness'
import { ok } from './helpers'
import { callers, refusedUnwritten, type ScopeFixture, scopeFixture } from './scope'

const water = { lineType: 'open_item', title: 'Water', unitPrice: 300, openItemScope: 'food' }
const fulfillment = {
  type: 'Carry Out',
  fulfillmentDate: '2025-01-01',
  packageCount: 0,
  sendTransactionEmail: false,
}

let t: TestApp
let scope: ScopeFixture
let orderB: any
beforeAll(async () => {
  t = await createTestApp()
  scope = await scopeFixture(t)
  await ok(t.request('POST', '/order', { body: { locationId: scope.A, lineItems: [water] } }), 201)
  orderB = await ok(
    t.request('POST', '/order', { body: { lineItems: [water] }, headers: { 'x-location-id': scope.B } }),
    201,
  )
  await ok(t.request('POST', `/order/${orderB.id}/submit`))
})
afterAll(() => t.close())

const ordersAt = (locationId: string) =>
  (t.tenant.db.$client.query('SELECT count(*) AS n FROM orders WHERE location_id = ?').get(locationId) as any)
    .n

/** Every route under /order/{id} of the orders and shipping modules, on B's order. */
const routesOnB = (): [string, string, unknown?][] => {
  const line = `/order/${orderB.id}/line/${orderB.lineItems[0].id}`
  return [
    ['GET', `/order/${orderB.id}`],
    ['PUT', `/order/${orderB.id}`, { note: 'moved' }],
    ['POST', `/order/${orderB.id}/line`, water],
    ['PUT', line, { quantity: 2 }],
    ['DELETE', line],
    ['POST', `${line}/void`, { voidReasonName: 'Spilled' }],
    ['POST', `/order/${orderB.id}/submit`],
    ['POST', `/order/${orderB.id}/void`, { voidReasonName: 'Walked out' }],
    ['POST', `/order/${orderB.id}/close`],
    ['POST', `/order/${orderB.id}/discount`, { couponCode: 'WELCOME' }],
    ['DELETE', `/order/${orderB.id}/discount/d-1`],
    ['POST', `/order/${orderB.id}/fulfillment/all`, fulfillment],
    [
      'POST',
      `/order/${orderB.id}/fulfillment`,
      { ...fulfillment, items: [{ sku: 'X', quantityFulfilled: 1 }] },
    ],
    ['DELETE', `/order/${orderB.id}/fulfillment/f-1`],
    ['POST', `/order/${orderB.id}/service-charges`, { title: 'Service', chargeType: 'percent', value: 1800 }],
    ['DELETE', `/order/${orderB.id}/service-charges/s-1`],
    ['GET', `/order/${orderB.id}/shipping-rates?countryCode=US`],
  ]
}

describe('orders at a location out of reach', () => {
  test('the owner reaches both locations: B’s order is there to be refused', async () => {
    expect((await t.request('GET', `/order/${orderB.id}`)).body.locationId).toBe(scope.B)
  })

  for (const caller of callers) {
    const as = () => scope.tokens[caller]

    test(`${caller}: every /order/{id} route on B’s order is 404 and writes nothing`, async () => {
      for (const [method, path, body] of routesOnB()) {
        const res = await refusedUnwritten(t, 404, () => t.request(method, path, { as: as(), body }))
        expect(`${method} ${path}: ${res.body.detail}`).toContain(`order ${orderB.id} not found`)
      }
    })

    test(`${caller}: the list holds A’s orders only, and its total counts only them`, async () => {
      const all = (await t.request('GET', '/order?limit=100')).body
      expect(all.total).toBe(ordersAt(scope.A) + ordersAt(scope.B))
      const mine = await ok(t.request('GET', '/order?limit=100', { as: as() }))
      expect(mine.orders.map((o: any) => o.locationId)).not.toContain(scope.B)
      expect(mine.total).toBe(ordersAt(scope.A))
      const submitted = await ok(t.request('GET', '/order?status=submitted', { as: as() }))
      expect(submitted).toEqual({ orders: [], total: 0 })
    })

    test(`${caller}: naming B (creating an order, in the body or the header; listing B’s orders) is 403 and writes nothing`, async () => {
      await refusedUnwritten(t, 403, () =>
        t.request('POST', '/order', { as: as(), body: { locationId: scope.B, lineItems: [water] } }),
      )
      await refusedUnwritten(t, 403, () =>
        t.request('POST', '/order', { as: as(), body: {}, headers: { 'x-location-id': scope.B } }),
      )
      await refusedUnwritten(t, 403, () => t.request('GET', `/order?locationId=${scope.B}`, { as: as() }))
    })

    test(`${caller}: an order created naming no location is at A, and the caller works on it`, async () => {
      const order = await ok(t.request('POST', '/order', { as: as(), body: { lineItems: [water] } }), 201)
      expect(order.locationId).toBe(scope.A)
      await ok(t.request('POST', `/order/${order.id}/line`, { as: as(), body: water }))
      const read = await ok(t.request('GET', `/order/${order.id}`, { as: as() }))
      expect(read.lineItems).toHaveLength(2)
    })
  }
})
