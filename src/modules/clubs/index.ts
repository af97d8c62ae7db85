import { CRUD } from '../../platform/events/catalogue'
import { family } from '../../platform/family'
import * as model from './model'
import { Club } from './model'
import { clubRoutes } from './routes'

export const clubsFamily = family({
  name: 'clubs',
  tags: {
    Clubs: 'Wine clubs and club memberships: cadence, holds, cancellations.',
  },
  models: { clubs: model },
  events: [
    {
      object: 'club',
      readPermission: 'clubs:read',
      actions: CRUD,
      emittedBy: '`/club`, `/clubs`',
      payload: 'the club',
      schema: Club,
    },
  ],
  routes: (platform) => [clubRoutes(platform.auth)],
})

// What the other families may use.
export { Cadence, Club } from './model'
export {
  clubByReference,
  clubIdsMatching,
  clubsByIds,
  clubView,
  createClub,
  getClubRow,
  onClubCadenceChange,
} from './service'
