// What the families built on club memberships lend them (src/platform/lending.ts). Club releases
// process memberships: they say when a club's next release is planned, which a new member's
// nextProcessDate follows.
import { lendingDesk } from '../../platform/lending'
import type { Queryable } from '../../platform/tenancy/transaction'
import type { ClubMembershipRow } from './schema'

export interface LentToClubMemberships {
  /**
   * club-releases: the process date of the club's first release, not archived, on or after `from`
   * that offers `method`; null when none is planned.
   */
  plannedReleaseDate(
    db: Queryable,
    clubId: string,
    from: string,
    method: ClubMembershipRow['orderDeliveryMethod'],
  ): string | null
}

const desk = lendingDesk<LentToClubMemberships>('club-memberships')
export const lendToClubMemberships = desk.lend
export const lentToClubMemberships = desk.part
