import { family } from '../../platform/family'
import { lendToClubMemberships } from '../club-memberships'
import { registerClubReleaseJobs, releasesDue } from './jobs'
import * as model from './model'
import { ClubRelease, ClubShipment } from './model'
import { clubReleaseRoutes } from './routes'
import { plannedReleaseDate } from './service'

export const clubReleasesFamily = family({
  name: 'club-releases',
  models: { clubReleases: model },
  events: [
    {
      object: 'club_release',
      readPermission: 'clubs:read',
      formerly: { object: 'club-release', actions: { run_start: 'run-start', run_finish: 'run-finish' } },
      actions: ['create', 'update', 'activate', 'archive', 'process', 'retry', 'run_start', 'run_finish'],
      emittedBy:
        '`/club/{id}/releases`, `/clubs/{id}/releases`, their process and retry routes, the release runs',
      payload: 'the release (items, totals, shipment summary)',
      schema: ClubRelease,
    },
    {
      object: 'club_shipment',
      readPermission: 'clubs:read',
      formerly: { object: 'club-shipment' },
      actions: ['create', 'order', 'process', 'decline', 'skip', 'hold', 'fail'],
      emittedBy: 'a release run',
      payload: 'the shipment',
      schema: ClubShipment,
    },
  ],
  dueWork: [releasesDue],
  hooks: () => lendToClubMemberships({ plannedReleaseDate }),
  jobs: (platform) => registerClubReleaseJobs(platform),
  routes: (platform, jobs) => [clubReleaseRoutes(platform.auth, jobs)],
})

// What the other families may use.
export { createRelease } from './service'
