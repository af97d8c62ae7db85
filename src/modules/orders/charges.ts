// Service charges on an order (fixed or percent, taxable, gratuity), and the tenant's order
// settings (whether bottle deposits are taxed). Their amounts are the pricing engine's.
import { and, eq, max } from 'drizzle-orm'
import { recordWrite } from '../../platform/audit/record-write'
import type { Actor } from '../../platform/auth/actor'
import { invalid, notFound } from '../../platform/http/problem'
import { newId, nowIso } from '../../platform/ids'
import type { Db } from '../../platform/tenancy/databases'
import { inWriteTransaction, type Queryable } from '../../platform/tenancy/transaction'
import type { AddServiceChargeInput } from './model'
import { changeOrder, OPEN_STATUSES } from './mutation'
import type { OrdersPort } from './ports'
import { orderServiceCharges, orderSettings } from './schema'
import { resolveTax } from './tax-place'

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
