// What ERA reports read: orders, order lines and completed shifts of the requested locations,
// each with its business date (the calendar day in the location's time zone).
import { and, between, eq, gte, inArray, isNotNull, lt, ne } from 'drizzle-orm'
import { calendarDateIn } from '../../platform/dates'
import type { Queryable } from '../../platform/tenancy/transaction'
import { breaksOf } from '../labor'
import { laborJobs, type laborShiftBreaks, laborShifts } from '../labor/schema'
import type { LocationRow } from '../locations'
import { type OrderLineRow, type OrderRow, orderLines, orders } from '../orders/schema'
import { addDays } from './periods'

export interface Scope {
  locations: LocationRow[]
  start: string
  end: string
}

export interface DatedOrder {
  order: OrderRow
  businessDate: string
  lines: OrderLineRow[]
}

/**
 * Orders opened (createdAt) on a business date of the range. Drafts are not sales yet and are left
 * out; voided orders come with their lines for the void figures.
 */
export function ordersIn(db: Queryable, scope: Scope): DatedOrder[] {
  const zones = new Map(scope.locations.map((l) => [l.id, l.timezone]))
  // Time zones are within ±14 h of UTC: a day either side of the range bounds the instants.
  const where = and(
    inArray(orders.locationId, [...zones.keys()]),
    gte(orders.createdAt, `${addDays(scope.start, -1)}T00:00:00`),
    lt(orders.createdAt, `${addDays(scope.end, 2)}T00:00:00`),
    ne(orders.status, 'draft'),
  )
  const rows = db.select().from(orders).where(where).all()
  const lines = db
    .select({ line: orderLines })
    .from(orderLines)
    .innerJoin(orders, eq(orders.id, orderLines.orderId))
    .where(where)
    .all()
  const byOrder = new Map<string, OrderLineRow[]>()
  for (const { line } of lines) {
    const list = byOrder.get(line.orderId) ?? []
    list.push(line)
    byOrder.set(line.orderId, list)
  }
  const result: DatedOrder[] = []
  for (const order of rows) {
    const businessDate = calendarDateIn(new Date(order.createdAt), zones.get(order.locationId))
    if (businessDate < scope.start || businessDate > scope.end) continue
    const orderLinesSorted = (byOrder.get(order.id) ?? []).sort((a, b) => a.position - b.position)
    result.push({ order, businessDate, lines: orderLinesSorted })
  }
  return result.sort((a, b) => a.order.orderNumber - b.order.orderNumber)
}

export interface DatedShift {
  shift: typeof laborShifts.$inferSelect
  breaks: (typeof laborShiftBreaks.$inferSelect)[]
  jobTitle: string
  excludeFromLaborSummary: boolean
}

/** Completed shifts (clocked out) whose business date (clock-in day) is in the range. */
export function shiftsIn(db: Queryable, scope: Scope): DatedShift[] {
  const rows = db
    .select({ shift: laborShifts, job: laborJobs })
    .from(laborShifts)
    .innerJoin(laborJobs, eq(laborJobs.id, laborShifts.laborJobId))
    .where(
      and(
        inArray(
          laborShifts.locationId,
          scope.locations.map((l) => l.id),
        ),
        between(laborShifts.businessDate, scope.start, scope.end),
        isNotNull(laborShifts.clockOutAt),
      ),
    )
    .all()
  const breaks = breaksOf(
    db,
    rows.map((r) => r.shift.id),
  )
  return rows
    .map((r) => ({
      shift: r.shift,
      breaks: breaks.get(r.shift.id) ?? [],
      jobTitle: r.shift.jobRole,
      excludeFromLaborSummary: r.job.excludeFromLaborSummary,
    }))
    .sort((a, b) => (a.shift.clockInAt < b.shift.clockInAt ? -1 : 1))
}
