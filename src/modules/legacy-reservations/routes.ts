import { Elysia } from 'elysia'
import type { AuthPlugin } from '../../platform/auth/plugin'
import { pageOf } from '../../platform/foundation/paging'
import {
  CreateLegacyReservation,
  LegacyReservation,
  LegacyReservationList,
  LegacyReservationListQuery,
  ReservationIdParams,
  UpdateLegacyReservation,
} from './model'
import {
  createLegacyReservation,
  getLegacyReservation,
  legacyReservationLocated,
  listLegacyReservations,
  updateLegacyReservation,
} from './service'

export const legacyReservationRoutes = (auth: AuthPlugin) =>
  new Elysia({ name: 'legacy-reservations', prefix: '/reservation', detail: { tags: ['Reservations'] } })
    .use(auth)
    .get(
      '',
      ({ db, query, locations }) => listLegacyReservations(db, { ...query, ...pageOf(query) }, locations),
      {
        permission: 'reservations:read',
        query: LegacyReservationListQuery,
        response: LegacyReservationList,
        detail: {
          summary: 'List reservations',
          description:
            'By reservation date. Filters: `dateFrom`/`dateTo` (local dates at the reservation location, inclusive), ' +
            '`status`, `reservationTypeId`, `customerId`, `reservationLocationId`, `paymentStatus`.',
        },
      },
    )
    .post(
      '',
      ({ db, actor, locations, body, set }) => {
        set.status = 201
        return createLegacyReservation(db, actor, locations, body)
      },
      {
        permission: 'reservations:write',
        body: CreateLegacyReservation,
        response: { 201: LegacyReservation },
        detail: {
          summary: 'Create a reservation',
          description:
            'Checked against its reservation type (400 with every problem): the type is active; `guestCount` within ' +
            'its min..max; `reservationDate` falls on one of its time slots (weekday and local `HH:MM` at the ' +
            'reservation location) and, on channel `Web` (the customer booking online), one open online; at least ' +
            '`leadTimeInHours` ahead (and not past); the location among the type’s (its default when it always ' +
            'occurs there); the option one of the type’s. Staff may override the date, location and guest-count ' +
            'rules with the `is...Override` flags (not on `Web`). `customerId` must be a customer of this tenant ' +
            '(required on `Web`; a merged-away id books the surviving customer). A start time holding ' +
            '`maxGroupCount` reservations is 409. `price` is the option’s per-guest price times `guestCount`, ' +
            'unless `isPriceOverride` with `price`. Numbered in order (`reservationNumber`), status `Pending` (or ' +
            '`Confirmed`), `paymentStatus` `unpaid`.',
        },
      },
    )
    .get('/:id', ({ db, params }) => getLegacyReservation(db, params.id), {
      permission: 'reservations:read',
      locatedBy: legacyReservationLocated,
      params: ReservationIdParams,
      response: LegacyReservation,
      detail: { summary: 'Get a reservation' },
    })
    .put('/:id', ({ db, actor, params, body }) => updateLegacyReservation(db, actor, params.id, body), {
      permission: 'reservations:write',
      locatedBy: legacyReservationLocated,
      params: ReservationIdParams,
      body: UpdateLegacyReservation,
      response: LegacyReservation,
      detail: {
        summary: 'Update a reservation',
        description:
          'Partial. `status` moves Pending → Confirmed → Checked In → Completed, or Pending/Confirmed → Cancelled or ' +
          'No Show; any other move is 409 with `currentStatus` and the `allowed` ones. Checking in sets ' +
          '`checkInTime`; completing sets `closeOutTime` and `reservationCloseOutDate`. `paymentStatus` moves ' +
          'unpaid → paid (sets `reservationPaidDate`) → refunded. Changing the date, guests, location or option is ' +
          'checked against the type again (not allowed once Completed, Cancelled or No Show).',
      },
    })
