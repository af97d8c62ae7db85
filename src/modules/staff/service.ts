import { and, eq, sql } from 'drizzle-orm'
import { recordWrite } from '../../platform/audit/record-write'
import { isRoleName, type RoleGrant, roleNames } from '../../platform/auth/permissions'
import { IDENTITY_PROVIDER } from '../../platform/auth/tokens'
import type { Actor } from '../../platform/foundation/actor'
import { newId, nowIso } from '../../platform/foundation/ids'
import { ApiError, invalid } from '../../platform/foundation/problem'
import type { Db } from '../../platform/tenancy/databases'
import { preparedOn } from '../../platform/tenancy/prepared'
import { inWriteTransaction, type Queryable } from '../../platform/tenancy/transaction'
import { findLocation } from '../locations'
import { assertMayGrant } from './privileges'
import { type StaffUserRow, staffIdentities, staffRoles, staffUsers } from './schema'

export interface NewStaffUser {
  email: string
  firstName: string
  lastName: string
  phoneCountryCode?: string | null
  phoneNumber?: string | null
  postalCode?: string | null
  subject?: string
  role?: string
  /** Makes the role location-scoped. */
  locationId?: string
  passcode?: string
  /** Further roles, each tenant-wide (locationId null or absent) or at one location. */
  roles?: { role: string; locationId?: string | null }[]
}

const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/
const passcodePattern = /^\d{4,8}$/

export const normalizeEmail = (email: string): string => email.trim().toLowerCase()

export function hashPasscode(passcode: string): string {
  if (!passcodePattern.test(passcode)) throw invalid('passcode', 'must be 4 to 8 digits')
  return Bun.password.hashSync(passcode, { algorithm: 'argon2id' })
}

export function createStaffUser(db: Db, actor: Actor, input: NewStaffUser): StaffUserRow {
  const email = normalizeEmail(input.email)
  if (!emailPattern.test(email)) throw invalid('email', 'must be an email address')
  if (!input.firstName.trim()) throw invalid('firstName', 'must not be empty')
  if (!input.lastName.trim()) throw invalid('lastName', 'must not be empty')
  if (input.role !== undefined && !isRoleName(input.role)) {
    throw invalid('role', `unknown role "${input.role}"; one of ${roleNames.join(', ')}`)
  }
  if (input.locationId !== undefined && input.role === undefined) {
    throw invalid('locationId', 'a location scopes a role; give the role too')
  }
  const grants: RoleGrant[] = [
    ...(input.role !== undefined ? [{ role: input.role, locationId: input.locationId ?? null }] : []),
    ...(input.roles ?? []).map((g) => ({ role: g.role, locationId: g.locationId ?? null })),
  ]
  grants.forEach((g, i) => {
    if (!isRoleName(g.role)) throw invalid(`roles/${i}/role`, `unknown role "${g.role}"`)
  })
  const passcodeHash = input.passcode === undefined ? null : hashPasscode(input.passcode)

  return inWriteTransaction(db, (tx) => {
    if (tx.select({ id: staffUsers.id }).from(staffUsers).where(eq(staffUsers.email, email)).get()) {
      throw new ApiError('conflict', `a staff user with email ${email} already exists`)
    }
    const unique = new Map(grants.map((g) => [`${g.role} ${g.locationId}`, g]))
    for (const grant of unique.values()) {
      if (grant.locationId !== null && !findLocation(tx, grant.locationId)) {
        throw invalid(input.role ? 'locationId' : 'roles', `location ${grant.locationId} not found`)
      }
      assertMayGrant(tx, actor, grant)
    }
    if (input.subject !== undefined && findStaffIdBySubject(tx, input.subject)) {
      throw new ApiError('conflict', `subject ${input.subject} is already mapped to a staff user`)
    }
    const now = nowIso()
    const staff = tx
      .insert(staffUsers)
      .values({
        id: newId(),
        email,
        firstName: input.firstName.trim(),
        lastName: input.lastName.trim(),
        phoneCountryCode: input.phoneCountryCode ?? null,
        phoneNumber: input.phoneNumber ?? null,
        postalCode: input.postalCode ?? null,
        status: 'active',
        passcodeHash,
        createdAt: now,
        updatedAt: now,
      })
      .returning()
      .get()
    if (input.subject !== undefined) {
      tx.insert(staffIdentities)
        .values({
          id: newId(),
          staffUserId: staff.id,
          provider: IDENTITY_PROVIDER,
          subject: input.subject,
          createdAt: now,
        })
        .run()
    }
    for (const grant of unique.values()) {
      tx.insert(staffRoles)
        .values({ id: newId(), staffUserId: staff.id, ...grant, createdAt: now })
        .run()
    }
    recordWrite(tx, actor, {
      action: 'staff.create',
      entityType: 'staff_user',
      entityId: staff.id,
      metadata: {
        email,
        subject: input.subject ?? null,
        role: input.role ?? null,
        locationId: input.locationId ?? null,
        roles: [...unique.values()],
        passcodeSet: passcodeHash !== null,
      },
    })
    return staff
  })
}

// These three run on every authenticated request: prepared once per database handle.
export function findStaffIdBySubject(db: Queryable, subject: string): string | undefined {
  return preparedOn(db, 'staff-id-by-subject', () =>
    db
      .select({ staffUserId: staffIdentities.staffUserId })
      .from(staffIdentities)
      .where(
        and(
          eq(staffIdentities.provider, IDENTITY_PROVIDER),
          eq(staffIdentities.subject, sql.placeholder('subject')),
        ),
      )
      .prepare(),
  ).get({ subject })?.staffUserId
}

export const findStaffUser = (db: Queryable, id: string): StaffUserRow | undefined =>
  preparedOn(db, 'staff-user-by-id', () =>
    db
      .select()
      .from(staffUsers)
      .where(eq(staffUsers.id, sql.placeholder('id')))
      .prepare(),
  ).get({ id })

export const roleGrantsOf = (db: Queryable, staffUserId: string): RoleGrant[] =>
  preparedOn(db, 'staff-role-grants', () =>
    db
      .select({ role: staffRoles.role, locationId: staffRoles.locationId })
      .from(staffRoles)
      .where(eq(staffRoles.staffUserId, sql.placeholder('staffUserId')))
      .prepare(),
  ).all({ staffUserId })

/** Public shape of a staff user: never the passcode hash. */
export function presentStaffUser(row: StaffUserRow) {
  const { passcodeHash: _hidden, ...rest } = row
  return rest
}
