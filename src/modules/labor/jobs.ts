// Labor jobs: CRUD (archive instead of delete), with access primitives that change what holders may do.
import { and, asc, count, eq, isNull, or, type SQL, sql } from 'drizzle-orm'
import { diffFields } from '../../platform/audit/diff'
import { recordWrite } from '../../platform/audit/record-write'
import { type LocationScope, locatedRow, scopeCondition } from '../../platform/auth/location-scope'
import type { Actor } from '../../platform/foundation/actor'
import { newId, nowIso } from '../../platform/foundation/ids'
import { offsetOf, type PageRequest } from '../../platform/foundation/paging'
import { ApiError, conflict, invalid, notFound } from '../../platform/foundation/problem'
import type { Db } from '../../platform/tenancy/databases'
import { rowById } from '../../platform/tenancy/row-by-id'
import { inWriteTransaction, type Queryable } from '../../platform/tenancy/transaction'
import { findLocation } from '../locations'
import { assertMayHandOut, validPrimitives } from './access'
import type { CreateJobInput, UpdateJobInput } from './model'
import { type LaborJobRow, laborJobAssignments, laborJobs } from './schema'

export function presentJob(tenantId: string, row: LaborJobRow) {
  const { grants, denies, ...rest } = row
  return { ...rest, tenantId, accessPrimitives: { grants, denies } }
}

/** Where a job is: null, every location (so every request sees it). */
export const jobLocated = locatedRow('labor job', laborJobs, laborJobs.id, laborJobs.locationId)

export function getJobRow(db: Queryable, id: string): LaborJobRow {
  const row = rowById(db, laborJobs, id)
  if (!row) throw notFound('labor job', id)
  return row
}

export const getJob = (db: Queryable, tenantId: string, id: string) => presentJob(tenantId, getJobRow(db, id))

export function listJobs(
  db: Queryable,
  tenantId: string,
  query: { locationId?: string; includeArchived?: boolean } & PageRequest,
  locations: LocationScope,
) {
  const conditions: (SQL | undefined)[] = [
    scopeCondition(locations, laborJobs.locationId, { unlocatedToo: true }),
  ]
  if (!query.includeArchived) conditions.push(isNull(laborJobs.archivedAt))
  // A location's jobs are its own plus the jobs of every location.
  if (query.locationId)
    conditions.push(or(eq(laborJobs.locationId, query.locationId), isNull(laborJobs.locationId)))
  const where = and(...conditions)
  const total = db.select({ n: count() }).from(laborJobs).where(where).get()?.n ?? 0
  const rows = db
    .select()
    .from(laborJobs)
    .where(where)
    .orderBy(asc(sql`lower(${laborJobs.title})`), asc(laborJobs.id))
    .limit(query.limit)
    .offset(offsetOf(query))
    .all()
  return { jobs: rows.map((r) => presentJob(tenantId, r)), page: { total } }
}

function assertCodeFree(db: Queryable, code: string | null | undefined, exceptId?: string) {
  if (!code) return
  const holder = db
    .select({ id: laborJobs.id })
    .from(laborJobs)
    .where(eq(sql`lower(${laborJobs.code})`, code.toLowerCase()))
    .get()
  if (holder && holder.id !== exceptId) throw conflict(`job code "${code}" is already in use`)
}

/**
 * A job of every location is a job at each of them: its title, default wage and grants apply at
 * locations a location-bound request does not reach, so only a request reaching every location
 * makes one or changes one (403).
 */
function assertMayShapeEveryLocation(locations: LocationScope, locationId: string | null) {
  if (locationId === null && !locations.all)
    throw new ApiError(
      'forbidden',
      'A job of every location is created and changed only by a request that reaches every location; give the job a locationId',
    )
}

function assertLocation(db: Queryable, locationId: string | null | undefined) {
  if (locationId && !findLocation(db, locationId))
    throw invalid('body/locationId', `location ${locationId} not found`)
}

