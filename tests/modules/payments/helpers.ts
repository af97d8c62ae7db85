// Orders to pay, and payment requests with idempotency keys.
import type { RequestOptions, TestApp } from '../../harness'
import { ok } from '../cash/helpers'

let keys = 0

/** A draft order at the acme location with one untaxed open item of `price` cents. */
export function orderOf(t: TestApp, price: number, body: Record<string, unknown> = {}) {
  return ok(
    t.request('POST', '/order', {
      body: {
        locationId: t.tenant.locationId,
        lineItems: [{ lineType: 'open_item', title: 'Dinner', unitPrice: price, openItemScope: 'food' }],
        ...body,
      },
    }),
    201,
  )
}

export const newKey = () => `test-key-${++keys}-${Date.now()}`

export function pay(
  t: TestApp,
  orderId: string,
  body: Record<string, unknown>,
  options: { key?: string; as?: RequestOptions['as'] } = {},
) {
  return t.request('POST', `/order/${orderId}/payments`, {
    body,
    as: options.as,
    headers: { 'idempotency-key': options.key ?? newKey() },
  })
}

export function act(
  t: TestApp,
  orderId: string,
  paymentId: string,
  action: 'capture' | 'void' | 'refund',
  body: Record<string, unknown> = {},
  options: { key?: string; as?: RequestOptions['as'] } = {},
) {
  return t.request('POST', `/order/${orderId}/payments/${paymentId}/${action}`, {
    body,
    as: options.as,
    headers: { 'idempotency-key': options.key ?? newKey() },
  })
}

export const getOrder = (t: TestApp, id: string) => ok(t.request('GET', `/order/${id}`))
