// Who may hand out which role. Nobody can grant (or take away, or manage someone holding) a role
// whose primitives they do not hold themselves where that role applies: a manager cannot make an
// owner, a location-scoped manager cannot touch tenant-wide roles or other locations, and a
// passcode session acts only at its own location. The command line (system actor) may do anything.
// The tenant also never loses its last active tenant-wide owner.
import { and, count, eq, isNull } from 'drizzle-orm'
import { builtInRoles, isRoleName, permissionsAt, type RoleGrant } from '../../platform/auth/permissions'
import type { Actor } from '../../platform/foundation/actor'
import { ApiError, conflict } from '../../platform/foundation/problem'
import type { Queryable } from '../../platform/tenancy/transaction'
import { staffRoles, staffUsers } from './schema'

const grantsOf = (db: Queryable, staffUserId: string): RoleGrant[] =>
  db
    .select({ role: staffRoles.role, locationId: staffRoles.locationId })
    .from(staffRoles)
    .where(eq(staffRoles.staffUserId, staffUserId))
    .all()

const where = (locationId: string | null) =>
  locationId === null ? 'tenant-wide' : `at location ${locationId}`

export function assertMayGrant(db: Queryable, actor: Actor, grant: RoleGrant): void {
  if (actor.kind === 'system') return
  if (actor.kind === 'passcode_session' && grant.locationId !== actor.locationId) {
    throw new ApiError(
      'forbidden',
      `A passcode session manages roles only at its own location; this role is ${where(grant.locationId)}`,
    )
  }
  if (!actor.staffUserId || !isRoleName(grant.role)) {
    throw new ApiError('forbidden', `You may not manage the ${grant.role} role`)
  }
  const held = permissionsAt(grantsOf(db, actor.staffUserId), grant.locationId)
  const missing = builtInRoles[grant.role].grants.filter((p) => !held.has(p))
  if (missing.length > 0) {
    throw new ApiError(
      'forbidden',
      `Managing the ${grant.role} role ${where(grant.locationId)} needs every primitive it grants; you lack ${missing.join(', ')}`,
      { extensions: { missingPermissions: missing } },
    )
  }
}

/** The actor may change a staff user only if they could have granted every role that user holds. */
export function assertMayManage(db: Queryable, actor: Actor, staffUserId: string): void {
  for (const grant of grantsOf(db, staffUserId)) assertMayGrant(db, actor, grant)
}

export function activeTenantOwners(db: Queryable): number {
  return (
    db
      .select({ n: count() })
      .from(staffRoles)
      .innerJoin(staffUsers, eq(staffUsers.id, staffRoles.staffUserId))
      .where(
        and(eq(staffRoles.role, 'owner'), isNull(staffRoles.locationId), eq(staffUsers.status, 'active')),
      )
      .get()?.n ?? 0
  )
}

/** Refuses a change that would leave the tenant without an active tenant-wide owner. */
export function assertKeepsAnOwner(db: Queryable, losingOwnerRoles: number): void {
  if (losingOwnerRoles > 0 && activeTenantOwners(db) - losingOwnerRoles < 1) {
    throw conflict('The tenant must keep at least one active tenant-wide owner', {
      activeOwners: activeTenantOwners(db),
    })
  }
}

export function tenantOwnerRolesOf(db: Queryable, staffUserId: string): number {
  return grantsOf(db, staffUserId).filter((g) => g.role === 'owner' && g.locationId === null).length
}
