// What the jobs a staff user holds add to or take from their permissions, for the principal
// (src/modules/access.ts). A job's `accessPrimitives.grants` count at the location of an
// assignment in force; its `denies` count there too, and, when a request names no location,
// denies of every assignment in force apply (see permissionsAt). Denies win over grants and roles.
import { and, eq, gt, isNull, lte, or } from 'drizzle-orm'
import {
  isPermission,
  type LocatedAccess,
  type Permission,
  permissionsAt,
} from '../../platform/auth/permissions'
import type { Actor } from '../../platform/foundation/actor'
import { ApiError, type FieldError } from '../../platform/foundation/problem'
import type { Queryable } from '../../platform/tenancy/transaction'
import { roleGrantsOf } from '../staff'
import { laborJobAssignments, laborJobs } from './schema'

/** Assignments in force at `at`, with their (not archived) jobs. */
export const inForce = (at: string) =>
  and(
    lte(laborJobAssignments.startsAt, at),
    or(isNull(laborJobAssignments.endsAt), gt(laborJobAssignments.endsAt, at)),
    isNull(laborJobs.archivedAt),
  )

/**
 * The access a staff user's jobs adjust as of `now`, and when that next changes on its own (an
 * assignment that starts or ends later).
 */
export function jobAdjustments(
  db: Queryable,
  staffUserId: string,
  now: number,
): { adjustments: LocatedAccess[]; changesAt: number | null } {
  const at = new Date(now).toISOString()
  const rows = db
    .select({
      locationId: laborJobAssignments.locationId,
      startsAt: laborJobAssignments.startsAt,
      endsAt: laborJobAssignments.endsAt,
      grants: laborJobs.grants,
      denies: laborJobs.denies,
    })
    .from(laborJobAssignments)
    .innerJoin(laborJobs, eq(laborJobs.id, laborJobAssignments.laborJobId))
    .where(
      and(
        eq(laborJobAssignments.staffUserId, staffUserId),
        or(isNull(laborJobAssignments.endsAt), gt(laborJobAssignments.endsAt, at)),
        isNull(laborJobs.archivedAt),
      ),
    )
    .all()
  const adjustments: LocatedAccess[] = []
  let changesAt: number | null = null
  const later = (time: string) => {
    const ms = Date.parse(time)
    if (changesAt === null || ms < changesAt) changesAt = ms
  }
  for (const row of rows) {
    if (row.startsAt > at) {
      later(row.startsAt)
      continue
    }
    if (row.endsAt !== null) later(row.endsAt)
    adjustments.push({
      locationId: row.locationId,
      grants: row.grants.filter(isPermission),
      denies: row.denies.filter(isPermission),
    })
  }
  return { adjustments, changesAt }
}

/**
 * What a staff user holds at each location now, as their own requests would: their roles, then the
 * grants and denies of their jobs in force there. Reads the roles and jobs once, for asking about
 * several locations. For checks about a staff user other than the caller's principal: an approver,
 * a drawer's assignee, a passcode sign-in, the tables dashboard.
 */
export function staffPermissions(
  db: Queryable,
  staffUserId: string,
  now = Date.now(),
): (locationId: string | null) => ReadonlySet<Permission> {
  const roles = roleGrantsOf(db, staffUserId)
  const { adjustments } = jobAdjustments(db, staffUserId, now)
  return (locationId) => permissionsAt(roles, locationId, adjustments)
}

/** What a staff user holds at one location now (see staffPermissions). */
export const staffPermissionsAt = (db: Queryable, staffUserId: string, locationId: string | null) =>
  staffPermissions(db, staffUserId)(locationId)

/** 400 for any primitive that is not in the catalogue; answers the lists de-duplicated. */
export function validPrimitives(input: { grants?: string[]; denies?: string[] }): {
  grants: Permission[]
  denies: Permission[]
} {
  const errors: FieldError[] = []
  const check = (list: string[] | undefined, key: 'grants' | 'denies') => {
    const result: Permission[] = []
    for (const [i, p] of (list ?? []).entries()) {
      if (!isPermission(p))
        errors.push({ path: `accessPrimitives/${key}/${i}`, message: `unknown primitive "${p}"` })
      else if (!result.includes(p)) result.push(p)
    }
    return result
  }
  const grants = check(input.grants, 'grants')
  const denies = check(input.denies, 'denies')
  if (errors.length > 0)
    throw new ApiError('validation_failed', 'accessPrimitives name unknown primitives', { errors })
  return { grants, denies }
}

/**
 * Nobody hands out, through a job, a primitive they do not hold themselves where the job applies
 * (tenant-wide for a job of every location): a manager cannot make a job that grants
 * webhooks:manage and take it. What counts is their roles less their jobs' denies: a primitive a
 * job lent them is theirs to use, not to pass on. The command line (system actor) may do anything.
 */
export function assertMayHandOut(
  db: Queryable,
  actor: Actor,
  grants: readonly string[],
  locationId: string | null,
) {
  if (actor.kind === 'system' || grants.length === 0) return
  if (!actor.staffUserId) throw new ApiError('forbidden', 'Only staff users may hand out job primitives')
  const denies = jobAdjustments(db, actor.staffUserId, Date.now()).adjustments.map((a) => ({
    ...a,
    grants: [],
  }))
  const held = permissionsAt(roleGrantsOf(db, actor.staffUserId), locationId, denies)
  const missing = grants.filter((p) => !held.has(p as Permission))
  if (missing.length > 0) {
    throw new ApiError(
      'forbidden',
      `A job that grants ${missing.join(', ')} ${locationId === null ? 'tenant-wide' : `at location ${locationId}`} needs you to hold them there yourself`,
      { extensions: { missingPermissions: missing } },
    )
  }
}
