// The order lifecycle: submit (send to the kitchen), void a line, void the order, close, and the
// payment hooks the payments module calls (paid when the balance reaches zero, back on refund).
import { and, eq, inArray, isNull } from 'drizzle-orm'
import type { Actor } from '../../platform/foundation/actor'
import { nowIso } from '../../platform/foundation/ids'
import { conflict, invalid } from '../../platform/foundation/problem'
import type { Db } from '../../platform/tenancy/databases'
import type { Queryable } from '../../platform/tenancy/transaction'
import { findStaffUser } from '../staff'
import { paidPartsAfterPayment, refundedParts } from './charges'
import { getLine } from './lines'
import type { VoidInput } from './model'
import { changeOrder, OPEN_STATUSES } from './mutation'
import { others } from './others'
import { type OrderRow, orderLines, orders } from './schema'
import { linesOf } from './view'

/** Sends every new line: `sent`, `sentAt`, stock depletion; the order becomes `submitted`. */
function sendNewLines(tx: Queryable, actor: Actor, order: OrderRow): string[] {
  const fresh = linesOf(tx, order.id).filter((l) => l.sendStatus === 'new' && !l.voidedAt)
  if (fresh.length === 0)
    throw conflict('nothing new to send: add lines first', { currentStatus: order.status, newLines: 0 })
  const now = nowIso()
  const ids = fresh.map((l) => l.id)
  tx.update(orderLines)
    .set({ sendStatus: 'sent', sentAt: now, updatedAt: now })
    .where(inArray(orderLines.id, ids))
    .run()
  tx.update(orders)
    .set({ status: 'submitted', submittedAt: order.submittedAt ?? now, updatedAt: now })
    .where(eq(orders.id, order.id))
    .run()
  const depleting = fresh.filter((l) => l.productId)
  if (depleting.length > 0)
    others.depleteForOrderLines(tx, actor, {
      orderId: order.id,
      locationId: order.locationId,
      lines: depleting.map((l) => ({ lineId: l.id, productId: l.productId!, quantity: l.quantity })),
    })
  return ids
}

export const submitOrder = (db: Db, actor: Actor, orderId: string) =>
  changeOrder(
    db,
    actor,
    orderId,
    { action: 'order.submit', event: 'submit', allowed: OPEN_STATUSES, doing: 'submit' },
    (tx, order) => ({ sentLineIds: sendNewLines(tx, actor, order), from: order.status }),
  )

function staffName(tx: Queryable, staffUserId: string | null): string | null {
  if (!staffUserId) return null
  const staff = findStaffUser(tx, staffUserId)
  return staff ? `${staff.firstName} ${staff.lastName}` : null
}

const voidFields = (tx: Queryable, actor: Actor, input: VoidInput) => ({
  voidReasonId: input.voidReasonId ?? null,
  voidReasonName: input.voidReasonName,
  voidedAt: nowIso(),
  voidedByStaffUserId: actor.staffUserId,
  voidedByStaffName: staffName(tx, actor.staffUserId),
})

export const voidLine = (db: Db, actor: Actor, orderId: string, lineId: string, input: VoidInput) =>
  changeOrder(
    db,
    actor,
    orderId,
    { action: 'order.line.void', event: 'update', allowed: OPEN_STATUSES, doing: 'void lines of' },
    (tx) => {
      const line = getLine(tx, orderId, lineId)
      if (line.voidedAt)
        throw conflict('the line is already voided', {
          currentStatus: 'voided',
          lineItemId: lineId,
          voidedAt: line.voidedAt,
        })
      const fields = voidFields(tx, actor, input)
      tx.update(orderLines)
        .set({ ...fields, updatedAt: fields.voidedAt })
        .where(eq(orderLines.id, lineId))
        .run()
      if (line.sendStatus === 'sent') others.reverseDepletion(tx, actor, { orderId, lineIds: [lineId] })
      return {
        lineItemId: lineId,
        reason: input.voidReasonName,
        line: { title: line.title, subtotal: line.subtotal },
      }
    },
  )

export const voidOrder = (db: Db, actor: Actor, orderId: string, input: VoidInput) =>
  changeOrder(
    db,
    actor,
    orderId,
    { action: 'order.void', event: 'void', allowed: OPEN_STATUSES, doing: 'void' },
    (tx, order) => {
      if (order.amountPaid > 0)
        throw conflict('the order has payments; refund them before voiding it', {
          currentStatus: order.status,
          amountPaid: order.amountPaid,
        })
      const fields = voidFields(tx, actor, input)
      tx.update(orderLines)
        .set({ ...fields, updatedAt: fields.voidedAt })
        .where(and(eq(orderLines.orderId, orderId), isNull(orderLines.voidedAt)))
        .run()
      tx.update(orders)
        .set({
          status: 'voided',
          voidedAt: fields.voidedAt,
          voidedByStaffUserId: fields.voidedByStaffUserId,
          voidReasonId: fields.voidReasonId,
          voidReasonName: fields.voidReasonName,
        })
        .where(eq(orders.id, orderId))
        .run()
      others.reverseDepletion(tx, actor, { orderId })
      return { reason: input.voidReasonName, from: order.status, totalBefore: order.total }
    },
  )

export const closeOrder = (db: Db, actor: Actor, orderId: string) =>
  changeOrder(
    db,
    actor,
    orderId,
    { action: 'order.close', event: 'close', allowed: ['submitted', 'paid'], doing: 'close' },
    (tx, order) => {
      if (order.balanceDue > 0)
        throw conflict(`the order still has ${order.balanceDue} cents due`, {
          currentStatus: order.status,
          balanceDue: order.balanceDue,
        })
      const now = nowIso()
      tx.update(orders).set({ status: 'closed', closedAt: now }).where(eq(orders.id, orderId)).run()
      return { from: order.status }
    },
  )

