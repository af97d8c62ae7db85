// Service charges on an order (fixed or percent, taxable, gratuity), and the tenant's order
// settings (whether bottle deposits are taxed). Their amounts are the pricing engine's.
import { and, eq, max } from 'drizzle-orm'
import { recordWrite } from '../../platform/audit/record-write'
import type { Actor } from '../../platform/foundation/actor'
import { newId, nowIso } from '../../platform/foundation/ids'
import { invalid, notFound } from '../../platform/foundation/problem'
import type { Db } from '../../platform/tenancy/databases'
import { inWriteTransaction, type Queryable } from '../../platform/tenancy/transaction'
import { allocate } from '../coupons'
import type { AddServiceChargeInput } from './model'
import { changeOrder, OPEN_STATUSES } from './mutation'
import { type OrderParts, type OrderRow, orderServiceCharges, orderSettings } from './schema'
import { resolveTax } from './tax-place'
import { serviceChargesOf } from './view'

const refused = (doing: string) => ({ event: 'update', allowed: OPEN_STATUSES, doing })

export const addServiceCharge = (db: Db, actor: Actor, orderId: string, input: AddServiceChargeInput) =>
  changeOrder(
    db,
    actor,
    orderId,
    { action: 'order.service_charge.add', ...refused('add service charges to') },
    (tx, order) => {
      if (input.chargeType === 'percent' && input.value > 10_000)
        throw invalid('body/value', 'a percent charge is at most 10000 basis points (100%)')
      const taxCode = input.taxCode ?? 'food'
      const last = tx
        .select({ p: max(orderServiceCharges.position) })
        .from(orderServiceCharges)
        .where(eq(orderServiceCharges.orderId, orderId))
        .get()
      const row = tx
        .insert(orderServiceCharges)
        .values({
          id: newId(),
          orderId,
          position: (last?.p ?? 0) + 1,
          title: input.title,
          chargeType: input.chargeType,
          value: input.value,
          taxable: input.taxable ?? false,
          gratuity: input.gratuity ?? false,
          taxCode,
          taxRateBps: resolveTax(tx, order, taxCode).taxRateBps,
          amount: 0,
          discountAmount: 0,
          taxAmount: 0,
          total: 0,
          createdByStaffUserId: actor.staffUserId,
          createdAt: nowIso(),
        })
        .returning()
        .get()
      return { serviceChargeId: row.id, chargeType: row.chargeType, value: row.value, title: row.title }
    },
  )

export const removeServiceCharge = (db: Db, actor: Actor, orderId: string, serviceChargeId: string) =>
  changeOrder(
    db,
    actor,
    orderId,
    { action: 'order.service_charge.remove', ...refused('remove service charges from') },
    (tx) => {
      const row = tx
        .delete(orderServiceCharges)
        .where(and(eq(orderServiceCharges.orderId, orderId), eq(orderServiceCharges.id, serviceChargeId)))
        .returning()
        .get()
      if (!row) throw notFound('service charge', serviceChargeId)
      return { serviceChargeId, title: row.title, amount: row.amount }
    },
  )

/** What a refund gives back of each part of an order; the parts sum to the refund with its tip. */
export interface RefundedParts extends OrderParts {
  tip: number
}

const partNames = ['lines', 'serviceCharges', 'shipping', 'bottleDeposits', 'tax', 'contribution'] as const

const partsOf = (values: readonly number[]): OrderParts =>
  Object.fromEntries(partNames.map((name, i) => [name, values[i]!])) as unknown as OrderParts

const valuesOf = (parts: OrderParts) => partNames.map((name) => parts[name])

/** As much of `amount` as the weights hold, split over them in proportion (largest remainders). */
const splitOver = (amount: number, weights: number[]): OrderParts =>
  partsOf(
    allocate(
      Math.min(
        amount,
        weights.reduce((a, b) => a + b, 0),
      ),
      weights,
    ),
  )

