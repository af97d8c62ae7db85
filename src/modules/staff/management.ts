// Staff management over HTTP: list, read, change, deactivate and reactivate staff users, assign
// and remove roles, set and clear passcodes. Who may do what is in privileges.ts.
import { and, asc, count, eq, exists, inArray, isNull, or, sql } from 'drizzle-orm'
import { diffFields } from '../../platform/audit/diff'
import { recordWrite } from '../../platform/audit/record-write'
import { type LocationScope, scopeCondition } from '../../platform/auth/location-scope'
import { IDENTITY_PROVIDER } from '../../platform/auth/tokens'
import type { Actor } from '../../platform/foundation/actor'
import { newId, nowIso } from '../../platform/foundation/ids'
import { offsetOf, type PageRequest, searchColumns } from '../../platform/foundation/paging'
import { ApiError, conflict, invalid, notFound } from '../../platform/foundation/problem'
import type { Db } from '../../platform/tenancy/databases'
import { inWriteTransaction, type Queryable } from '../../platform/tenancy/transaction'
import { findLocation } from '../locations'
import type { RoleAssignmentInput, UpdateStaffUserInput } from './model'
import { assertKeepsAnOwner, assertMayGrant, assertMayManage, tenantOwnerRolesOf } from './privileges'
import { type StaffUserRow, staffIdentities, staffRoles, staffUsers } from './schema'
import { findStaffIdBySubject, hashPasscode, normalizeEmail } from './service'

export function staffView(db: Queryable, row: StaffUserRow) {
  const { passcodeHash, ...rest } = row
  return {
    ...rest,
    passcodeSet: passcodeHash !== null,
    subjects: db
      .select({ subject: staffIdentities.subject })
      .from(staffIdentities)
      .where(eq(staffIdentities.staffUserId, row.id))
      .orderBy(asc(staffIdentities.createdAt))
      .all()
      .map((r) => r.subject),
    roles: db
      .select({
        id: staffRoles.id,
        role: staffRoles.role,
        locationId: staffRoles.locationId,
        createdAt: staffRoles.createdAt,
      })
      .from(staffRoles)
      .where(eq(staffRoles.staffUserId, row.id))
      .orderBy(asc(staffRoles.createdAt), asc(staffRoles.id))
      .all(),
  }
}

export type StaffView = ReturnType<typeof staffView>

/** Staff who work within the scope: a role at one of its locations, or a tenant-wide role. */
const worksWithin = (db: Queryable, scope: LocationScope) =>
  exists(
    db
      .select({ one: sql`1` })
      .from(staffRoles)
      .where(
        and(
          eq(staffRoles.staffUserId, staffUsers.id),
          or(isNull(staffRoles.locationId), scopeCondition(scope, staffRoles.locationId)),
        ),
      ),
  )

/** A staff user the scope reaches (see worksWithin); anyone else is 404, as the list leaves them out. */
function getRow(db: Queryable, id: string, scope: LocationScope): StaffUserRow {
  const reached = scope.all ? undefined : worksWithin(db, scope)
  const row = db
    .select()
    .from(staffUsers)
    .where(and(eq(staffUsers.id, id), reached))
    .get()
  if (!row) throw notFound('staff user', id)
  return row
}

export const getStaffUser = (db: Queryable, scope: LocationScope, id: string): StaffView =>
  staffView(db, getRow(db, id, scope))

export function listStaffUsers(
  db: Queryable,
  query: { q?: string; status?: string } & PageRequest,
  scope: LocationScope,
) {
  const where = and(
    searchColumns(query.q, [staffUsers.firstName, staffUsers.lastName, staffUsers.email]),
    query.status ? eq(staffUsers.status, query.status) : undefined,
    scope.all ? undefined : worksWithin(db, scope),
  )
  const total = db.select({ n: count() }).from(staffUsers).where(where).get()?.n ?? 0
  const rows = db
    .select()
    .from(staffUsers)
    .where(where)
    .orderBy(
      asc(sql`lower(${staffUsers.lastName})`),
      asc(sql`lower(${staffUsers.firstName})`),
      asc(staffUsers.id),
    )
    .limit(query.limit)
    .offset(offsetOf(query))
    .all()
  return {
    staffUsers: rows.map((r) => staffView(db, r)),
    page: { total, page: query.page, limit: query.limit },
  }
}

/** A strictly later timestamp than `previous`, so `updatedAt` works as an optimistic-lock token. */
export function nextUpdatedAt(previous: string): string {
  const now = nowIso()
  return now > previous ? now : new Date(Date.parse(previous) + 1).toISOString()
}

