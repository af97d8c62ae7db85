// The orders export (`GET /exports/orders`): one row per line item, each carrying its order's
// numbers and totals (an order without lines is one row with empty line columns), by the order's
// creation time, at the caller's locations. Money in minor units, as everywhere.
import { asc, inArray } from 'drizzle-orm'
import { scopeCondition } from '../../platform/auth/location-scope'
import {
  type ExportQuery,
  type ExportRow,
  type ExportSource,
  nextCursor,
  pageCondition,
} from '../../platform/http/export-stream'
import type { Queryable } from '../../platform/tenancy/transaction'
import { type OrderLineRow, orderLines, orders } from './schema'

const orderColumns = [
  'orderId',
  'orderNumber',
  'status',
  'source',
  'locationId',
  'customerId',
  'createdAt',
  'closedAt',
  'voidedAt',
  'orderSubtotal',
  'orderDiscountTotal',
  'orderTaxTotal',
  'orderTipTotal',
  'orderServiceChargeTotal',
  'orderShippingTotal',
  'orderTotal',
  'orderAmountPaid',
  'orderBalanceDue',
] as const

const lineColumns = [
  'lineId',
  'linePosition',
  'lineTitle',
  'lineSku',
  'lineProductId',
  'lineQuantity',
  'lineUnitPrice',
  'lineModifierTotal',
  'lineSubtotal',
  'lineDiscountAmount',
  'lineTaxAmount',
  'lineTotal',
  'lineVoidedAt',
] as const

/** Orders per page: each brings its lines, so a page holds a few thousand rows at most. */
const ORDERS_PER_PAGE = 100

const lineValues = (line: OrderLineRow | undefined): ExportRow => ({
  lineId: line?.id ?? null,
  linePosition: line?.position ?? null,
  lineTitle: line?.title ?? null,
  lineSku: line?.sku ?? null,
  lineProductId: line?.productId ?? null,
  lineQuantity: line?.quantity ?? null,
  lineUnitPrice: line?.unitPrice ?? null,
  lineModifierTotal: line?.modifierTotal ?? null,
  lineSubtotal: line?.subtotal ?? null,
  lineDiscountAmount: line?.discountAmount ?? null,
  lineTaxAmount: line?.taxAmount ?? null,
  lineTotal: line?.total ?? null,
  lineVoidedAt: line?.voidedAt ?? null,
})

function page(db: Queryable, query: ExportQuery) {
  const limit = Math.min(query.limit, ORDERS_PER_PAGE)
  const found = db
    .select()
    .from(orders)
    .where(
      pageCondition(query, orders.createdAt, orders.id, scopeCondition(query.locations, orders.locationId)),
    )
    .orderBy(asc(orders.createdAt), asc(orders.id))
    .limit(limit)
    .all()
  const linesOf = new Map<string, OrderLineRow[]>()
  if (found.length > 0)
    for (const line of db
      .select()
      .from(orderLines)
      .where(
        inArray(
          orderLines.orderId,
          found.map((order) => order.id),
        ),
      )
      .orderBy(asc(orderLines.orderId), asc(orderLines.position), asc(orderLines.id))
      .all())
      linesOf.set(line.orderId, [...(linesOf.get(line.orderId) ?? []), line])
  const rows = found.flatMap((order) => {
    const values: ExportRow = {
      orderId: order.id,
      orderNumber: order.orderNumber,
      status: order.status,
      source: order.source,
      locationId: order.locationId,
      customerId: order.customerId,
      createdAt: order.createdAt,
      closedAt: order.closedAt,
      voidedAt: order.voidedAt,
      orderSubtotal: order.subtotal,
      orderDiscountTotal: order.discountTotal,
      orderTaxTotal: order.taxTotal,
      orderTipTotal: order.tipTotal,
      orderServiceChargeTotal: order.serviceChargeTotal,
      orderShippingTotal: order.shippingTotal,
      orderTotal: order.total,
      orderAmountPaid: order.amountPaid,
      orderBalanceDue: order.balanceDue,
    }
    const lines = linesOf.get(order.id) ?? []
    return lines.length === 0
      ? [{ ...values, ...lineValues(undefined) }]
      : lines.map((line) => ({ ...values, ...lineValues(line) }))
  })
  return { rows, next: nextCursor(found, limit, (order) => order.createdAt) }
}

export const orderExport: ExportSource = { columns: [...orderColumns, ...lineColumns], page }
