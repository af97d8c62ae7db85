// Fulfillments over HTTP: all, by SKU, too many, delete, and who may.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { countRows } from '../../harness'
import { createOrdersTestApp, newOrder, type OrdersTestApp, ok } from './helpers'

let t: OrdersTestApp
beforeEach(async () => {
  t = await createOrdersTestApp()
})
afterEach(() => t.close())

const base = {
  type: 'Shipped',
  fulfillmentDate: '2025-03-01T10:00:00Z',
  packageCount: 1,
  sendTransactionEmail: true,
}

async function submittedOrder() {
  const order = await newOrder(t, {
    lineItems: [
      { sku: 'CAB-BTL', quantity: 6 },
      { sku: 'FRIES', quantity: 2 },
      { sku: 'cab-btl', quantity: 2 },
      { lineType: 'open_item', title: 'Corkage', unitPrice: 1500, openItemScope: 'wine' },
    ],
  })
  return ok(t.request('POST', `/order/${order.id}/submit`))
}

describe('fulfillments', () => {
  test('partial by SKU, more than remains is 409, the rest, then all is 409; delete gives it back', async () => {
    const order = await submittedOrder()
    const first = await ok(
      t.request('POST', `/order/${order.id}/fulfillment`, {
        body: {
          ...base,
          items: [
            { sku: 'cab-btl', quantityFulfilled: 3 },
            { sku: 'CAB-BTL', quantityFulfilled: 2 },
          ],
          shipped: { trackingNumbers: ['1Z999'], carrier: 'UPS' },
        },
      }),
    )
    expect(first.fulfillments).toHaveLength(1)
    expect(first.fulfillments[0]).toMatchObject({
      type: 'Shipped',
      items: [{ sku: 'CAB-BTL', quantityFulfilled: 5 }],
      shipped: { trackingNumbers: ['1Z999'], carrier: 'UPS' },
      pickedUp: null,
      sendTransactionEmail: true,
    })
    expect(first.fulfillmentStatus).toBe('partially_fulfilled')
    expect(first.lineItems.map((l: any) => l.quantityFulfilled)).toEqual([5, 0, 0, 0])
    const tooMany = await t.request('POST', `/order/${order.id}/fulfillment`, {
      body: { ...base, items: [{ sku: 'CAB-BTL', quantityFulfilled: 4 }] },
    })
    expect(tooMany.status).toBe(409)
    expect(tooMany.body).toMatchObject({
      sku: 'CAB-BTL',
      remainingQuantity: 3,
      requestedQuantity: 4,
      currentStatus: 'submitted',
    })
    const unknown = await t.request('POST', `/order/${order.id}/fulfillment`, {
      body: { ...base, items: [{ sku: 'BURGER', quantityFulfilled: 1 }] },
    })
    expect(unknown.status).toBe(400)
    expect(unknown.body.errors[0].path).toBe('body/items/0/sku')
    expect(countRows(t.tenant.db, 'order_fulfillments')).toBe(1)
    const all = await ok(
      t.request('POST', `/order/${order.id}/fulfillment/all`, {
        body: { ...base, type: 'Picked Up', pickedUp: { pickedUpBy: 'Ana' }, sendTransactionEmail: false },
      }),
    )
    expect(all.fulfillments[1]).toMatchObject({
      type: 'Picked Up',
      pickedUp: { pickedUpBy: 'Ana' },
      items: [
        { sku: 'CAB-BTL', quantityFulfilled: 3 },
        { sku: 'FRIES', quantityFulfilled: 2 },
      ],
    })
    expect(all.fulfillmentStatus).toBe('fulfilled')
    expect(all.lineItems.map((l: any) => l.quantityFulfilled)).toEqual([6, 2, 2, 0])
    const nothing = await t.request('POST', `/order/${order.id}/fulfillment/all`, { body: base })
    expect(nothing.status).toBe(409)
    const deleted = await t.request('DELETE', `/order/${order.id}/fulfillment/${first.fulfillments[0].id}`)
    expect(deleted.status).toBe(204)
    expect(deleted.text).toBe('')
    const after = await ok(t.request('GET', `/order/${order.id}`))
    expect(after.fulfillmentStatus).toBe('partially_fulfilled')
    expect(after.lineItems.map((l: any) => l.quantityFulfilled)).toEqual([3, 2, 0, 0])
    expect(
      (await t.request('DELETE', `/order/${order.id}/fulfillment/${first.fulfillments[0].id}`)).status,
    ).toBe(404)
    const events = t.tenant.db.$client
      .query(
        "SELECT action FROM outbox_events WHERE object = 'order' AND action IN ('fulfill', 'update') ORDER BY created_at",
      )
      .all()
    expect(events).toEqual([{ action: 'fulfill' }, { action: 'fulfill' }, { action: 'update' }])
  })

  test('a draft cannot be fulfilled; details must match the type; validation', async () => {
    const draft = await newOrder(t, { lineItems: [{ sku: 'FRIES' }] })
    const res = await t.request('POST', `/order/${draft.id}/fulfillment/all`, { body: base })
    expect(res.status).toBe(409)
    expect(res.body.currentStatus).toBe('draft')
    const order = await submittedOrder()
    const mismatch = await t.request('POST', `/order/${order.id}/fulfillment/all`, {
      body: { ...base, pickedUp: { pickedUpBy: 'x' } },
    })
    expect(mismatch.status).toBe(400)
    for (const body of [
      { ...base, type: 'Teleported' },
      { ...base, fulfillmentDate: 'soon' },
      { ...base, sendTransactionEmail: undefined },
      { ...base, items: [] },
      { ...base, items: [{ sku: 'FRIES', quantityFulfilled: 0 }] },
    ]) {
      const bad = await t.request('POST', `/order/${order.id}/fulfillment`, { body })
      expect(bad.status).toBe(400)
    }
    expect(countRows(t.tenant.db, 'order_fulfillments')).toBe(0)
  })

  test('permissions and tenant isolation', async () => {
    const order = await submittedOrder()
    expect(
      (await t.request('POST', `/order/${order.id}/fulfillment/all`, { as: t.tenant.readOnly, body: base }))
        .status,
    ).toBe(403)
    const done = await ok(
      t.request('POST', `/order/${order.id}/fulfillment/all`, { as: t.tenant.staff, body: base }),
    )
    const other = await t.addTenant('other')
    const path = `/order/${order.id}/fulfillment/${done.fulfillments[0].id}`
    expect((await t.request('DELETE', path, { as: other.owner, tenant: other })).status).toBe(404)
    expect(
      (
        await t.request('POST', `/order/${order.id}/fulfillment/all`, {
          as: other.owner,
          tenant: other,
          body: base,
        })
      ).status,
    ).toBe(404)
    expect((await t.request('DELETE', path, { as: t.tenant.readOnly })).status).toBe(403)
  })
})
