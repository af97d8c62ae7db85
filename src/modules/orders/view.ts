// Loading orders with their lines, discounts, fulfillments and service charges, and presenting them.
import { asc, eq } from 'drizzle-orm'
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core'
import { locatedRow } from '../../platform/auth/location-scope'
import { notFound } from '../../platform/foundation/problem'
import { groupBy, rowsWhereIn } from '../../platform/tenancy/table-rows'
import type { Queryable } from '../../platform/tenancy/transaction'
import type { OrderView } from './model'
import type { OffPremiseView } from './model-off-premise'
import { others } from './others'
import {
  type OrderDiscountRow,
  type OrderFulfillmentRow,
  type OrderLineRow,
  type OrderRow,
  type OrderServiceChargeRow,
  orderDiscounts,
  orderFulfillments,
  orderLines,
  orderServiceCharges,
  orderSettings,
  orders,
} from './schema'

/**
 * Where an order lives: every route under /order/{id} declares it with `locatedBy`, so an order
 * at a location out of the request's scope is 404 for its lines, payments, off-premise flow...
 */
export const orderLocated = locatedRow('order', orders, orders.id, orders.locationId)

export function getOrderRow(db: Queryable, id: string): OrderRow {
  const row = db.select().from(orders).where(eq(orders.id, id)).get()
  if (!row) throw notFound('order', id)
  return row
}

export const linesOf = (db: Queryable, orderId: string): OrderLineRow[] =>
  db.select().from(orderLines).where(eq(orderLines.orderId, orderId)).orderBy(asc(orderLines.position)).all()

export const discountsOf = (db: Queryable, orderId: string): OrderDiscountRow[] =>
  db
    .select()
    .from(orderDiscounts)
    .where(eq(orderDiscounts.orderId, orderId))
    .orderBy(asc(orderDiscounts.position))
    .all()

export const serviceChargesOf = (db: Queryable, orderId: string): OrderServiceChargeRow[] =>
  db
    .select()
    .from(orderServiceCharges)
    .where(eq(orderServiceCharges.orderId, orderId))
    .orderBy(asc(orderServiceCharges.position))
    .all()

/** The tenant's setting: bottle deposits are taxed with their line. Default false (not taxed). */
export const bottleDepositTaxable = (db: Queryable): boolean =>
  db.select().from(orderSettings).where(eq(orderSettings.id, 'tenant')).get()?.bottleDepositTaxable ?? false

export const fulfillmentsOf = (db: Queryable, orderId: string): OrderFulfillmentRow[] =>
  db
    .select()
    .from(orderFulfillments)
    .where(eq(orderFulfillments.orderId, orderId))
    .orderBy(asc(orderFulfillments.createdAt), asc(orderFulfillments.id))
    .all()

/** Units fulfilled per SKU (lower-cased) over the given fulfillments. */
export function fulfilledBySku(fulfillments: OrderFulfillmentRow[]): Map<string, number> {
  const done = new Map<string, number>()
  for (const f of fulfillments)
    for (const item of f.items) {
      const sku = item.sku.toLowerCase()
      done.set(sku, (done.get(sku) ?? 0) + item.quantityFulfilled)
    }
  return done
}

/** Units ordered per SKU (lower-cased) over the lines that are not voided. */
export function orderedBySku(lines: OrderLineRow[]): Map<string, number> {
  const ordered = new Map<string, number>()
  for (const line of lines) {
    if (!line.sku || line.voidedAt) continue
    const sku = line.sku.toLowerCase()
    ordered.set(sku, (ordered.get(sku) ?? 0) + line.quantity)
  }
  return ordered
}

/** The `shipping` block of a `shipping` order; null for other orders. */
function shippingView(row: OrderRow): OrderView['shipping'] {
  if (row.fulfillmentMode !== 'shipping') return null
  return {
    shipTo: row.shipToCountryCode
      ? { countryCode: row.shipToCountryCode, stateCode: row.shipToStateCode }
      : null,
    serviceId: row.shippingServiceId,
    serviceTitle: row.shippingServiceTitle,
    rate: row.shippingRate,
    override: row.shippingOverride,
    amount: row.shippingTotal,
    discountAmount: row.shippingDiscountAmount,
    taxAmount: row.shippingTaxAmount,
  }
}

