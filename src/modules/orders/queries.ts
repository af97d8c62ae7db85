// Named queries of orders' tables that other families ask through the front door (index.ts).
import { and, eq, gte, inArray, isNull, lt, lte, ne, or, type SQL, sql } from 'drizzle-orm'
import { type LocationScope, scopeCondition } from '../../platform/auth/location-scope'
import type { Queryable } from '../../platform/tenancy/transaction'
import { type OrderLineRow, type OrderRow, orderLines, orders } from './schema'

/**
 * cash: the orders of a drawer's shift: those at the location live in the span (created before
 * its end, neither closed nor voided before its start), only the staff user's when one is given,
 * plus the orders named (whose cash went through the drawer); oldest first.
 */
export function ordersOfShift(
  db: Queryable,
  shift: { locationId: string; staffUserId: string | null; from: string; to: string; alsoIds: string[] },
): Pick<OrderRow, 'id' | 'status'>[] {
  const live = and(
    eq(orders.locationId, shift.locationId),
    lte(orders.createdAt, shift.to),
    or(isNull(orders.closedAt), gte(orders.closedAt, shift.from)),
    or(isNull(orders.voidedAt), gte(orders.voidedAt, shift.from)),
    shift.staffUserId ? eq(orders.assignedStaffUserId, shift.staffUserId) : undefined,
  )
  return db
    .select({ id: orders.id, status: orders.status })
    .from(orders)
    .where(shift.alsoIds.length > 0 ? or(live, inArray(orders.id, shift.alsoIds)) : live)
    .orderBy(orders.createdAt, orders.id)
    .all()
}

/**
 * notes: SQL for the ids of the orders at the locations a scope reaches (a parenthesised
 * subquery); undefined when the scope reaches every location.
 */
export function orderIdsWithin(scope: LocationScope): SQL | undefined {
  const within = scopeCondition(scope, orders.locationId)
  return within && sql`(SELECT ${orders.id} FROM ${orders} WHERE ${within})`
}

/**
 * era: the orders, not drafts, opened at these locations in [from, to) (ISO instants), each with
 * its lines in their order.
 */
export function ordersOpenedBetween(
  db: Queryable,
  span: { locationIds: string[]; from: string; to: string },
): { order: OrderRow; lines: OrderLineRow[] }[] {
  const where = and(
    inArray(orders.locationId, span.locationIds),
    gte(orders.createdAt, span.from),
    lt(orders.createdAt, span.to),
    ne(orders.status, 'draft'),
  )
  const rows = db.select().from(orders).where(where).all()
  const lines = db
    .select({ line: orderLines })
    .from(orderLines)
    .innerJoin(orders, eq(orders.id, orderLines.orderId))
    .where(where)
    .all()
  const byOrder = new Map<string, OrderLineRow[]>(rows.map((o) => [o.id, []]))
  for (const { line } of lines) byOrder.get(line.orderId)?.push(line)
  return rows.map((order) => ({
    order,
    lines: byOrder.get(order.id)!.sort((a, b) => a.position - b.position),
  }))
}

/** off-premise: SQL for the ids of the orders in one of these statuses (a parenthesised subquery). */
export const orderIdsInStatus = (statuses: readonly OrderRow['status'][]): SQL =>
  sql`(SELECT ${orders.id} FROM ${orders} WHERE ${inArray(orders.status, [...statuses])})`

/** shipping: the variant and quantity of each line of an order that is not voided and sells a variant. */
export const liveVariantLines = (db: Queryable, orderId: string): { variantId: string; quantity: number }[] =>
  db
    .select({ variantId: orderLines.productVariantId, quantity: orderLines.quantity })
    .from(orderLines)
    .where(and(eq(orderLines.orderId, orderId), isNull(orderLines.voidedAt)))
    .all()
    .filter((l): l is { variantId: string; quantity: number } => l.variantId !== null)
