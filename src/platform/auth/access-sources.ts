// The port through which the platform learns who a staff user is and what they may do. The
// tables behind it (staff users, identities, roles, labor jobs and assignments, locations) belong
// to modules; the composition root (src/modules/access.ts) implements this interface from them
// and hands it to openPlatform, so platform/auth never imports a module.
import type { Queryable } from '../tenancy/transaction'
import type { LocatedAccess, RoleGrant } from './permissions'

export interface StaffAccess {
  id: string
  /** Only `active` staff users may act. */
  status: string
  roles: readonly RoleGrant[]
  /** Access adjustments in force now (labor job assignments). */
  adjustments: readonly LocatedAccess[]
  /**
   * When the facts above next change with no write at all (an assignment that starts or ends
   * later), in epoch ms; null: never. A cached principal is rebuilt at that moment.
   */
  changesAt: number | null
}

export interface AccessSources {
  /** The staff user mapped to an identity provider subject. */
  staffIdBySubject(db: Queryable, subject: string): string | undefined
  /** A staff user's status, roles and access adjustments as of `now` (epoch ms). */
  staffAccess(db: Queryable, staffUserId: string, now: number): StaffAccess | undefined
  /** Every location of the tenant. */
  locationIds(db: Queryable): string[]
}
