// shift per staff user: checked inside the BEGIN IMMEDIATE write transaction (writers queue, so
// the check and the insert cannot interleave) and backed by a partial unique index.
import {
  and,
  asc,
  between,
  count,
  desc,
  eq,
  gte,
  inArray,
  isNotNull,
  isNull,
  lte,
  type SQL,
} from 'drizzle-orm'
import { recordWrite } from '../../platform/audit/record-write'
import {
  assertReaches,
  type LocationScope,
  locatedRow,
  scopeCondition,
} from '../../platform/auth/location-scope'
import type { Permission } from '../../platform/auth/permissions'
import type { Actor } from '../../platform/foundation/actor'
import { calendarDateIn } from '../../platform/foundation/dates'
import { newId, nowIso } from '../../platform/foundation/ids'
import { offsetOf, type PageRequest } from '../../platform/foundation/paging'
import { ApiError, conflict, invalid, notFound } from '../../platform/foundation/problem'
import { divideHalfUp } from '../../platform/foundation/rounding'
import type { Db } from '../../platform/tenancy/databases'
import { inWriteTransaction, type Queryable } from '../../platform/tenancy/transaction'
import { findLocation } from '../locations'
import { assertMayManage, findStaffUser } from '../staff'
import { inForce } from './access'
import { getJobRow } from './jobs'
import type { ClockInInput } from './model'
import {
  type LaborShiftBreakRow,
  type LaborShiftRow,
  laborJobAssignments,
  laborJobs,
  laborProfiles,
  laborShiftBreaks,
  laborShifts,
} from './schema'

const SECONDS_AN_HOUR = 3600n

type TimedShift = Pick<LaborShiftRow, 'clockInAt' | 'clockOutAt' | 'payRateCents'>

/**
 * The time and pay figures the API reports for a shift up to `until` (its clock-out, else now).
 * Milliseconds come from the stored timestamps; an open break runs to the end. Worked time is the
 * span less unpaid breaks, truncated to whole seconds once per shift, and pay is computed from
 * those whole seconds, so payCents can be recomputed from paidSeconds and payRateCents.
 */
export function shiftFigures(shift: TimedShift, breaks: LaborShiftBreakRow[], until = Date.now()) {
  const end = shift.clockOutAt ? Date.parse(shift.clockOutAt) : until
  const unpaidMs = breaks
    .filter((b) => !b.paid)
    .reduce((sum, b) => sum + (b.endedAt ? Date.parse(b.endedAt) : end) - Date.parse(b.startedAt), 0)
  const paidSeconds = Math.floor(Math.max(0, end - Date.parse(shift.clockInAt) - unpaidMs) / 1000)
  // payRateCents is cents an hour: paidSeconds × payRateCents / 3600, rounded half-up.
  const payCents = divideHalfUp(BigInt(paidSeconds) * BigInt(shift.payRateCents), SECONDS_AN_HOUR)
  return { breakSeconds: Math.floor(unpaidMs / 1000), paidSeconds, payCents: Number(payCents) }
}

export function presentShift(
  tenantId: string,
  shift: LaborShiftRow,
  breaks: LaborShiftBreakRow[],
  now = Date.now(),
) {
  return {
    ...shift,
    tenantId,
    breaks: breaks.map(({ id, paid, startedAt, endedAt }) => ({ id, paid, startedAt, endedAt })),
    ...shiftFigures(shift, breaks, now),
  }
}

export function breaksOf(db: Queryable, shiftIds: string[]): Map<string, LaborShiftBreakRow[]> {
  const result = new Map<string, LaborShiftBreakRow[]>(shiftIds.map((id) => [id, []]))
  if (shiftIds.length === 0) return result
  const rows = db
    .select()
    .from(laborShiftBreaks)
    .where(inArray(laborShiftBreaks.shiftId, shiftIds))
    .orderBy(asc(laborShiftBreaks.startedAt))
    .all()
  for (const row of rows) result.get(row.shiftId)?.push(row)
  return result
}

function getShiftRow(db: Queryable, id: string): LaborShiftRow {
  const row = db.select().from(laborShifts).where(eq(laborShifts.id, id)).get()
  if (!row) throw notFound('shift', id)
  return row
}

/** Where a shift was worked (routes declare it with `locatedBy`). */
export const shiftLocated = locatedRow('shift', laborShifts, laborShifts.id, laborShifts.locationId)

const load = (db: Queryable, tenantId: string, row: LaborShiftRow) =>
  presentShift(tenantId, row, breaksOf(db, [row.id]).get(row.id) ?? [])

export const getShift = (db: Queryable, tenantId: string, id: string) =>
  load(db, tenantId, getShiftRow(db, id))

