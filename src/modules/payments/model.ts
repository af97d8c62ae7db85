import { t } from 'elysia'
import { pageInfoSchema, pagingQuery } from '../../platform/foundation/paging'
import { bool, money, oneOf } from '../../platform/foundation/types'
import { dateFilterQuery } from '../../platform/http/date-filter'
import { idempotencyKeyHeader } from '../../platform/http/idempotency'
import { paymentStatuses, tenders } from './schema'

const optionalText = (max: number, description?: string) =>
  t.Optional(t.Nullable(t.String({ maxLength: max, description })))

export const Payment = t.Object(
  {
    id: t.String({
      format: 'uuid',
      description: 'The payment intent id (listed in the order’s paymentIntentIds).',
    }),
    orderId: t.String(),
    locationId: t.String(),
    tender: oneOf(tenders),
    status: oneOf(paymentStatuses, {
      description:
        '`authorized` (card, held, not yet captured) → `captured` → `refunded` (in full; a partial refund stays `captured` with refundedAmount > 0); `authorized` → `voided`; `failed` (declined).',
    }),
    amount: t.Integer({ description: 'Cents applied to the order’s balance.' }),
    tipAmount: t.Integer({ description: 'Cents of tip on top.' }),
    authorizedAmount: t.Integer({ description: 'amount + tipAmount as authorized or taken.' }),
    capturedAmount: t.Integer(),
    refundedAmount: t.Integer({ description: 'Refunded cents, tips included.' }),
    refundedTipAmount: t.Integer(),
    refundableAmount: t.Integer({ description: 'capturedAmount − refundedAmount.' }),
    amountTendered: t.Nullable(t.Integer()),
    changeDue: t.Nullable(t.Integer()),
    drawerId: t.Nullable(t.String()),
    provider: t.Nullable(t.String()),
    providerPaymentId: t.Nullable(t.String()),
    cardBrand: t.Nullable(t.String()),
    cardLast4: t.Nullable(t.String()),
    giftCardId: t.Nullable(t.String()),
    failureReason: t.Nullable(t.String()),
    createdByStaffUserId: t.Nullable(t.String()),
    authorizedAt: t.Nullable(t.String()),
    capturedAt: t.Nullable(t.String()),
    voidedAt: t.Nullable(t.String()),
    refundedAt: t.Nullable(t.String()),
    createdAt: t.String({ format: 'date-time' }),
    updatedAt: t.String({ format: 'date-time' }),
    refunds: t.Array(
      t.Object({
        id: t.String(),
        amount: t.Integer(),
        tipAmount: t.Integer(),
        reason: t.Nullable(t.String()),
        providerRefundId: t.Nullable(t.String()),
        drawerId: t.Nullable(t.String()),
        createdByStaffUserId: t.Nullable(t.String()),
        createdAt: t.String(),
      }),
    ),
  },
  { description: 'A payment on an order. Money is integer cents.' },
)

export const CreatePayment = t.Object(
  {
    tender: oneOf(tenders),
    amount: money({
      description: 'Cents toward the balance due (at most the balance due less pending authorizations).',
    }),
    tipAmount: t.Optional(money({ description: 'Default 0.' })),
    amountTendered: t.Optional(
      money({
        description:
          'Cash: what the guest handed over (at least amount + tip); the change is returned as changeDue.',
      }),
    ),
    drawerId: optionalText(
      200,
      'Cash: the open drawer at the order’s location to take it into; default: see the route.',
    ),
    paymentMethod: optionalText(
      255,
      'Card: a provider token or payment-method id from the card reader (sandbox: tok_visa, tok_mastercard, ...; tok_chargeDeclined declines).',
    ),
    customerPaymentMethodId: optionalText(
      200,
      'Card: a stored card of the order’s customer, instead of paymentMethod.',
    ),
    capture: t.Optional(
      bool({ description: 'Card: false only authorizes (a tab); capture it later. Default true.' }),
    ),
    giftCardCode: optionalText(100, 'Gift card: the card’s code (or giftCardId).'),
    giftCardId: optionalText(200, 'Gift card: the card’s id (or giftCardCode).'),
  },
  { additionalProperties: false },
)

export const CapturePayment = t.Object(
  {
    tipAmount: t.Optional(
      money({
        description:
          'The tip to capture (replacing the authorized one); amount + tip may not exceed the authorized amount.',
      }),
    ),
  },
  { additionalProperties: false },
)

export const VoidPayment = t.Object({ reason: optionalText(500) }, { additionalProperties: false })

export const RefundPayment = t.Object(
  {
    amount: t.Optional(
      money({
        description:
          'Cents of the order amount to refund. Omit both amount and tipAmount for everything left.',
      }),
    ),
    tipAmount: t.Optional(money({ description: 'Cents of tip to refund. Default 0 when amount is given.' })),
    reason: optionalText(500),
    drawerId: optionalText(200, 'Cash: the open drawer the cash leaves from; default as for cash payments.'),
  },
  { additionalProperties: false },
)

export const PaymentHeaders = t.Object({
  'idempotency-key': t.String({
    ...idempotencyKeyHeader,
    description:
      'Required: a retried request with the same key and body answers the first result and never charges twice.',
  }),
})

export const PaymentParams = t.Object({
  id: t.String({ minLength: 1, maxLength: 200 }),
  paymentId: t.String({ minLength: 1, maxLength: 200 }),
})

export const OrderParams = t.Object({ id: t.String({ minLength: 1, maxLength: 200 }) })

export const PaymentListQuery = t.Object({ ...pagingQuery(100) })

export const PaymentList = t.Object({ payments: t.Array(Payment), page: pageInfoSchema })

export type CreatePaymentInput = typeof CreatePayment.static
export type RefundPaymentInput = typeof RefundPayment.static
export type CapturePaymentInput = typeof CapturePayment.static
export type PaymentView = typeof Payment.static

export const PaymentMixQuery = t.Object({
  capturedAt: dateFilterQuery('the capture time'),
  locationId: t.Optional(t.String({ minLength: 1, maxLength: 200, description: 'One location only.' })),
})

export const PaymentMix = t.Object(
  {
    tenders: t.Array(
      t.Object({
        tender: oneOf(tenders),
        payments: t.Integer({ minimum: 0, description: 'Captured payments.' }),
        capturedAmount: t.Integer({ description: 'Captured cents, tips included.' }),
        refundedAmount: t.Integer({ description: 'Refunded cents, tips included.' }),
        netAmount: t.Integer({ description: 'capturedAmount − refundedAmount.' }),
        tipAmount: t.Integer({ description: 'Tips kept (taken minus refunded).' }),
      }),
      { description: 'Every tender, in a fixed order (cash, card, gift_card), zero when unused.' },
    ),
  },
  { $id: '#/components/schemas/PaymentMix' },
)
