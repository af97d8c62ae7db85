// `sendTransactionEmail` on fulfillments: the customer's email goes through the platform's message
// sender (the embedded one records it in outbound_messages) and the outcome is audited on the order.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { withFulfillmentEmail } from '../../../src/modules/orders/fulfillment-email'
import { loadOrder } from '../../../src/modules/orders/view'
import { systemActor } from '../../../src/platform/foundation/actor'
import { MessageSendError, type MessageSender } from '../../../src/platform/messaging/sender'
import { countRows, createTestApp, type TestApp } from '../../harness'

let t: TestApp
beforeEach(async () => {
  t = await createTestApp()
})
afterEach(() => t.close())

async function ok(method: string, path: string, body?: unknown) {
  const res = await t.request(method, path, { body })
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`)
  return res.body
}

/** A submitted order of two bottles of CAB, for a customer with an email unless `guest`. */
async function submittedOrder(guest = false) {
  await ok('POST', '/product', {
    title: 'Cabernet',
    type: 'Wine',
    variants: [{ title: '750ml', sku: 'CAB', price: 4000 }],
  })
  const customer = guest
    ? null
    : await ok('POST', '/customers', { firstName: 'Ann', lastName: 'Lee', email: 'ann@example.test' })
  const order = await ok('POST', '/order', {
    locationId: t.tenant.locationId,
    ...(customer ? { customerId: customer.id } : {}),
    lineItems: [{ sku: 'CAB', quantity: 2 }],
  })
  return ok('POST', `/order/${order.id}/submit`)
}

const shipped = (sendTransactionEmail: boolean) => ({
  type: 'Shipped',
  fulfillmentDate: '2026-11-23',
  packageCount: 1,
  sendTransactionEmail,
  shipped: { trackingNumbers: ['1Z999'], carrier: 'UPS' },
})

const messages = () =>
  t.tenant.db.$client
    .query('SELECT channel, destination, subject, body, category FROM outbound_messages')
    .all() as any[]

const emailAudits = () =>
  t.tenant.db.$client
    .query("SELECT metadata FROM audit_entries WHERE action = 'order.fulfillment.email' ORDER BY seq")
    .all()
    .map((r: any) => JSON.parse(r.metadata))

describe('fulfillment transaction emails', () => {
  test('sendTransactionEmail emails the customer the items and tracking, audited as sent', async () => {
    const order = await submittedOrder()
    const fulfilled = await ok('POST', `/order/${order.id}/fulfillment/all`, shipped(true))
    expect(messages()).toEqual([
      {
        channel: 'email',
        destination: 'ann@example.test',
        subject: `Your order #${order.orderNumber} was shipped`,
        body: `Hi Ann Lee,\n\nItems of your order #${order.orderNumber} were shipped on 2026-11-23:\n- CAB x 2\nTracking: 1Z999 (UPS)\n`,
        category: 'order_fulfillment',
      },
    ])
    expect(emailAudits()).toEqual([
      expect.objectContaining({
        fulfillmentId: fulfilled.fulfillments[0].id,
        status: 'sent',
        to: 'ann@example.test',
        provider: 'embedded',
      }),
    ])
  })

  test('items fulfilled one by one each send their own email', async () => {
    const order = await submittedOrder()
    await ok('POST', `/order/${order.id}/fulfillment`, {
      ...shipped(true),
      items: [{ sku: 'cab', quantityFulfilled: 1 }],
    })
    await ok('POST', `/order/${order.id}/fulfillment`, {
      ...shipped(false),
      items: [{ sku: 'CAB', quantityFulfilled: 1 }],
    })
    expect(messages().map((m) => m.body.includes('- CAB x 1'))).toEqual([true])
  })

  test('without sendTransactionEmail nothing is sent or audited', async () => {
    const order = await submittedOrder()
    await ok('POST', `/order/${order.id}/fulfillment/all`, shipped(false))
    expect(messages()).toEqual([])
    expect(emailAudits()).toEqual([])
  })

  test('an order without a customer email is audited as skipped; the fulfillment stands', async () => {
    const order = await submittedOrder(true)
    const fulfilled = await ok('POST', `/order/${order.id}/fulfillment/all`, shipped(true))
    expect(fulfilled.fulfillments).toHaveLength(1)
    expect(messages()).toEqual([])
    expect(emailAudits()).toEqual([expect.objectContaining({ status: 'skipped' })])
  })

  test('a sender that fails is audited with its reason and does not undo the fulfillment', async () => {
    const order = await submittedOrder()
    await ok('POST', `/order/${order.id}/fulfillment/all`, shipped(false))
    const failing: MessageSender = {
      provider: 'smtp',
      send: async () => {
        throw new MessageSendError('smtp', 'connection refused')
      },
    }
    const view = loadOrder(t.tenant.db, order.id)
    view.fulfillments[0]!.sendTransactionEmail = true
    await withFulfillmentEmail(t.tenant.db, systemActor(t.tenant.id, 'test'), failing, view)
    expect(emailAudits()).toEqual([
      expect.objectContaining({ status: 'failed', provider: 'smtp', reason: 'connection refused' }),
    ])
    expect(countRows(t.tenant.db, 'order_fulfillments')).toBe(1)
  })

  test('validation (400), read_only (403) and another tenant’s order (404) send nothing', async () => {
    const order = await submittedOrder()
    const invalid = await t.request('POST', `/order/${order.id}/fulfillment/all`, {
      body: { ...shipped(true), type: 'Picked Up' },
    })
    expect(invalid.status).toBe(400)
    const forbidden = await t.request('POST', `/order/${order.id}/fulfillment/all`, {
      as: t.tenant.readOnly,
      body: shipped(true),
    })
    expect(forbidden.status).toBe(403)
    const other = await t.addTenant('other')
    const elsewhere = await t.request('POST', `/order/${order.id}/fulfillment/all`, {
      as: other.owner,
      tenant: other,
      body: shipped(true),
    })
    expect(elsewhere.status).toBe(404)
    expect(messages()).toEqual([])
    expect(emailAudits()).toEqual([])
  })
})