export function listShifts(
  db: Queryable,
  tenantId: string,
  query: {
    staffUserId?: string
    locationId?: string
    status?: string
    from?: string
    to?: string
  } & PageRequest,
  locations: LocationScope,
) {
  const conditions: (SQL | undefined)[] = [scopeCondition(locations, laborShifts.locationId)]
  if (query.staffUserId) conditions.push(eq(laborShifts.staffUserId, query.staffUserId))
  if (query.locationId) conditions.push(eq(laborShifts.locationId, query.locationId))
  if (query.status) conditions.push(eq(laborShifts.status, query.status as LaborShiftRow['status']))
  if (query.from) conditions.push(gte(laborShifts.businessDate, query.from))
  if (query.to) conditions.push(lte(laborShifts.businessDate, query.to))
  const where = and(...conditions)
  const total = db.select({ n: count() }).from(laborShifts).where(where).get()?.n ?? 0
  const rows = db
    .select()
    .from(laborShifts)
    .where(where)
    .orderBy(desc(laborShifts.clockInAt), desc(laborShifts.id))
    .limit(query.limit)
    .offset(offsetOf(query))
    .all()
  const breaks = breaksOf(
    db,
    rows.map((r) => r.id),
  )
  const now = Date.now()
  return { shifts: rows.map((r) => presentShift(tenantId, r, breaks.get(r.id) ?? [], now)), page: { total } }
}

export interface ClockContext {
  actor: Actor
  permissions: ReadonlySet<Permission>
  locations: LocationScope
}

/** Clocking oneself needs labor:clock (the route's primitive); anyone else's shift needs labor:write. */
function assertMayClock(tx: Queryable, ctx: ClockContext, staffUserId: string) {
  if (staffUserId === ctx.actor.staffUserId) return
  if (!ctx.permissions.has('labor:write'))
    throw new ApiError(
      'forbidden',
      'Clocking another staff user in or out requires the labor:write permission',
      {
        extensions: { requiredPermission: 'labor:write' },
      },
    )
  assertMayManage(tx, ctx.actor, staffUserId)
}

function openShiftOf(tx: Queryable, staffUserId: string) {
  return tx
    .select()
    .from(laborShifts)
    .where(and(eq(laborShifts.staffUserId, staffUserId), isNull(laborShifts.clockOutAt)))
    .get()
}

export function clockIn(db: Db, ctx: ClockContext, input: ClockInInput) {
  const { actor } = ctx
  const staffUserId = input.staffUserId ?? actor.staffUserId
  if (!staffUserId) throw invalid('body/staffUserId', 'required when the caller is not a staff user')
  return inWriteTransaction(db, (tx) => {
    const staff = findStaffUser(tx, staffUserId)
    if (!staff) throw invalid('body/staffUserId', `staff user ${staffUserId} not found`)
    assertMayClock(tx, ctx, staffUserId)
    if (staff.status !== 'active')
      throw conflict('only active staff users clock in', { staffStatus: staff.status })
    const profile = tx.select().from(laborProfiles).where(eq(laborProfiles.staffUserId, staffUserId)).get()
    if (profile && profile.employmentStatus !== 'active')
      throw conflict(`an employee who is ${profile.employmentStatus} does not clock in`, {
        employmentStatus: profile.employmentStatus,
      })
    const job = getJobRow(tx, input.laborJobId)
    const locationId = input.locationId ?? actor.locationId ?? job.locationId
    if (!locationId) throw invalid('body/locationId', 'required (or send x-location-id)')
    assertReaches(ctx.locations, locationId)
    const location = findLocation(tx, locationId)
    if (!location) throw invalid('body/locationId', `location ${locationId} not found`)
    const now = new Date()
    const at = now.toISOString()
    const assignment = tx
      .select({ assignment: laborJobAssignments })
      .from(laborJobAssignments)
      .innerJoin(laborJobs, eq(laborJobs.id, laborJobAssignments.laborJobId))
      .where(
        and(
          eq(laborJobAssignments.staffUserId, staffUserId),
          eq(laborJobAssignments.laborJobId, job.id),
          eq(laborJobAssignments.locationId, locationId),
          inForce(at),
        ),
      )
      .get()?.assignment
    if (!assignment)
      throw conflict(`the staff user does not hold the job "${job.title}" at location ${locationId}`, {
        laborJobId: job.id,
        locationId,
      })
    const open = openShiftOf(tx, staffUserId)
    if (open)
      throw conflict('the staff user is already clocked in; clock out first', {
        activeShift: {
          id: open.id,
          locationId: open.locationId,
          status: open.status,
          clockInAt: open.clockInAt,
        },
      })
    // Hourly jobs are paid by the hour: the assignment's rate, else the job's, else the profile's.
    const payRateCents =
      job.compensationType === 'hourly'
        ? (assignment.basePayRateCents ?? job.defaultWageAmount ?? profile?.basePayRateCents ?? 0)
        : 0
    const row = insertShift(tx, {
      id: newId(),
      staffUserId,
      locationId,
      laborJobId: job.id,
      jobRole: job.title,
      payRateCents,
      status: 'active',
      businessDate: calendarDateIn(now, location.timezone),
      clockInAt: at,
      clockOutAt: null,
      createdAt: at,
      updatedAt: at,
    })
    const shift = presentShift(actor.tenantId, row, [], now.getTime())
    record(tx, actor, 'clock_in', shift)
    return shift
  })
}

