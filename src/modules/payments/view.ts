// Reading payments: one with its refunds, and an order's list.
import { and, asc, count, eq, inArray } from 'drizzle-orm'
import { type LocationScope, scopeCondition } from '../../platform/auth/location-scope'
import { offsetOf, type PageRequest } from '../../platform/foundation/paging'
import { notFound } from '../../platform/foundation/problem'
import type { Queryable } from '../../platform/tenancy/transaction'
import { getOrderRow } from '../orders'
import type { PaymentView } from './model'
import { type PaymentRow, paymentIntents, paymentRefunds, type RefundRow } from './schema'

export function presentPayment(row: PaymentRow, refunds: readonly RefundRow[]): PaymentView {
  return {
    ...row,
    refundableAmount: row.capturedAmount - row.refundedAmount,
    refunds: refunds.map(({ paymentIntentId: _p, ...refund }) => refund),
  }
}

const refundsOf = (db: Queryable, ids: string[]) =>
  ids.length === 0
    ? []
    : db
        .select()
        .from(paymentRefunds)
        .where(inArray(paymentRefunds.paymentIntentId, ids))
        .orderBy(asc(paymentRefunds.createdAt), asc(paymentRefunds.id))
        .all()

/** The payment row, 404 unless it exists on that order. */
export function getPaymentRow(db: Queryable, orderId: string, paymentId: string): PaymentRow {
  const row = db
    .select()
    .from(paymentIntents)
    .where(and(eq(paymentIntents.id, paymentId), eq(paymentIntents.orderId, orderId)))
    .get()
  if (!row) throw notFound('payment', paymentId)
  return row
}

export function loadPayment(db: Queryable, orderId: string, paymentId: string): PaymentView {
  const row = getPaymentRow(db, orderId, paymentId)
  return presentPayment(row, refundsOf(db, [row.id]))
}

export function listPayments(db: Queryable, orderId: string, page: PageRequest, locations: LocationScope) {
  getOrderRow(db, orderId)
  const where = and(eq(paymentIntents.orderId, orderId), scopeCondition(locations, paymentIntents.locationId))
  const total = db.select({ n: count() }).from(paymentIntents).where(where).get()?.n ?? 0
  const rows = db
    .select()
    .from(paymentIntents)
    .where(where)
    .orderBy(asc(paymentIntents.createdAt), asc(paymentIntents.id))
    .limit(page.limit)
    .offset(offsetOf(page))
    .all()
  const refunds = refundsOf(
    db,
    rows.map((r) => r.id),
  )
  return {
    payments: rows.map((r) =>
      presentPayment(
        r,
        refunds.filter((f) => f.paymentIntentId === r.id),
      ),
    ),
    page: { total, page: page.page, limit: page.limit },
  }
}
