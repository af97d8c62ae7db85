import { family } from '../../platform/family'
import { registerClubMembershipsHooks } from './hooks'
import { holdEnds, registerClubMembershipJobs } from './jobs'
import * as model from './model'
import { ClubMembership } from './model'
import { clubMembershipRoutes } from './routes'

export const clubMembershipsFamily = family({
  name: 'club-memberships',
  models: { clubMemberships: model },
  events: [
    {
      object: 'club_membership',
      readPermission: 'clubs:read',
      formerly: { object: 'club-membership' },
      actions: ['create', 'update', 'hold', 'resume', 'cancel', 'process'],
      emittedBy:
        '`/club-membership` and its hold, resume and cancel routes; the hold-release job; a release run that charged it (`process`)',
      payload: 'the membership',
      schema: ClubMembership,
    },
  ],
  hooks: registerClubMembershipsHooks,
  dueWork: [holdEnds],
  jobs: (platform) => registerClubMembershipJobs(platform),
  routes: (platform) => [clubMembershipRoutes(platform.auth)],
})

// What the other families may use.
export { importClubMembership } from './import'
export { lendToClubMemberships } from './lent'
export { ImportedClubMembership, type ImportedClubMembershipInput } from './model'
export type { ClubMembershipRow } from './schema'
export {
  apply,
  createMembership,
  findMembershipRow,
  getMembershipRow,
  liveMembershipIdsOf,
  membershipOn,
  rescheduleMemberships,
} from './service'