export function presentOrder(
  row: OrderRow,
  lines: OrderLineRow[],
  discounts: OrderDiscountRow[],
  fulfillments: OrderFulfillmentRow[],
  serviceCharges: OrderServiceChargeRow[],
  offPremise: OffPremiseView | null = null,
): OrderView {
  const left = fulfilledBySku(fulfillments)
  let fulfillable = 0
  let fulfilled = 0
  const lineItems = lines.map(({ orderId: _o, position: _p, collectionIds: _c, ...line }) => {
    let quantityFulfilled = 0
    if (line.sku && !line.voidedAt) {
      const sku = line.sku.toLowerCase()
      quantityFulfilled = Math.min(line.quantity, left.get(sku) ?? 0)
      left.set(sku, (left.get(sku) ?? 0) - quantityFulfilled)
      fulfillable += line.quantity
      fulfilled += quantityFulfilled
    }
    return { ...line, taxCode: line.taxCode as OrderView['lineItems'][number]['taxCode'], quantityFulfilled }
  })
  const {
    fundraising,
    contributionAmountCents,
    shipToCountryCode: _country,
    shipToStateCode: _state,
    shippingServiceId: _service,
    shippingServiceTitle: _title,
    shippingRate: _rate,
    shippingOverride: _override,
    shippingTaxAmount: _tax,
    shippingDiscountAmount: _shippingDiscount,
    paidParts: _paid,
    ...header
  } = row
  return {
    ...header,
    status: row.status,
    fulfillmentStatus:
      fulfilled === 0 ? 'unfulfilled' : fulfilled >= fulfillable ? 'fulfilled' : 'partially_fulfilled',
    fundraising: fundraising ? { ...fundraising, contributionAmountCents } : null,
    lineItems: lineItems as unknown as OrderView['lineItems'],
    appliedDiscounts: discounts.map(({ orderId: _o, position: _p, ...d }) => d),
    serviceCharges: serviceCharges.map(
      ({ orderId: _o, position: _p, ...c }) => c,
    ) as OrderView['serviceCharges'],
    shipping: shippingView(row),
    fulfillments: fulfillments.map(({ orderId: _o, ...f }) => f) as OrderView['fulfillments'],
    offPremise,
  }
}

export function loadOrder(db: Queryable, id: string): OrderView {
  const row = getOrderRow(db, id)
  return presentOrder(
    row,
    linesOf(db, id),
    discountsOf(db, id),
    fulfillmentsOf(db, id),
    serviceChargesOf(db, id),
    others.offPremiseBlocks(db, [id]).get(id) ?? null,
  )
}

/**
 * Presents many orders: their children come from one statement per child table for all of them
 * (raw statements decoded by hand: table-rows.ts), not four per order.
 */
export function presentOrders(db: Queryable, rows: OrderRow[]): OrderView[] {
  if (rows.length === 0) return []
  const ids = rows.map((r) => r.id)
  // Ordered by order first, so each order's group keeps its own order.
  const childrenOf = <Row extends { orderId: string }>(
    table: SQLiteTable,
    orderId: SQLiteColumn,
    orderBy: SQLiteColumn[],
  ) => groupBy(rowsWhereIn<Row>(db, table, orderId, ids, [orderId, ...orderBy]), (row) => row.orderId)
  const lines = childrenOf<OrderLineRow>(orderLines, orderLines.orderId, [orderLines.position])
  const discounts = childrenOf<OrderDiscountRow>(orderDiscounts, orderDiscounts.orderId, [
    orderDiscounts.position,
  ])
  const fulfillments = childrenOf<OrderFulfillmentRow>(orderFulfillments, orderFulfillments.orderId, [
    orderFulfillments.createdAt,
    orderFulfillments.id,
  ])
  const serviceCharges = childrenOf<OrderServiceChargeRow>(orderServiceCharges, orderServiceCharges.orderId, [
    orderServiceCharges.position,
  ])
  const offPremise = others.offPremiseBlocks(db, ids)
  return rows.map((row) =>
    presentOrder(
      row,
      lines.get(row.id) ?? [],
      discounts.get(row.id) ?? [],
      fulfillments.get(row.id) ?? [],
      serviceCharges.get(row.id) ?? [],
      offPremise.get(row.id) ?? null,
    ),
  )
}

/** The orders of `ids` in that order (ids that name no order are left out). */
export function ordersByIds(db: Queryable, ids: readonly string[]): OrderRow[] {
  const byId = new Map(rowsWhereIn<OrderRow>(db, orders, orders.id, ids).map((row) => [row.id, row]))
  return ids.flatMap((id) => byId.get(id) ?? [])
}
