// Job assignments: a staff user holds a job at a location for a while. Holding it is what makes
// the job's access primitives apply and what lets the staff user clock in with it.
import { and, asc, count, eq, gt, isNull, lte, or, type SQL } from 'drizzle-orm'
import { diffFields } from '../../platform/audit/diff'
import { recordWrite } from '../../platform/audit/record-write'
import {
  assertVisible,
  type LocationScope,
  locatedRow,
  scopeCondition,
} from '../../platform/auth/location-scope'
import type { Actor } from '../../platform/foundation/actor'
import { newId, nowIso } from '../../platform/foundation/ids'
import { offsetOf, type PageRequest } from '../../platform/foundation/paging'
import { invalid, notFound } from '../../platform/foundation/problem'
import type { Db } from '../../platform/tenancy/databases'
import { rowById } from '../../platform/tenancy/row-by-id'
import { inWriteTransaction, type Queryable } from '../../platform/tenancy/transaction'
import { findLocation } from '../locations'
import { assertMayManage, findStaffUser } from '../staff'
import { assertMayHandOut } from './access'
import { getJobRow } from './jobs'
import type { CreateAssignmentInput, UpdateAssignmentInput } from './model'
import { type LaborJobAssignmentRow, laborJobAssignments } from './schema'

export const isActiveAt = (row: Pick<LaborJobAssignmentRow, 'startsAt' | 'endsAt'>, at: string) =>
  row.startsAt <= at && (row.endsAt === null || row.endsAt > at)

/** The canonical ISO form (UTC, milliseconds), so stored instants compare as strings. */
function instant(path: string, value: string): string {
  const time = Date.parse(value)
  if (Number.isNaN(time)) throw invalid(path, `${value} is not a date-time`)
  return new Date(time).toISOString()
}

export function presentAssignment(tenantId: string, row: LaborJobAssignmentRow, now = nowIso()) {
  return { ...row, tenantId, active: isActiveAt(row, now) }
}

/** Where a staff user holds the job (routes declare it with `locatedBy`). */
export const assignmentLocated = locatedRow(
  'job assignment',
  laborJobAssignments,
  laborJobAssignments.id,
  laborJobAssignments.locationId,
)

function getAssignmentRow(db: Queryable, id: string): LaborJobAssignmentRow {
  const row = rowById(db, laborJobAssignments, id)
  if (!row) throw notFound('job assignment', id)
  return row
}

export const getAssignment = (db: Queryable, tenantId: string, id: string) =>
  presentAssignment(tenantId, getAssignmentRow(db, id))

export function listAssignments(
  db: Queryable,
  tenantId: string,
  query: { staffUserId?: string; laborJobId?: string; locationId?: string; activeAt?: string } & PageRequest,
  locations: LocationScope,
) {
  const conditions: (SQL | undefined)[] = [scopeCondition(locations, laborJobAssignments.locationId)]
  if (query.staffUserId) conditions.push(eq(laborJobAssignments.staffUserId, query.staffUserId))
  if (query.laborJobId) conditions.push(eq(laborJobAssignments.laborJobId, query.laborJobId))
  if (query.locationId) conditions.push(eq(laborJobAssignments.locationId, query.locationId))
  if (query.activeAt) {
    const at = instant('activeAt', query.activeAt)
    conditions.push(
      lte(laborJobAssignments.startsAt, at),
      or(isNull(laborJobAssignments.endsAt), gt(laborJobAssignments.endsAt, at)),
    )
  }
  const where = and(...conditions)
  const total = db.select({ n: count() }).from(laborJobAssignments).where(where).get()?.n ?? 0
  const rows = db
    .select()
    .from(laborJobAssignments)
    .where(where)
    .orderBy(asc(laborJobAssignments.startsAt), asc(laborJobAssignments.id))
    .limit(query.limit)
    .offset(offsetOf(query))
    .all()
  const now = nowIso()
  return { assignments: rows.map((r) => presentAssignment(tenantId, r, now)), page: { total } }
}

function assertWindow(startsAt: string, endsAt: string | null) {
  if (endsAt !== null && endsAt <= startsAt) throw invalid('body/endsAt', 'must be after startsAt')
}