export function updateStaffUser(
  db: Db,
  actor: Actor,
  scope: LocationScope,
  id: string,
  patch: UpdateStaffUserInput,
): StaffView {
  return inWriteTransaction(db, (tx) => {
    const before = getRow(tx, id, scope)
    if (actor.staffUserId !== id) assertMayManage(tx, actor, id)
    const { subject, ...fields } = patch
    if (fields.email !== undefined) {
      fields.email = normalizeEmail(fields.email)
      const holder = tx
        .select({ id: staffUsers.id })
        .from(staffUsers)
        .where(eq(staffUsers.email, fields.email))
        .get()
      if (holder && holder.id !== id) throw conflict(`a staff user with email ${fields.email} already exists`)
    }
    if (fields.firstName !== undefined) fields.firstName = fields.firstName.trim()
    if (fields.lastName !== undefined) fields.lastName = fields.lastName.trim()
    if (fields.firstName === '' || fields.lastName === '') throw invalid('name', 'must not be blank')
    const changes: Record<string, unknown> = diffFields(before, fields)
    if (subject !== undefined) {
      const current = staffView(tx, before).subjects
      if (subject === null ? current.length > 0 : current.join() !== subject) {
        if (subject !== null) {
          const holder = findStaffIdBySubject(tx, subject)
          if (holder && holder !== id) throw conflict(`subject ${subject} is already mapped to a staff user`)
        }
        tx.delete(staffIdentities).where(eq(staffIdentities.staffUserId, id)).run()
        if (subject !== null) {
          tx.insert(staffIdentities)
            .values({
              id: newId(),
              staffUserId: id,
              provider: IDENTITY_PROVIDER,
              subject,
              createdAt: nowIso(),
            })
            .run()
        }
        changes.subjects = { from: current, to: subject === null ? [] : [subject] }
      }
    }
    if (Object.keys(changes).length === 0) return staffView(tx, before)
    const row = tx
      .update(staffUsers)
      .set({ ...fields, updatedAt: nextUpdatedAt(before.updatedAt) })
      .where(eq(staffUsers.id, id))
      .returning()
      .get()
    recordWrite(tx, actor, {
      action: 'staff.update',
      entityType: 'staff_user',
      entityId: id,
      metadata: { changes },
    })
    return staffView(tx, row)
  })
}

function setStatus(
  db: Db,
  actor: Actor,
  scope: LocationScope,
  id: string,
  to: 'active' | 'inactive',
): StaffView {
  return inWriteTransaction(db, (tx) => {
    const before = getRow(tx, id, scope)
    if (to === 'inactive' && actor.staffUserId === id) {
      throw conflict('You cannot deactivate yourself', { staffStatus: before.status })
    }
    assertMayManage(tx, actor, id)
    if (before.status === to) {
      throw conflict(`Staff user ${id} is already ${to}`, { staffStatus: before.status })
    }
    if (to === 'inactive') assertKeepsAnOwner(tx, tenantOwnerRolesOf(tx, id))
    const row = tx
      .update(staffUsers)
      .set({ status: to, updatedAt: nextUpdatedAt(before.updatedAt) })
      .where(eq(staffUsers.id, id))
      .returning()
      .get()
    const action = to === 'inactive' ? 'deactivate' : 'reactivate'
    recordWrite(tx, actor, {
      action: `staff.${action}`,
      entityType: 'staff_user',
      entityId: id,
      metadata: { status: { from: before.status, to } },
    })
    return staffView(tx, row)
  })
}

export const deactivateStaffUser = (db: Db, actor: Actor, scope: LocationScope, id: string) =>
  setStatus(db, actor, scope, id, 'inactive')
export const reactivateStaffUser = (db: Db, actor: Actor, scope: LocationScope, id: string) =>
  setStatus(db, actor, scope, id, 'active')

export function assignRole(
  db: Db,
  actor: Actor,
  scope: LocationScope,
  id: string,
  input: RoleAssignmentInput,
) {
  const grant = { role: input.role, locationId: input.locationId ?? null }
  return inWriteTransaction(db, (tx) => {
    getRow(tx, id, scope)
    if (grant.locationId !== null && !findLocation(tx, grant.locationId)) {
      throw invalid('body/locationId', `location ${grant.locationId} not found`)
    }
    assertMayGrant(tx, actor, grant)
    const same = tx
      .select()
      .from(staffRoles)
      .where(
        and(
          eq(staffRoles.staffUserId, id),
          eq(staffRoles.role, grant.role),
          grant.locationId === null
            ? isNull(staffRoles.locationId)
            : eq(staffRoles.locationId, grant.locationId),
        ),
      )
      .get()
    if (same) throw conflict('The staff user already holds this role there', { roleId: same.id })
    const row = tx
      .insert(staffRoles)
      .values({ id: newId(), staffUserId: id, ...grant, createdAt: nowIso() })
      .returning()
      .get()
    recordWrite(tx, actor, {
      action: 'staff.role_assign',
      entityType: 'staff_user',
      entityId: id,
      metadata: { roleId: row.id, ...grant },
    })
    const { staffUserId: _s, ...role } = row
    return role
  })
}