export function createJob(db: Db, actor: Actor, locations: LocationScope, input: CreateJobInput) {
  const access = validPrimitives(input.accessPrimitives ?? {})
  assertMayShapeEveryLocation(locations, input.locationId ?? null)
  return inWriteTransaction(db, (tx) => {
    assertLocation(tx, input.locationId)
    assertCodeFree(tx, input.code)
    assertMayHandOut(tx, actor, access.grants, input.locationId ?? null)
    const now = nowIso()
    const row = tx
      .insert(laborJobs)
      .values({
        id: newId(),
        locationId: input.locationId ?? null,
        externalId: input.externalId ?? null,
        code: input.code ?? null,
        title: input.title,
        tipped: input.tipped ?? false,
        compensationType: input.compensationType ?? 'hourly',
        defaultWageAmount: input.defaultWageAmount ?? null,
        payCurrency: input.payCurrency ?? 'USD',
        excludeFromLaborSummary: input.excludeFromLaborSummary ?? false,
        grants: access.grants,
        denies: access.denies,
        payMetadata: input.payMetadata ?? {},
        jobMetadata: input.jobMetadata ?? {},
        archivedAt: null,
        createdAt: now,
        updatedAt: now,
      })
      .returning()
      .get()
    const job = presentJob(actor.tenantId, row)
    recordWrite(tx, actor, {
      action: 'labor.job.create',
      entityType: 'labor_job',
      entityId: row.id,
      metadata: { job },
      event: job,
    })
    return job
  })
}

export function updateJob(db: Db, actor: Actor, locations: LocationScope, id: string, input: UpdateJobInput) {
  const access = input.accessPrimitives ? validPrimitives(input.accessPrimitives) : undefined
  if (input.locationId === null) assertMayShapeEveryLocation(locations, null)
  return inWriteTransaction(db, (tx) => {
    const before = getJobRow(tx, id)
    assertMayShapeEveryLocation(locations, before.locationId)
    const { accessPrimitives: _a, archivedAt, ...fields } = input
    const patch: Partial<LaborJobRow> = { ...fields }
    if (access) {
      if (input.accessPrimitives?.grants !== undefined) patch.grants = access.grants
      if (input.accessPrimitives?.denies !== undefined) patch.denies = access.denies
    }
    if (archivedAt !== undefined)
      patch.archivedAt = archivedAt === null ? null : (before.archivedAt ?? nowIso())
    if (patch.locationId !== undefined) {
      assertLocation(tx, patch.locationId)
      if (patch.locationId !== null) {
        const elsewhere = tx
          .select({ id: laborJobAssignments.id })
          .from(laborJobAssignments)
          .where(
            and(
              eq(laborJobAssignments.laborJobId, id),
              sql`${laborJobAssignments.locationId} <> ${patch.locationId}`,
            ),
          )
          .get()
        if (elsewhere)
          throw conflict('the job is assigned at other locations; end those assignments first', {
            assignmentId: elsewhere.id,
          })
      }
    }
    if (patch.code !== undefined) assertCodeFree(tx, patch.code, id)
    const changes = diffFields(before, patch)
    if (Object.keys(changes).length === 0) return presentJob(actor.tenantId, before)
    // Handing out new grants (or the same grants somewhere wider) needs the actor to hold them.
    const locationId = patch.locationId !== undefined ? patch.locationId : before.locationId
    if (changes.grants || changes.locationId)
      assertMayHandOut(tx, actor, patch.grants ?? before.grants, locationId)
    const row = tx
      .update(laborJobs)
      .set({ ...patch, updatedAt: nowIso() })
      .where(eq(laborJobs.id, id))
      .returning()
      .get()
    const job = presentJob(actor.tenantId, row)
    recordWrite(tx, actor, {
      action: 'labor.job.update',
      entityType: 'labor_job',
      entityId: id,
      metadata: { changes },
      event: job,
    })
    return job
  })
}
