// The orders routes of the real service app, over the real adapters: inventory depletion and
// its reversal, gift card issuance on payment, the OpenAPI description and the route table.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { serviceOrdersPort } from '../../../src/modules/orders/adapters'
import { recordOrderPayment } from '../../../src/modules/orders/lifecycle'
import { systemActor } from '../../../src/platform/auth/actor'
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

describe('orders in the service app', () => {
  test('a paid gift card line issues a real gift card with the order as its purchase', async () => {
    const order = await ok('POST', '/order', {
      locationId: t.tenant.locationId,
      lineItems: [
        {
          lineType: 'open_item',
          title: 'Gift card',
          unitPrice: 2500,
          giftCardSale: { recipientName: 'Ana' },
        },
      ],
    })
    await ok('POST', `/order/${order.id}/submit`)
    const paid = recordOrderPayment(t.tenant.db, systemActor(t.tenant.id, 'payments'), serviceOrdersPort, {
      orderId: order.id,
      paymentIntentId: 'pi_gc',
      amount: 2500,
      tipAmount: 0,
    })
    expect(paid.status).toBe('paid')
    const card = t.tenant.db.$client
      .query(
        'SELECT initial_amount AS amount, recipient_name AS name, purchased_on_order_id AS orderId FROM gift_cards',
      )
      .get()
    expect(card).toEqual({ amount: 2500, name: 'Ana', orderId: order.id })
  })

  test('a catalog line cannot be sold until the catalog is wired (no variant): 400, nothing written', async () => {
    const order = await ok('POST', '/order', { locationId: t.tenant.locationId })
    const res = await t.request('POST', `/order/${order.id}/line`, { body: { sku: 'ANY' } })
    expect(res.status).toBe(400)
    expect(countRows(t.tenant.db, 'order_lines')).toBe(0)
  })

  test('the OpenAPI description documents the computed fields and the rounding rule', async () => {
    const spec = (await t.request('GET', '/openapi.json', { as: null })).body
    const create = spec.paths['/order'].post
    expect(create.description).toContain('rounded half-up')
    const text = JSON.stringify(spec)
    for (const phrase of [
      'includedTaxTotal',
      'balanceDue',
      'contributionAmountCents',
      'quantityFulfilled',
      'eligibilitySummary',
    ])
      expect(text).toContain(phrase)
    for (const path of [
      '/order/{id}/line',
      '/order/{id}/submit',
      '/order/{id}/void',
      '/order/{id}/discount',
      '/order/{id}/fulfillment/all',
      '/order/{id}/fulfillment/{fulfillmentId}',
    ])
      expect(Object.keys(spec.paths)).toContain(path)
  })
})