export function removeRole(db: Db, actor: Actor, scope: LocationScope, id: string, roleId: string) {
  return inWriteTransaction(db, (tx) => {
    const target = getRow(tx, id, scope)
    const row = tx
      .select()
      .from(staffRoles)
      .where(and(eq(staffRoles.id, roleId), eq(staffRoles.staffUserId, id)))
      .get()
    if (!row) throw notFound('role assignment', roleId)
    assertMayGrant(tx, actor, row)
    if (target.status === 'active')
      assertKeepsAnOwner(tx, row.role === 'owner' && row.locationId === null ? 1 : 0)
    tx.delete(staffRoles).where(eq(staffRoles.id, roleId)).run()
    recordWrite(tx, actor, {
      action: 'staff.role_remove',
      entityType: 'staff_user',
      entityId: id,
      metadata: { roleId, role: row.role, locationId: row.locationId },
    })
    const { staffUserId: _s, ...role } = row
    return role
  })
}

/** Sets (or, with null, clears) the POS passcode. The passcode never reaches the audit trail. */
export function setPasscode(
  db: Db,
  actor: Actor,
  scope: LocationScope,
  id: string,
  passcode: string | null,
): StaffView {
  const passcodeHash = passcode === null ? null : hashPasscode(passcode)
  return inWriteTransaction(db, (tx) => {
    const before = getRow(tx, id, scope)
    if (actor.staffUserId !== id) assertMayManage(tx, actor, id)
    if (passcode === null && before.passcodeHash === null) {
      throw new ApiError('not_found', `Staff user ${id} has no passcode`)
    }
    const row = tx
      .update(staffUsers)
      .set({ passcodeHash, updatedAt: nextUpdatedAt(before.updatedAt) })
      .where(eq(staffUsers.id, id))
      .returning()
      .get()
    recordWrite(tx, actor, {
      action: passcode === null ? 'staff.passcode_clear' : 'staff.passcode_set',
      entityType: 'staff_user',
      entityId: id,
      metadata: { passcodeSet: passcode !== null },
    })
    return staffView(tx, row)
  })
}

/** A staff user's change of their own profile, checked against the `updatedAt` they read. */
export interface OwnProfileChange {
  expectedUpdatedAt: string
  firstName: string
  lastName: string
  phoneCountryCode?: string | null
  phoneNumber?: string | null
  postalCode?: string | null
}

/** Changes a staff user's own profile (409 when it changed since they read it); audited as `staff.update_self`. */
export function updateOwnProfile(db: Db, actor: Actor, id: string, input: OwnProfileChange): StaffUserRow {
  return inWriteTransaction(db, (tx) => {
    const before = tx.select().from(staffUsers).where(eq(staffUsers.id, id)).get()
    if (!before) throw notFound('staff user', id)
    if (Date.parse(input.expectedUpdatedAt) !== Date.parse(before.updatedAt)) {
      throw conflict('The profile changed since you read it; reload and try again', {
        updatedAt: before.updatedAt,
      })
    }
    const { expectedUpdatedAt: _expected, ...patch } = input
    patch.firstName = patch.firstName.trim()
    patch.lastName = patch.lastName.trim()
    const changes = diffFields(before, patch)
    if (Object.keys(changes).length === 0) return before
    const row = tx
      .update(staffUsers)
      .set({ ...patch, updatedAt: nextUpdatedAt(before.updatedAt) })
      .where(eq(staffUsers.id, id))
      .returning()
      .get()
    recordWrite(tx, actor, {
      action: 'staff.update_self',
      entityType: 'staff_user',
      entityId: id,
      metadata: { changes },
    })
    return row
  })
}

/** The first and last names of each of these staff users that exists. */
export function staffNames(
  db: Queryable,
  ids: readonly string[],
): Map<string, { id: string; firstName: string; lastName: string }> {
  if (ids.length === 0) return new Map()
  return new Map(
    db
      .select({ id: staffUsers.id, firstName: staffUsers.firstName, lastName: staffUsers.lastName })
      .from(staffUsers)
      .where(inArray(staffUsers.id, [...new Set(ids)]))
      .all()
      .map((s) => [s.id, s]),
  )
}

/** A staff user's role assignments, oldest first. */
export const staffRoleAssignments = (db: Queryable, staffUserId: string) =>
  db
    .select({ id: staffRoles.id, role: staffRoles.role, locationId: staffRoles.locationId })
    .from(staffRoles)
    .where(eq(staffRoles.staffUserId, staffUserId))
    .orderBy(asc(staffRoles.createdAt), asc(staffRoles.id))
    .all()
