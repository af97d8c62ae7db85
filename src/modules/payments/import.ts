// The payments of orders imported as history (orders/import.ts asks through lendToOrders): kept
// as captured payments, with their provider references, and nothing else of a live payment: no
// provider call, no cash drawer entry, no gift card redemption, no event of their own (the
// order's `order.import` audit entry names them).
import { and, asc, eq, gt } from 'drizzle-orm'
import type { Actor } from '../../platform/foundation/actor'
import { newId, nowIso } from '../../platform/foundation/ids'
import { conflict } from '../../platform/foundation/problem'
import type { Queryable } from '../../platform/tenancy/transaction'
import type { ImportedPaymentRecord, OrderRow } from '../orders'
import { paymentIntents } from './schema'

export const importedPayments = (db: Queryable, orderId: string): ImportedPaymentRecord[] =>
  db
    .select()
    .from(paymentIntents)
    .where(eq(paymentIntents.orderId, orderId))
    .orderBy(asc(paymentIntents.createdAt), asc(paymentIntents.id))
    .all()
    .map((row) => ({
      tender: row.tender,
      amount: row.amount,
      tipAmount: row.tipAmount,
      paidAt: row.capturedAt ?? row.createdAt,
      provider: row.provider,
      providerPaymentId: row.providerPaymentId,
      cardBrand: row.cardBrand,
      cardLast4: row.cardLast4,
    }))

export function replaceImportedPayments(
  tx: Queryable,
  actor: Actor,
  order: Pick<OrderRow, 'id' | 'locationId'>,
  payments: readonly ImportedPaymentRecord[],
): string[] {
  const refunded = tx
    .select({ id: paymentIntents.id })
    .from(paymentIntents)
    .where(and(eq(paymentIntents.orderId, order.id), gt(paymentIntents.refundedAmount, 0)))
    .get()
  if (refunded)
    throw conflict(
      `payment ${refunded.id} of the order was refunded since it was imported: its payments are no longer the file's to replace`,
      { paymentIntentId: refunded.id },
    )
  tx.delete(paymentIntents).where(eq(paymentIntents.orderId, order.id)).run()
  const now = nowIso()
  return payments.map((payment) => {
    const total = payment.amount + payment.tipAmount
    const id = newId()
    tx.insert(paymentIntents)
      .values({
        id,
        orderId: order.id,
        locationId: order.locationId,
        tender: payment.tender,
        status: 'captured',
        amount: payment.amount,
        tipAmount: payment.tipAmount,
        authorizedAmount: total,
        capturedAmount: total,
        refundedAmount: 0,
        refundedTipAmount: 0,
        provider: payment.provider,
        providerPaymentId: payment.providerPaymentId,
        cardBrand: payment.cardBrand,
        cardLast4: payment.cardLast4,
        createdByStaffUserId: actor.staffUserId,
        authorizedAt: payment.paidAt,
        capturedAt: payment.paidAt,
        createdAt: payment.paidAt,
        updatedAt: now,
      })
      .run()
    return id
  })
}
