// Payments live at their order's location: a caller confined to location A (a manager whose only
// role is there, a vps_ session there) neither lists, reads nor takes, captures, voids or refunds
// payments of an order at B, and a cash drawer at B named in a body does not exist for them.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createTestApp, type TestApp } from '../../harness'
import { ok, openDrawer } from '../cash/helpers'
import { callers, refusedUnwritten, type ScopeFixture, scopeFixture } from '../orders/scope'
import { act, newKey, orderOf, pay } from './helpers'

let t: TestApp
let scope: ScopeFixture
let drawerA: any
let drawerB: any
let orderB: any
let paymentB: any
beforeAll(async () => {
  t = await createTestApp()
  scope = await scopeFixture(t)
  drawerA = await openDrawer(t)
  drawerB = await openDrawer(t, { locationId: scope.B })
  orderB = await orderOf(t, 3_000, { locationId: scope.B })
  paymentB = await ok(pay(t, orderB.id, { tender: 'cash', amount: 1_000 }), 201)
  expect(paymentB.drawerId).toBe(drawerB.id)
})
afterAll(() => t.close())

describe('payments at a location out of reach', () => {
  for (const caller of callers) {
    const as = () => scope.tokens[caller]
    const send = (method: string, path: string, body?: unknown) =>
      t.request(method, path, { as: as(), body, headers: { 'idempotency-key': newKey() } })

    test(`${caller}: every payments route of B’s order is 404 and writes nothing`, async () => {
      const on = `/order/${orderB.id}/payments`
      const routes: [string, string, unknown?][] = [
        ['GET', on],
        ['GET', `${on}/${paymentB.id}`],
        ['POST', on, { tender: 'cash', amount: 500 }],
        ['POST', `${on}/${paymentB.id}/capture`, {}],
        ['POST', `${on}/${paymentB.id}/void`, {}],
        ['POST', `${on}/${paymentB.id}/refund`, { amount: 100 }],
      ]
      for (const [method, path, body] of routes) {
        const res = await refusedUnwritten(t, 404, () => send(method, path, body))
        expect(`${method} ${path}: ${res.body.detail}`).toContain(`order ${orderB.id} not found`)
      }
    })

    test(`${caller}: B’s drawer named to take or refund cash on an order at A is 404 and writes nothing`, async () => {
      const order = await orderOf(t, 2_000, { locationId: scope.A })
      const taken = await refusedUnwritten(t, 404, () =>
        pay(t, order.id, { tender: 'cash', amount: 500, drawerId: drawerB.id }, { as: as() }),
      )
      expect(taken.body.detail).toBe(`cash drawer ${drawerB.id} not found`)
      const payment = await ok(pay(t, order.id, { tender: 'cash', amount: 500 }, { as: as() }), 201)
      expect(payment.drawerId).toBe(drawerA.id)
      await refusedUnwritten(t, 404, () =>
        act(t, order.id, payment.id, 'refund', { amount: 100, drawerId: drawerB.id }, { as: as() }),
      )
      const refunded = await ok(act(t, order.id, payment.id, 'refund', { amount: 100 }, { as: as() }))
      expect(refunded.refunds).toEqual([expect.objectContaining({ amount: 100, drawerId: drawerA.id })])
    })

    test(`${caller}: the payments of an order at A list with their total`, async () => {
      const order = await orderOf(t, 2_000, { locationId: scope.A })
      for (const amount of [300, 400])
        await ok(pay(t, order.id, { tender: 'cash', amount }, { as: as() }), 201)
      const list = await ok(t.request('GET', `/order/${order.id}/payments?limit=1`, { as: as() }))
      expect(list.payments.map((p: any) => [p.amount, p.locationId])).toEqual([[300, scope.A]])
      expect(list.page.total).toBe(2)
    })
  }
})
