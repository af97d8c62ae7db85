import { t } from 'elysia'
import { withMembers } from '../../platform/events/catalogue'
import { family } from '../../platform/family'
import { registerLegacyReservationsHooks } from './hooks'
import { registerLegacyReservationJobs, remindersDue } from './jobs'
import * as model from './model'
import { LegacyReservation } from './model'
import * as modelTypes from './model-types'
import { legacyReservationRoutes } from './routes'
import { reservationTypeRoutes } from './type-routes'

export const legacyReservationsFamily = family({
  name: 'legacy-reservations',
  tags: {
    Reservations: 'Reservation types and reservations of the Commerce7-style reservations API.',
  },
  models: { legacyReservations: model, legacyReservationsTypes: modelTypes },
  events: [
    {
      object: 'reservation',
      readPermission: 'reservations:read',
      actions: ['create', 'update', 'cancel'],
      emittedBy: '`/reservation`',
      payload: 'the legacy reservation',
      schema: LegacyReservation,
    },
    {
      object: 'reservation',
      readPermission: 'reservations:read',
      actions: ['remind'],
      emittedBy: 'the `legacy-reservations.remind` job, once per reservation due within 24 hours',
      payload: 'the legacy reservation, plus `reminder`: `{status, to?, provider?, messageId?, reason?}`',
      schema: withMembers(LegacyReservation, {
        reminder: t.Object(
          { status: t.String({ enum: ['sent', 'failed', 'skipped'] }) },
          { additionalProperties: true },
        ),
      }),
    },
  ],
  hooks: registerLegacyReservationsHooks,
  dueWork: [remindersDue],
  jobs: (platform) => registerLegacyReservationJobs(platform),
  routes: (platform) => [reservationTypeRoutes(platform.auth), legacyReservationRoutes(platform.auth)],
})
