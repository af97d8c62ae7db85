// Employees: every staff user of the tenant, with their employment profile (when one was set),
// the jobs they hold and their open shift.
//
// Staff users have no location, but employees work somewhere: a location-bound request sees those
// who work within its locations (a role there or tenant-wide, a job assignment there, or their
// primary location there), and of them only the jobs and the open shift at those locations. An
// employee of other locations only is 404, as the staff list leaves them out: their pay and
// payroll details are not the business of another location's managers.
import { and, asc, count, eq, exists, inArray, isNull, or, type SQL, sql } from 'drizzle-orm'
import { diffFields } from '../../platform/audit/diff'
import { recordWrite } from '../../platform/audit/record-write'
import { type LocationScope, scopeCondition } from '../../platform/auth/location-scope'
import type { Actor } from '../../platform/foundation/actor'
import { assertCalendarDate } from '../../platform/foundation/dates'
import { nowIso } from '../../platform/foundation/ids'
import { offsetOf, type PageRequest, searchColumns } from '../../platform/foundation/paging'
import { invalid, notFound } from '../../platform/foundation/problem'
import type { Db } from '../../platform/tenancy/databases'
import { inWriteTransaction, type Queryable } from '../../platform/tenancy/transaction'
import { findLocation } from '../locations'
import { assertMayManage, holdsRoleWithin, type StaffDirectoryRow, staffDirectory } from '../staff'
import { isActiveAt } from './assignments'
import type { PutProfileInput } from './model'
import {
  type LaborJobAssignmentRow,
  type LaborJobRow,
  type LaborProfileRow,
  laborJobAssignments,
  laborJobs,
  laborProfiles,
  laborShifts,
} from './schema'

type Loaded = { staff: StaffDirectoryRow; profile: LaborProfileRow | null }

function staffJob(
  tenantId: string,
  a: LaborJobAssignmentRow,
  job: LaborJobRow,
  profile: LaborProfileRow | null,
  now: string,
) {
  return {
    id: a.id,
    tenantId,
    staffUserId: a.staffUserId,
    laborJobId: job.id,
    locationId: a.locationId,
    jobCode: job.code,
    title: job.title,
    active: isActiveAt(a, now) && job.archivedAt === null,
    primaryJob: a.primaryJob,
    isTippedJob: job.tipped,
    payType: job.compensationType,
    basePayRateCents: a.basePayRateCents ?? job.defaultWageAmount ?? profile?.basePayRateCents ?? null,
    overtimeEligible: profile?.overtimeEligible ?? job.compensationType === 'hourly',
    metadata: job.jobMetadata,
    createdAt: a.createdAt,
    updatedAt: a.updatedAt,
  }
}

/** Staff users (`staff`, the staff directory) who work within the scope. */
function worksWithin(db: Queryable, staff: Directory, locations: LocationScope): SQL | undefined {
  if (locations.all) return undefined
  return or(
    scopeCondition(locations, laborProfiles.primaryLocationId),
    holdsRoleWithin(db, staff.id, locations),
    exists(
      db
        .select({ one: sql`1` })
        .from(laborJobAssignments)
        .where(
          and(
            eq(laborJobAssignments.staffUserId, staff.id),
            scopeCondition(locations, laborJobAssignments.locationId),
          ),
        ),
    ),
  )
}

type Directory = ReturnType<typeof staffDirectory>

/** The staff directory left-joined to the labor profiles, as employees are listed and read. */
const employeesFrom = (db: Queryable, staff: Directory) =>
  db.select().from(staff).leftJoin(laborProfiles, eq(laborProfiles.staffUserId, staff.id))

function present(db: Queryable, tenantId: string, loaded: Loaded[], locations: LocationScope) {
  const ids = loaded.map((l) => l.staff.id)
  if (ids.length === 0) return []
  const now = nowIso()
  const jobs = db
    .select()
    .from(laborJobAssignments)
    .innerJoin(laborJobs, eq(laborJobs.id, laborJobAssignments.laborJobId))
    .where(
      and(
        inArray(laborJobAssignments.staffUserId, ids),
        scopeCondition(locations, laborJobAssignments.locationId),
      ),
    )
    .orderBy(asc(laborJobAssignments.startsAt), asc(laborJobAssignments.id))
    .all()
  const shifts = db
    .select()
    .from(laborShifts)
    .where(
      and(
        inArray(laborShifts.staffUserId, ids),
        isNull(laborShifts.clockOutAt),
        scopeCondition(locations, laborShifts.locationId),
      ),
    )
    .all()
  return loaded.map(({ staff, profile }) => {
    const held = jobs
      .filter((j) => j.labor_job_assignments.staffUserId === staff.id)
      .map((j) => staffJob(tenantId, j.labor_job_assignments, j.labor_jobs, profile, now))
    const activeJobs = held.filter((j) => j.active)
    const shift = shifts.find((s) => s.staffUserId === staff.id)
    const preferredName = profile?.preferredName ?? null
    return {
      tenantId,
      staffUserId: staff.id,
      email: staff.email,
      firstName: staff.firstName,
      lastName: staff.lastName,
      preferredName,
      displayName: `${preferredName ?? staff.firstName} ${staff.lastName}`,
      staffStatus: staff.status,
      profile: profile ? { ...profile, tenantId } : null,
      jobs: held,
      activeJobs,
      primaryJob: activeJobs.find((j) => j.primaryJob) ?? null,
      activeShift: shift
        ? {
            id: shift.id,
            locationId: shift.locationId,
            jobRole: shift.jobRole,
            status: shift.status,
            clockInAt: shift.clockInAt,
          }
        : null,
    }
  })
}

