// Service charges on an order (fixed or percent, taxable, gratuity), and the tenant's order
// settings (whether bottle deposits are taxed). Their amounts are the pricing engine's.
import { and, eq, max } from 'drizzle-orm'
import { recordWrite } from '../../platform/audit/record-write'
import type { Actor } from '../../platform/auth/actor'
import { invalid, notFound } from '../../platform/http/problem'
import { newId, nowIso } from '../../platform/ids'
import type { Db } from '../../platform/tenancy/databases'
import { inWriteTransaction, type Queryable } from '../../platform/tenancy/transaction'
import { allocate } from '../coupons/apply'
import type { AddServiceChargeInput } from './model'
import { changeOrder, OPEN_STATUSES } from './mutation'
import type { OrdersPort } from './ports'
import { type OrderRow, orderServiceCharges, orderSettings } from './schema'
import { resolveTax } from './tax-place'
import { serviceChargesOf } from './view'

const refused = (doing: string) => ({ event: 'update', allowed: OPEN_STATUSES, doing })

export const addServiceCharge = (
  db: Db,
  actor: Actor,
  port: OrdersPort,
  orderId: string,
  input: AddServiceChargeInput,
) =>
  changeOrder(
    db,
    actor,
    port,
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
          taxRateBps: resolveTax(tx, port, order, taxCode).taxRateBps,
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

export const removeServiceCharge = (
  db: Db,
  actor: Actor,
  port: OrdersPort,
  orderId: string,
  serviceChargeId: string,
) =>
  changeOrder(
    db,
    actor,
    port,
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
export interface RefundedParts {
  /** The lines, net of what discounts took from them. */
  lines: number
  /** The service charges, net of what discounts took from them. */
  serviceCharges: number
  shipping: number
  bottleDeposits: number
  /** Added tax (Included tax is inside the lines). */
  tax: number
  contribution: number
  tip: number
}

/**
 * Splits a refund over the parts of the order in proportion to what each part is of the total
 * (largest remainders take the odd cents), its tip to the tips: a refund of everything paid gives
 * back each part whole.
 */
export function refundedParts(
  tx: Queryable,
  order: OrderRow,
  amount: number,
  tipAmount: number,
): RefundedParts {
  const netCharges = serviceChargesOf(tx, order.id).reduce((sum, c) => sum + c.amount - c.discountAmount, 0)
  const chargeDiscounts = order.serviceChargeTotal - netCharges
  const weights = [
    order.subtotal - (order.discountTotal - chargeDiscounts),
    netCharges,
    order.shippingTotal,
    order.bottleDepositTotal,
    order.taxTotal - order.includedTaxTotal,
    order.contributionAmountCents,
  ]
  const [lines, serviceCharges, shipping, bottleDeposits, tax, contribution] = allocate(
    Math.min(amount, order.total - order.tipTotal),
    weights,
  ) as [number, number, number, number, number, number]
  return { lines, serviceCharges, shipping, bottleDeposits, tax, contribution, tip: tipAmount }
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