/** Each part of the order's total, tips aside: the parts sum to `total − tipTotal`. */
function orderParts(tx: Queryable, order: OrderRow): OrderParts {
  const netCharges = serviceChargesOf(tx, order.id).reduce((sum, c) => sum + c.amount - c.discountAmount, 0)
  const chargeDiscounts = order.serviceChargeTotal - netCharges
  return {
    lines: order.subtotal - (order.discountTotal - chargeDiscounts - order.shippingDiscountAmount),
    serviceCharges: netCharges,
    shipping: order.shippingTotal - order.shippingDiscountAmount,
    bottleDeposits: order.bottleDepositTotal,
    tax: order.taxTotal - order.includedTaxTotal,
    contribution: order.contributionAmountCents,
  }
}

/** What the payments so far cover of each part (kept since paid parts were; derived before). */
function paidPartsOf(tx: Queryable, order: OrderRow): OrderParts {
  if (order.paidParts) return order.paidParts
  return splitOver(Math.max(0, order.amountPaid - order.tipTotal), valuesOf(orderParts(tx, order)))
}

/**
 * What a payment of `amount` (tips aside) covers: what is still unpaid of each part, in proportion
 * (largest remainders take the odd cents), so the payment that settles the order leaves every
 * part paid whole. Pure, over the parts and the paid parts, so a property test can drive it.
 */
export function paymentCovers(parts: OrderParts, paid: OrderParts, amount: number): OrderParts {
  return splitOver(
    amount,
    partNames.map((name) => Math.max(0, parts[name] - paid[name])),
  )
}

/**
 * What a refund of `amount` (tips aside) gives back: what the payments cover of each part, in
 * proportion (largest remainders take the odd cents). Because it splits the running paid parts,
 * not the order's parts, a series of partial refunds gives each part back to the cent: after
 * everything paid is refunded, each part's refunds sum to what was paid of it.
 */
export function refundTakes(paid: OrderParts, amount: number): OrderParts {
  return splitOver(amount, valuesOf(paid))
}

const plus = (a: OrderParts, b: OrderParts, sign = 1) =>
  partsOf(partNames.map((name) => a[name] + sign * b[name]))

/** The order's paid parts after a payment of `amount`. */
export function paidPartsAfterPayment(tx: Queryable, order: OrderRow, amount: number): OrderParts {
  const paid = paidPartsOf(tx, order)
  return plus(paid, paymentCovers(orderParts(tx, order), paid, amount))
}

/** A refund's parts (its tip to the tips) and the paid parts it leaves. */
export function refundedParts(
  tx: Queryable,
  order: OrderRow,
  amount: number,
  tipAmount: number,
): { refunded: RefundedParts; paidParts: OrderParts } {
  const paid = paidPartsOf(tx, order)
  const refunded = refundTakes(paid, amount)
  return { refunded: { ...refunded, tip: tipAmount }, paidParts: plus(paid, refunded, -1) }
}

// ---- The tenant's order settings ----

export function getOrderSettings(db: Queryable) {
  const row = db.select().from(orderSettings).where(eq(orderSettings.id, 'tenant')).get()
  return { bottleDepositTaxable: row?.bottleDepositTaxable ?? false, updatedAt: row?.updatedAt ?? null }
}

/** Applies to open orders when they next change, and to every order made afterwards. */
export function putOrderSettings(db: Db, actor: Actor, input: { bottleDepositTaxable: boolean }) {
  return inWriteTransaction(db, (tx) => {
    const before = getOrderSettings(tx)
    const values = { id: 'tenant', bottleDepositTaxable: input.bottleDepositTaxable, updatedAt: nowIso() }
    tx.insert(orderSettings)
      .values(values)
      .onConflictDoUpdate({ target: orderSettings.id, set: values })
      .run()
    const view = getOrderSettings(tx)
    recordWrite(tx, actor, {
      action: 'order.settings.update',
      entityType: 'order_settings',
      entityId: 'tenant',
      metadata: {
        bottleDepositTaxable: { from: before.bottleDepositTaxable, to: view.bottleDepositTaxable },
      },
      event: view,
    })
    return view
  })
}
