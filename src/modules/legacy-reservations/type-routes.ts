import { Elysia } from 'elysia'
import type { AuthPlugin } from '../../platform/auth/plugin'
import { pageOf } from '../../platform/foundation/paging'
import {
  CreateReservationType,
  IdParams,
  ReservationType,
  ReservationTypeList,
  ReservationTypeListQuery,
  UpdateReservationType,
} from './model-types'
import {
  createReservationType,
  deleteReservationType,
  getReservationType,
  listReservationTypes,
  updateReservationType,
} from './types'

const locationRule =
  'A type with no `reservationLocationIds` is held at every location. A caller bound to some locations sees ' +
  'types held everywhere or naming one of its locations (others are 404), and creates, changes or deletes ' +
  'only types every location of which it may act at (403 otherwise).'

export const reservationTypeRoutes = (auth: AuthPlugin) =>
  new Elysia({ name: 'reservation-types', prefix: '/reservation-type', detail: { tags: ['Reservations'] } })
    .use(auth)
    .get(
      '',
      ({ db, query, locations }) => listReservationTypes(db, { ...query, ...pageOf(query) }, locations),
      {
        permission: 'reservations:read',
        query: ReservationTypeListQuery,
        response: ReservationTypeList,
        detail: {
          summary: 'List reservation types',
          description: `Ordered by title, with options and time slots. ${locationRule}`,
        },
      },
    )
    .post(
      '',
      ({ db, actor, locations, body, set }) => {
        set.status = 201
        return createReservationType(db, actor, locations, body)
      },
      {
        permission: 'reservations:write',
        body: CreateReservationType,
        response: { 201: ReservationType },
        detail: {
          summary: 'Create a reservation type',
          description:
            'Defaults: status active, 1..8 guests, 60 minutes, no lead time, paymentCharge none. `slug` is derived ' +
            'from the title unless given (a taken slug is 409). Locations must be of this tenant; ' +
            '`defaultReservationLocationId` must be among `reservationLocationIds` when both are set, and is ' +
            'required with `isAlwaysOccursInDefaultLocation`. `options` (price per guest in minor units) and ' +
            '`timeSlots` (one per weekday, local `HH:MM` times; `allowCustomersToReserveOnline` default true) are ' +
            `created with it. ${locationRule}`,
        },
      },
    )
    .get('/:id', ({ db, params, locations }) => getReservationType(db, params.id, locations), {
      permission: 'reservations:read',
      params: IdParams,
      response: ReservationType,
      detail: { summary: 'Get a reservation type' },
    })
    .put(
      '/:id',
      ({ db, actor, locations, params, body }) =>
        updateReservationType(db, actor, locations, params.id, body),
      {
        permission: 'reservations:write',
        params: IdParams,
        body: UpdateReservationType,
        response: ReservationType,
        detail: {
          summary: 'Update a reservation type',
          description:
            'Partial; `options` and `timeSlots`, when sent, replace the whole list. Existing reservations keep their ' +
            `price and time. ${locationRule}`,
        },
      },
    )
    .delete(
      '/:id',
      ({ db, actor, locations, params }) => deleteReservationType(db, actor, locations, params.id),
      {
        permission: 'reservations:write',
        params: IdParams,
        response: ReservationType,
        detail: {
          summary: 'Delete a reservation type',
          description: `Answers the deleted type. A type with reservations is 409: set it inactive instead. ${locationRule}`,
        },
      },
    )
