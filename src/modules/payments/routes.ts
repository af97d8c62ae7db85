// Payments on orders: /order/{id}/payments, located by their order. Every write takes a required
// `idempotency-key`.
import { Elysia } from 'elysia'
import type { AuthPlugin } from '../../platform/auth/plugin'
import type { Actor } from '../../platform/foundation/actor'
import { pageOf } from '../../platform/foundation/paging'
import { idempotentCall, idempotentWrite } from '../../platform/http/idempotency'
import type { Db } from '../../platform/tenancy/databases'
import { orderLocated } from '../orders'
import { paymentMix } from './mix'
import {
  CapturePayment,
  CreatePayment,
  OrderParams,
  Payment,
  PaymentHeaders,
  PaymentList,
  PaymentListQuery,
  PaymentMix,
  PaymentMixQuery,
  PaymentParams,
  RefundPayment,
  VoidPayment,
} from './model'
import { capturePayment, refundCardPayment, refundLocalPayment, voidPayment } from './settle'
import { type PaymentDeps, takeCardPayment, takeLocalPayment } from './take'
import { getPaymentRow, listPayments, loadPayment } from './view'

const IDEMPOTENT =
  'Requires an `idempotency-key` header (8..180 characters): the same key and body replays the first answer without charging again; the same key with another body is 422; a key whose first request is still running is 409.'
const MONEY = 'Money is integer cents.'

interface Call {
  db: Db
  actor: Actor
  key: string
  request: Request
  body: unknown
}

const writeOnce = <T>(c: Call, status: number, work: () => T) =>
  idempotentWrite(db(c), c.actor, request(c), () => ({ status, body: work() }))
const callOnce = <T>(c: Call, status: number, work: () => Promise<T>) =>
  idempotentCall(db(c), c.actor, request(c), async () => ({ status, body: await work() }))
const db = (c: Call) => c.db
const request = (c: Call) => ({
  key: c.key,
  method: 'POST',
  path: new URL(c.request.url).pathname,
  body: c.body,
})

