import { calendarDateIn } from '../../platform/foundation/dates'
import type { Queryable } from '../../platform/tenancy/transaction'
import { breaksOf, completedShiftsIn, type LaborShiftBreakRow, type LaborShiftRow } from '../labor'
import type { LocationRow } from '../locations'
import { type OrderLineRow, type OrderRow, ordersOpenedBetween } from '../orders'
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
  const opened = ordersOpenedBetween(db, {
    locationIds: [...zones.keys()],
    from: `${addDays(scope.start, -1)}T00:00:00`,
    to: `${addDays(scope.end, 2)}T00:00:00`,
  })
  const result: DatedOrder[] = []
  for (const { order, lines } of opened) {
    const businessDate = calendarDateIn(new Date(order.createdAt), zones.get(order.locationId))
    if (businessDate < scope.start || businessDate > scope.end) continue
    result.push({ order, businessDate, lines })
  }
  return result.sort((a, b) => a.order.orderNumber - b.order.orderNumber)
}

export interface DatedShift {
  shift: LaborShiftRow
  breaks: LaborShiftBreakRow[]
  jobTitle: string
  excludeFromLaborSummary: boolean
}

/** Completed shifts (clocked out) whose business date (clock-in day) is in the range. */
export function shiftsIn(db: Queryable, scope: Scope): DatedShift[] {
  const rows = completedShiftsIn(db, {
    locationIds: scope.locations.map((l) => l.id),
    start: scope.start,
    end: scope.end,
  })
  const breaks = breaksOf(
    db,
    rows.map((r) => r.shift.id),
  )
  return rows
    .map((r) => ({
      shift: r.shift,
      breaks: breaks.get(r.shift.id) ?? [],
      jobTitle: r.shift.jobRole,
      excludeFromLaborSummary: r.excludeFromLaborSummary,
    }))
    .sort((a, b) => (a.shift.clockInAt < b.shift.clockInAt ? -1 : 1))
}