export function listEmployees(
  db: Queryable,
  tenantId: string,
  query: {
    locationId?: string
    search?: string
    staffStatus?: string
    employmentStatus?: string
  } & PageRequest,
  locations: LocationScope,
) {
  const staff = staffDirectory(db)
  const conditions: (SQL | undefined)[] = [
    worksWithin(db, staff, locations),
    searchColumns(query.search, [
      staff.email,
      laborProfiles.preferredName,
      laborProfiles.employeeNumber,
      sql`${staff.firstName} || ' ' || ${staff.lastName}`,
    ]),
  ]
  if (query.staffStatus) conditions.push(eq(staff.status, query.staffStatus))
  if (query.employmentStatus)
    conditions.push(eq(laborProfiles.employmentStatus, query.employmentStatus as never))
  if (query.locationId) {
    // At a location: its primary location, or a job assignment there.
    conditions.push(
      or(
        eq(laborProfiles.primaryLocationId, query.locationId),
        exists(
          db
            .select({ one: sql`1` })
            .from(laborJobAssignments)
            .where(
              and(
                eq(laborJobAssignments.staffUserId, staff.id),
                eq(laborJobAssignments.locationId, query.locationId),
              ),
            ),
        ),
      ),
    )
  }
  const where = and(...conditions)
  const total =
    db
      .select({ n: count() })
      .from(staff)
      .leftJoin(laborProfiles, eq(laborProfiles.staffUserId, staff.id))
      .where(where)
      .get()?.n ?? 0
  const rows = employeesFrom(db, staff)
    .where(where)
    .orderBy(asc(sql`lower(${staff.lastName})`), asc(sql`lower(${staff.firstName})`), asc(staff.id))
    .limit(query.limit)
    .offset(offsetOf(query))
    .all()
  const loaded = rows.map((r) => ({ staff: r.staff_directory, profile: r.labor_profiles }))
  return { employees: present(db, tenantId, loaded, locations), page: { total } }
}

function load(db: Queryable, staffUserId: string, locations: LocationScope): Loaded {
  const staff = staffDirectory(db)
  const row = employeesFrom(db, staff)
    .where(and(eq(staff.id, staffUserId), worksWithin(db, staff, locations)))
    .get()
  if (!row) throw notFound('employee', staffUserId)
  return { staff: row.staff_directory, profile: row.labor_profiles }
}

export const getEmployee = (db: Queryable, tenantId: string, staffUserId: string, locations: LocationScope) =>
  present(db, tenantId, [load(db, staffUserId, locations)], locations)[0]!

export function putProfile(
  db: Db,
  actor: Actor,
  locations: LocationScope,
  staffUserId: string,
  input: PutProfileInput,
) {
  assertCalendarDate('hireDate', input.hireDate)
  return inWriteTransaction(db, (tx) => {
    const { profile: before } = load(tx, staffUserId, locations)
    assertMayManage(tx, actor, staffUserId)
    if (input.primaryLocationId && !findLocation(tx, input.primaryLocationId))
      throw invalid('body/primaryLocationId', `location ${input.primaryLocationId} not found`)
    const now = nowIso()
    let row: LaborProfileRow
    let changes: Record<string, unknown>
    if (!before) {
      row = tx
        .insert(laborProfiles)
        .values({
          staffUserId,
          employeeNumber: input.employeeNumber ?? null,
          externalPayrollId: input.externalPayrollId ?? null,
          preferredName: input.preferredName ?? null,
          hireDate: input.hireDate ?? null,
          employmentStatus: input.employmentStatus ?? 'active',
          payType: input.payType ?? 'hourly',
          basePayRateCents: input.basePayRateCents ?? null,
          overtimeEligible: input.overtimeEligible ?? true,
          isTippedEmployee: input.isTippedEmployee ?? false,
          declaresCashTips: input.declaresCashTips ?? false,
          participatesInTipPool: input.participatesInTipPool ?? false,
          primaryLocationId: input.primaryLocationId ?? null,
          metadata: input.metadata ?? {},
          createdAt: now,
          updatedAt: now,
        })
        .returning()
        .get()
      changes = { created: row }
    } else {
      changes = diffFields(before, input)
      if (Object.keys(changes).length === 0) return getEmployee(tx, actor.tenantId, staffUserId, locations)
      row = tx
        .update(laborProfiles)
        .set({ ...input, updatedAt: now })
        .where(eq(laborProfiles.staffUserId, staffUserId))
        .returning()
        .get()
    }
    recordWrite(tx, actor, {
      action: before ? 'labor.profile.update' : 'labor.profile.create',
      entityType: 'staff_user',
      entityId: staffUserId,
      metadata: { changes },
      events: [
        {
          object: 'labor_employee',
          action: before ? 'update' : 'create',
          aggregateId: staffUserId,
          payload: { ...row, tenantId: actor.tenantId },
        },
      ],
    })
    return getEmployee(tx, actor.tenantId, staffUserId, locations)
  })
}