/** The partial unique index is the last word on one open shift per staff user. */
function insertShift(tx: Queryable, values: typeof laborShifts.$inferInsert): LaborShiftRow {
  try {
    return tx.insert(laborShifts).values(values).returning().get()
  } catch (error) {
    if (String(error).includes('UNIQUE constraint failed: labor_shifts.staff_user_id'))
      throw conflict('the staff user is already clocked in; clock out first')
    throw error
  }
}

function record(tx: Queryable, actor: Actor, action: string, shift: ReturnType<typeof presentShift>) {
  recordWrite(tx, actor, {
    action: `labor.shift.${action}`,
    entityType: 'labor_shift',
    entityId: shift.id,
    metadata: { staffUserId: shift.staffUserId, status: shift.status, locationId: shift.locationId },
    event: shift,
  })
}

function change(
  db: Db,
  ctx: ClockContext,
  id: string,
  action: string,
  work: (tx: Queryable, shift: LaborShiftRow, at: string) => void,
) {
  return inWriteTransaction(db, (tx) => {
    const before = getShiftRow(tx, id)
    assertMayClock(tx, ctx, before.staffUserId)
    const at = nowIso()
    work(tx, before, at)
    const shift = load(tx, ctx.actor.tenantId, getShiftRow(tx, id))
    record(tx, ctx.actor, action, shift)
    return shift
  })
}

const refuse = (shift: LaborShiftRow, doing: string) =>
  conflict(`a shift that is ${shift.status} cannot ${doing}`, { currentStatus: shift.status })

export const startBreak = (db: Db, ctx: ClockContext, id: string, input: { paid?: boolean }) =>
  change(db, ctx, id, 'break_start', (tx, shift, at) => {
    if (shift.status !== 'active') throw refuse(shift, 'start a break')
    tx.insert(laborShiftBreaks)
      .values({
        id: newId(),
        shiftId: id,
        paid: input.paid ?? false,
        startedAt: at,
        endedAt: null,
        createdAt: at,
      })
      .run()
    tx.update(laborShifts).set({ status: 'on_break', updatedAt: at }).where(eq(laborShifts.id, id)).run()
  })

function endOpenBreak(tx: Queryable, shiftId: string, at: string) {
  tx.update(laborShiftBreaks)
    .set({ endedAt: at })
    .where(and(eq(laborShiftBreaks.shiftId, shiftId), isNull(laborShiftBreaks.endedAt)))
    .run()
}

export const endBreak = (db: Db, ctx: ClockContext, id: string) =>
  change(db, ctx, id, 'break_end', (tx, shift, at) => {
    if (shift.status !== 'on_break') throw refuse(shift, 'end a break')
    endOpenBreak(tx, id, at)
    tx.update(laborShifts).set({ status: 'active', updatedAt: at }).where(eq(laborShifts.id, id)).run()
  })

export const clockOut = (db: Db, ctx: ClockContext, id: string) =>
  change(db, ctx, id, 'clock_out', (tx, shift, at) => {
    if (shift.status === 'completed') throw refuse(shift, 'clock out')
    endOpenBreak(tx, id, at)
    tx.update(laborShifts)
      .set({ status: 'completed', clockOutAt: at, updatedAt: at })
      .where(eq(laborShifts.id, id))
      .run()
  })

/**
 * era: the completed (clocked out) shifts at these locations whose business date (clock-in day)
 * is in [start, end], each with its job's `excludeFromLaborSummary`.
 */
export function completedShiftsIn(
  db: Queryable,
  span: { locationIds: string[]; start: string; end: string },
): { shift: LaborShiftRow; excludeFromLaborSummary: boolean }[] {
  return db
    .select({ shift: laborShifts, excludeFromLaborSummary: laborJobs.excludeFromLaborSummary })
    .from(laborShifts)
    .innerJoin(laborJobs, eq(laborJobs.id, laborShifts.laborJobId))
    .where(
      and(
        inArray(laborShifts.locationId, span.locationIds),
        between(laborShifts.businessDate, span.start, span.end),
        isNotNull(laborShifts.clockOutAt),
      ),
    )
    .all()
}
