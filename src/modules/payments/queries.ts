// Named queries of payments' tables that other families ask (their front door, or lent).
import { and, eq, gte, inArray, lte, or } from 'drizzle-orm'
import type { Queryable } from '../../platform/tenancy/transaction'
import { type PaymentRow, paymentIntents } from './schema'

/**
 * cash (lent: cash cannot import payments, which record drawer entries): the payments of a
 * drawer's shift: those of its orders taken in the span, any still awaiting capture, and any
 * taken through the drawer; oldest first.
 */
export function paymentsOfShift(
  db: Queryable,
  shift: { drawerId: string; orderIds: string[]; from: string; to: string },
): PaymentRow[] {
  if (shift.orderIds.length === 0) return []
  return db
    .select()
    .from(paymentIntents)
    .where(
      and(
        inArray(paymentIntents.orderId, shift.orderIds),
        or(
          and(gte(paymentIntents.createdAt, shift.from), lte(paymentIntents.createdAt, shift.to)),
          eq(paymentIntents.status, 'authorized'),
          eq(paymentIntents.drawerId, shift.drawerId),
        ),
      ),
    )
    .orderBy(paymentIntents.createdAt, paymentIntents.id)
    .all()
}
