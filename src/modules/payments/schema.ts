import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { orders } from '../orders/schema'

export const tenders = ['cash', 'card', 'gift_card'] as const
export type Tender = (typeof tenders)[number]

export const paymentStatuses = ['authorized', 'captured', 'refunded', 'voided', 'failed'] as const
export type PaymentStatus = (typeof paymentStatuses)[number]

/**
 * One payment on an order (a payment intent). Amounts are integer cents: `amount` goes to the
 * order's balance, `tipAmount` on top. A partial refund keeps the status `captured` with
 * `refundedAmount` > 0; a full refund makes it `refunded`.
 */
export const paymentIntents = sqliteTable(
  'payment_intents',
  {
    id: text('id').primaryKey(),
    orderId: text('order_id')
      .notNull()
      .references(() => orders.id),
    locationId: text('location_id').notNull(),
    tender: text('tender', { enum: tenders }).notNull(),
    status: text('status', { enum: paymentStatuses }).notNull(),
    amount: integer('amount').notNull(),
    tipAmount: integer('tip_amount').notNull(),
    /** amount + tipAmount as authorized (card), or taken (cash, gift card). */
    authorizedAmount: integer('authorized_amount').notNull(),
    capturedAmount: integer('captured_amount').notNull(),
    /** Refunded cents, tips included. */
    refundedAmount: integer('refunded_amount').notNull(),
    refundedTipAmount: integer('refunded_tip_amount').notNull(),
    /** Cash: what the guest handed over, and the change given back. */
    amountTendered: integer('amount_tendered'),
    changeDue: integer('change_due'),
    drawerId: text('drawer_id'),
    provider: text('provider'),
    providerPaymentId: text('provider_payment_id'),
    cardBrand: text('card_brand'),
    cardLast4: text('card_last4'),
    giftCardId: text('gift_card_id'),
    failureReason: text('failure_reason'),
    createdByStaffUserId: text('created_by_staff_user_id'),
    authorizedAt: text('authorized_at'),
    capturedAt: text('captured_at'),
    voidedAt: text('voided_at'),
    refundedAt: text('refunded_at'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (table) => [
    index('payment_intents_order').on(table.orderId, table.createdAt),
    index('payment_intents_location_created').on(table.locationId, table.createdAt),
    index('payment_intents_status').on(table.status),
  ],
)

export type PaymentRow = typeof paymentIntents.$inferSelect

export const paymentRefunds = sqliteTable(
  'payment_refunds',
  {
    id: text('id').primaryKey(),
    paymentIntentId: text('payment_intent_id')
      .notNull()
      .references(() => paymentIntents.id),
    /** Refunded cents of the order amount, tip excluded. */
    amount: integer('amount').notNull(),
    tipAmount: integer('tip_amount').notNull(),
    reason: text('reason'),
    providerRefundId: text('provider_refund_id'),
    drawerId: text('drawer_id'),
    createdByStaffUserId: text('created_by_staff_user_id'),
    createdAt: text('created_at').notNull(),
  },
  (table) => [index('payment_refunds_payment').on(table.paymentIntentId)],
)

export type RefundRow = typeof paymentRefunds.$inferSelect
