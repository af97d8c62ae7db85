// Named queries of staff's tables for the families that extend staff users (labor's employees).
import { and, eq, exists, type SQL, type SQLWrapper, sql } from 'drizzle-orm'
import { type LocationScope, scopeCondition } from '../../platform/auth/location-scope'
import type { Queryable } from '../../platform/tenancy/transaction'
import { type StaffUserRow, staffRoles, staffUsers } from './schema'

/** What a list that extends staff users sees of each. */
export type StaffDirectoryRow = Pick<StaffUserRow, 'id' | 'email' | 'firstName' | 'lastName' | 'status'>

/**
 * labor: the staff users as a subquery (`staff_directory`: id, email, names, status) that a list
 * extending them selects from and joins its own tables to.
 */
export const staffDirectory = (db: Queryable) =>
  db
    .select({
      id: staffUsers.id,
      email: staffUsers.email,
      firstName: staffUsers.firstName,
      lastName: staffUsers.lastName,
      status: staffUsers.status,
    })
    .from(staffUsers)
    .as('staff_directory')

/** labor: SQL, whether the staff user `staffUserId` names holds a role within the scope (one at no location counts). */
export const holdsRoleWithin = (db: Queryable, staffUserId: SQLWrapper, scope: LocationScope): SQL =>
  exists(
    db
      .select({ one: sql`1` })
      .from(staffRoles)
      .where(
        and(
          eq(staffRoles.staffUserId, staffUserId),
          scopeCondition(scope, staffRoles.locationId, { unlocatedToo: true }),
        ),
      ),
  )