export const paymentRoutes = (auth: AuthPlugin, deps: PaymentDeps) =>
  new Elysia({ name: 'order-payments', prefix: '/order/:id/payments', detail: { tags: ['Payments'] } })
    .use(auth)
    .get('', ({ db, params, query, locations }) => listPayments(db, params.id, pageOf(query), locations), {
      permission: 'orders:read',
      locatedBy: orderLocated,
      params: OrderParams,
      query: PaymentListQuery,
      response: PaymentList,
      detail: {
        summary: 'List an order’s payments',
        description: `Oldest first, with their refunds. ${MONEY}`,
      },
    })
    .post(
      '',
      async ({ db, actor, locations, params, body, headers, request, set }) => {
        const call = { db, actor, key: headers['idempotency-key'], request, body }
        const result =
          body.tender === 'card'
            ? await callOnce(call, 201, () =>
                takeCardPayment(db, actor, locations, deps, params.id, body, call.key),
              )
            : writeOnce(call, 201, () => takeLocalPayment(db, actor, locations, params.id, body))
        set.status = result.status
        return result.body
      },
      {
        permission: 'payments:write',
        locatedBy: orderLocated,
        params: OrderParams,
        headers: PaymentHeaders,
        body: CreatePayment,
        response: { 201: Payment },
        detail: {
          summary: 'Take a payment',
          'x-problems': ['payment_required'],
          description: `\`tender\`: \`cash\`, \`card\` or \`gift_card\`. \`amount\` goes to the balance due (partial payments welcome; more than the balance due less card authorizations not yet captured is 409); \`tipAmount\` comes on top and raises the order's tipTotal. A captured payment is recorded on the order at once: when balanceDue reaches 0 the order is \`paid\`.
- **cash**: captured at once and written as a \`cash_collected\` entry (amount + tip) on a drawer at the order's location: \`drawerId\` if given, else the open drawer assigned to the caller there, else the only open drawer there; none (or several, none the caller's) is 409. \`amountTendered\` gives \`changeDue\`.
- **card**: through the configured payment provider (sandbox by default): \`paymentMethod\` (a provider token or payment-method id from the reader) or \`customerPaymentMethodId\` (a stored card of the order's customer). Captured at once, or only \`authorized\` with \`capture: false\` (a tab: capture or void it later). A decline is 402 and the attempt is kept as a \`failed\` payment; a provider outage is 503.
- **gift_card**: redeems amount + tip from the card (\`giftCardCode\` or \`giftCardId\`); a card without the balance is 409, and so is a tip while the gift card setting \`tipsEnabled\` is off.
Fields of another tender are 400. ${IDEMPOTENT} ${MONEY}`,
        },
      },
    )
    .get('/:paymentId', ({ db, params }) => loadPayment(db, params.id, params.paymentId), {
      permission: 'orders:read',
      locatedBy: orderLocated,
      params: PaymentParams,
      response: Payment,
      detail: { summary: 'Get a payment', description: `With its refunds. ${MONEY}` },
    })
    .post(
      '/:paymentId/capture',
      async ({ db, actor, params, body, headers, request }) => {
        const call = { db, actor, key: headers['idempotency-key'], request, body }
        return (
          await callOnce(call, 200, () =>
            capturePayment(db, actor, deps, params.id, params.paymentId, body, call.key),
          )
        ).body
      },
      {
        permission: 'payments:write',
        locatedBy: orderLocated,
        params: PaymentParams,
        headers: PaymentHeaders,
        body: CapturePayment,
        response: Payment,
        detail: {
          summary: 'Capture an authorized card payment',
          'x-problems': ['payment_required'],
          description: `authorized → captured, recorded on the order. \`tipAmount\` replaces the authorized tip; amount + tip may not exceed the authorized amount (400). Another status is 409 with \`currentStatus\`. ${IDEMPOTENT}`,
        },
      },
    )
    .post(
      '/:paymentId/void',
      async ({ db, actor, params, body, headers, request }) => {
        const call = { db, actor, key: headers['idempotency-key'], request, body }
        return (
          await callOnce(call, 200, () =>
            voidPayment(db, actor, deps, params.id, params.paymentId, body.reason, call.key),
          )
        ).body
      },
      {
        permission: 'payments:write',
        locatedBy: orderLocated,
        params: PaymentParams,
        headers: PaymentHeaders,
        body: VoidPayment,
        response: Payment,
        detail: {
          summary: 'Void an authorized card payment',
          'x-problems': ['payment_required'],
          description: `authorized → voided: the hold is released at the provider; the order's balance never counted it. A captured payment is refunded instead (409 here). ${IDEMPOTENT}`,
        },
      },
    )
    .post(
      '/:paymentId/refund',
      async ({ db, actor, locations, params, body, headers, request }) => {
        const call = { db, actor, key: headers['idempotency-key'], request, body }
        const payment = getPaymentRow(db, params.id, params.paymentId)
        const result =
          payment.tender === 'card'
            ? await callOnce(call, 200, () =>
                refundCardPayment(db, actor, locations, deps, params.id, params.paymentId, body, call.key),
              )
            : writeOnce(call, 200, () =>
                refundLocalPayment(db, actor, locations, params.id, params.paymentId, body),
              )
        return result.body
      },
      {
        permission: 'payments:refund',
        locatedBy: orderLocated,
        params: PaymentParams,
        headers: PaymentHeaders,
        body: RefundPayment,
        response: Payment,
        detail: {
          summary: 'Refund a payment',
          'x-problems': ['payment_required'],
          description: `Refunds \`amount\` (and \`tipAmount\` of tip) of a captured payment; with neither, everything left. Never more than was captured and not yet refunded: 409 with \`refundableAmount\`. A partial refund keeps the payment \`captured\`; the last one makes it \`refunded\`. The order's amount paid, tips and balance follow (a \`paid\` order with a balance due again goes back to \`submitted\`). Card refunds go through the provider; cash refunds are a \`cash_out\` entry (reason \`refund\`) on the payment's drawer if still open, else as for cash payments (\`drawerId\` to choose); gift card refunds put the value back on the card. ${IDEMPOTENT} ${MONEY}`,
        },
      },
    )

export const paymentMixRoutes = (auth: AuthPlugin) =>
  new Elysia({ name: 'payment-mix', detail: { tags: ['Payments'] } })
    .use(auth)
    .get('/payment-mix', ({ db, query, locations }) => paymentMix(db, query, locations), {
      permission: 'analytics:read',
      query: PaymentMixQuery,
      response: PaymentMix,
      detail: {
        summary: 'Payment mix by tender',
        description: `Money taken per tender (cash, card, gift card): payments captured in the \`capturedAt\` range, with refunds subtracted. A location-bound caller, or one naming a location with \`x-location-id\` or \`locationId\`, sees only that location’s payments. ${MONEY}`,
      },
    })