export function createAssignment(
  db: Db,
  actor: Actor,
  locations: LocationScope,
  input: CreateAssignmentInput,
) {
  return inWriteTransaction(db, (tx) => {
    const staff = findStaffUser(tx, input.staffUserId)
    if (!staff) throw invalid('body/staffUserId', `staff user ${input.staffUserId} not found`)
    const job = getJobRow(tx, input.laborJobId)
    // A job elsewhere is 404; then the location (the body's, checked by the platform, the job's,
    // or the request's own) is one the request reaches.
    assertVisible(locations, job.locationId, 'labor job', job.id)
    if (job.archivedAt) throw invalid('body/laborJobId', 'the job is archived')
    const locationId = input.locationId ?? job.locationId ?? actor.locationId
    if (!locationId)
      throw invalid('body/locationId', 'required for a job of every location (or send x-location-id)')
    if (!findLocation(tx, locationId)) throw invalid('body/locationId', `location ${locationId} not found`)
    if (job.locationId !== null && job.locationId !== locationId)
      throw invalid('body/locationId', `the job belongs to location ${job.locationId}`)
    assertMayManage(tx, actor, staff.id)
    assertMayHandOut(tx, actor, job.grants, locationId)
    const now = nowIso()
    const startsAt = input.startsAt ? instant('startsAt', input.startsAt) : now
    const endsAt = input.endsAt ? instant('endsAt', input.endsAt) : null
    assertWindow(startsAt, endsAt)
    if (input.primaryJob) clearPrimary(tx, staff.id)
    const row = tx
      .insert(laborJobAssignments)
      .values({
        id: newId(),
        laborJobId: job.id,
        staffUserId: staff.id,
        locationId,
        primaryJob: input.primaryJob ?? false,
        basePayRateCents: input.basePayRateCents ?? null,
        startsAt,
        endsAt,
        createdAt: now,
        updatedAt: now,
      })
      .returning()
      .get()
    const assignment = presentAssignment(actor.tenantId, row, now)
    recordWrite(tx, actor, {
      action: 'labor.job_assignment.create',
      entityType: 'labor_job_assignment',
      entityId: row.id,
      metadata: { assignment },
      event: assignment,
    })
    return assignment
  })
}

/** One primary job per staff user: a new primary demotes the others. */
function clearPrimary(tx: Queryable, staffUserId: string) {
  tx.update(laborJobAssignments)
    .set({ primaryJob: false, updatedAt: nowIso() })
    .where(and(eq(laborJobAssignments.staffUserId, staffUserId), eq(laborJobAssignments.primaryJob, true)))
    .run()
}

export function updateAssignment(db: Db, actor: Actor, id: string, input: UpdateAssignmentInput) {
  return inWriteTransaction(db, (tx) => {
    const before = getAssignmentRow(tx, id)
    assertMayManage(tx, actor, before.staffUserId)
    const patch: Partial<LaborJobAssignmentRow> = {}
    if (input.primaryJob !== undefined) patch.primaryJob = input.primaryJob
    if (input.basePayRateCents !== undefined) patch.basePayRateCents = input.basePayRateCents
    if (input.startsAt !== undefined) patch.startsAt = instant('startsAt', input.startsAt)
    if (input.endsAt !== undefined)
      patch.endsAt = input.endsAt === null ? null : instant('endsAt', input.endsAt)
    assertWindow(patch.startsAt ?? before.startsAt, patch.endsAt !== undefined ? patch.endsAt : before.endsAt)
    const changes = diffFields(before, patch)
    if (Object.keys(changes).length === 0) return presentAssignment(actor.tenantId, before)
    // Reopening or moving the window hands the job's grants out again.
    if (changes.endsAt || changes.startsAt)
      assertMayHandOut(tx, actor, getJobRow(tx, before.laborJobId).grants, before.locationId)
    if (patch.primaryJob) clearPrimary(tx, before.staffUserId)
    const row = tx
      .update(laborJobAssignments)
      .set({ ...patch, updatedAt: nowIso() })
      .where(eq(laborJobAssignments.id, id))
      .returning()
      .get()
    const assignment = presentAssignment(actor.tenantId, row)
    recordWrite(tx, actor, {
      action: 'labor.job_assignment.update',
      entityType: 'labor_job_assignment',
      entityId: id,
      metadata: { changes },
      event: assignment,
    })
    return assignment
  })
}
