import { family } from '../../platform/family'
import * as model from './model'
import { TablesReservation } from './model'
import { tablesReservationRoutes } from './routes'

export const tablesReservationsFamily = family({
  name: 'tables-reservations',
  tags: {
    'Tables API':
      'The partner reservations API (`/tables-api/v1`): availability, reservations and webhook subscriptions, open to `tpk_live_` credentials with the right scope.',
  },
  models: { tablesReservations: model },
  events: [
    {
      object: 'reservation',
      readPermission: 'reservations:read',
      actions: ['create', 'cancel'],
      emittedBy: 'the tables API reservation routes',
      payload: 'the tables reservation',
      schema: TablesReservation,
    },
  ],
  routes: (platform) => [tablesReservationRoutes(platform.auth)],
})

// What the other families may use.
export { createTablesReservation, tablesReservationExists } from './service'