// ---- Hooks for the payments module ----

export interface OrderPaymentRecord {
  orderId: string
  paymentIntentId: string
  /** Cents applied to the balance, tip excluded. */
  amount: number
  /** Cents of tip paid with it (raises tipTotal and total). */
  tipAmount: number
}

function assertCents(value: number, path: string) {
  if (!Number.isSafeInteger(value) || value < 0)
    throw invalid(path, 'must be a non-negative integer number of cents')
}

/**
 * Records a payment on an order, inside the caller's transaction when there is one. `amount` may
 * not exceed balanceDue. When the balance reaches 0 the order becomes `paid`; a draft order paid
 * in full is submitted first (its lines are sent), and gift cards sold on its lines are issued.
 * Emits `order` `pay`.
 */
export function recordOrderPayment(db: Db, actor: Actor, payment: OrderPaymentRecord) {
  assertCents(payment.amount, 'amount')
  assertCents(payment.tipAmount, 'tipAmount')
  return changeOrder(
    db,
    actor,
    payment.orderId,
    {
      action: 'order.payment.record',
      event: 'pay',
      allowed: OPEN_STATUSES,
      doing: 'take payments on',
      settle: (tx, order) => {
        if (order.balanceDue > 0) return
        const hasNew = linesOf(tx, order.id).some((l) => l.sendStatus === 'new' && !l.voidedAt)
        if (hasNew) sendNewLines(tx, actor, order)
        const now = nowIso()
        tx.update(orders)
          .set({ status: 'paid', paidAt: now, submittedAt: order.submittedAt ?? now })
          .where(eq(orders.id, order.id))
          .run()
        const cards = linesOf(tx, order.id).filter((l) => l.giftCardSale && !l.voidedAt)
        if (cards.length > 0)
          others.issueGiftCards(tx, actor, {
            orderId: order.id,
            orderNumber: order.orderNumber,
            locationId: order.locationId,
            lines: cards.map((l) => ({
              lineId: l.id,
              giftCardSale: l.giftCardSale!,
              amount: l.subtotal - l.discountAmount,
              productId: l.productId,
              title: l.title,
            })),
          })
      },
    },
    (tx, order) => {
      if (payment.amount > order.balanceDue)
        throw conflict(
          `the payment of ${payment.amount} cents exceeds the balance due of ${order.balanceDue}`,
          {
            currentStatus: order.status,
            balanceDue: order.balanceDue,
          },
        )
      if (payment.amount === 0 && payment.tipAmount === 0)
        throw invalid('amount', 'a payment must pay something')
      tx.update(orders)
        .set({
          amountPaid: order.amountPaid + payment.amount + payment.tipAmount,
          tipTotal: order.tipTotal + payment.tipAmount,
          paidParts: paidPartsAfterPayment(tx, order, payment.amount),
          paymentIntentIds: order.paymentIntentIds.includes(payment.paymentIntentId)
            ? order.paymentIntentIds
            : [...order.paymentIntentIds, payment.paymentIntentId],
        })
        .where(eq(orders.id, order.id))
        .run()
      return { ...payment }
    },
  )
}

/**
 * Records a refund: `amount` off the balance paid and `tipAmount` off the tips. A `paid` order
 * whose balance is due again goes back to `submitted`; a `closed` order stays closed. The audit
 * entry and the `order` `refund` event carry `refundedParts`: what the refund gives back of the
 * lines, service charges, shipping, bottle deposits, tax, contribution and tips.
 */
export function recordOrderRefund(db: Db, actor: Actor, refund: OrderPaymentRecord) {
  assertCents(refund.amount, 'amount')
  assertCents(refund.tipAmount, 'tipAmount')
  return changeOrder(
    db,
    actor,
    refund.orderId,
    {
      action: 'order.payment.refund',
      event: 'refund',
      // A draft can hold a partial payment (a draft is submitted only when paid in full).
      allowed: ['draft', 'submitted', 'paid', 'closed'],
      doing: 'refund',
      eventDetails: (details) => ({ refundedParts: details.refundedParts }),
      settle: (tx, order) => {
        if (order.status === 'paid' && order.balanceDue > 0)
          tx.update(orders).set({ status: 'submitted', paidAt: null }).where(eq(orders.id, order.id)).run()
      },
    },
    (tx, order) => {
      if (refund.tipAmount > order.tipTotal)
        throw conflict(
          `the refund of ${refund.tipAmount} cents of tip exceeds the tips of ${order.tipTotal}`,
          {
            currentStatus: order.status,
            tipTotal: order.tipTotal,
          },
        )
      if (refund.amount + refund.tipAmount > order.amountPaid)
        throw conflict(`the refund exceeds the ${order.amountPaid} cents paid`, {
          currentStatus: order.status,
          amountPaid: order.amountPaid,
        })
      const { refunded, paidParts } = refundedParts(tx, order, refund.amount, refund.tipAmount)
      tx.update(orders)
        .set({
          amountPaid: order.amountPaid - refund.amount - refund.tipAmount,
          tipTotal: order.tipTotal - refund.tipAmount,
          paidParts,
        })
        .where(eq(orders.id, order.id))
        .run()
      return { ...refund, refundedParts: refunded }
    },
  )
}
