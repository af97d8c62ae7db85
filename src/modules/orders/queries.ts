// Named queries of orders' tables that other families ask through the front door (index.ts).
import { and, eq, gte, inArray, isNull, lte, or } from 'drizzle-orm'
import type { Queryable } from '../../platform/tenancy/transaction'
import { type OrderRow, orders } from './schema'

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
