import { Elysia } from 'elysia'
import type { AuthPlugin } from '../../platform/auth/plugin'
import { pageOf } from '../../platform/foundation/paging'
import type { ApiError } from '../../platform/foundation/problem'
import { idempotentWrite } from '../../platform/http/idempotency'
import { versionTag } from '../../platform/http/version-tag'
import { availability } from './availability'
import {
  AvailabilityList,
  AvailabilityQuery,
  CancelHeaders,
  CancelTablesReservation,
  CreateConflict,
  CreateHeaders,
  CreateTablesReservation,
  LocationParams,
  ReservationListQuery,
  ReservationParams,
  TablesReservationData,
  TablesReservationList,
} from './model'
import { expectedVersion } from './preconditions'
import {
  cancelTablesReservation,
  createTablesReservation,
  getTablesReservation,
  listTablesReservations,
} from './service'
import { verifyOptionToken } from './tokens'

const locationRule =
  ' `{locationId}` must be a location of this tenant (404 otherwise) and, for a `tpk_live_` credential, on its ' +
  'allowlist (403 otherwise).'

/** An answer that is one reservation, with its version as `ETag` (what `if-match` takes back). */
function tagged<T extends { data: { version: number } }>(
  set: { headers: Record<string, unknown> },
  answer: T,
): T {
  set.headers.etag = versionTag(answer.data.version)
  return answer
}

export const tablesReservationRoutes = (auth: AuthPlugin) =>
  new Elysia({
    name: 'tables-reservations',
    prefix: '/tables-api/v1/locations/:locationId',
    detail: { tags: ['Tables API'] },
  })
    .use(auth)
    .get('/availability', ({ db, params, query }) => availability(db, params.locationId, query), {
      permission: 'reservations:read',
      credentialScope: 'reservations:read',
      params: LocationParams,
      query: AvailabilityQuery,
      response: AvailabilityList,
      detail: {
        summary: 'Bookable options',
        description:
          'The start times of published public experiences at the location on `date` (local) that take ' +
          '`partySize` (within the version’s party limits, before its cutoff, with enough covers left), earliest ' +
          'first. Each carries an `optionToken` (signed, valid 15 minutes) naming the experience version, start, ' +
          'party size, price and payment option; create redeems it. Options that need a payment are listed with ' +
          '`paymentRequired: true`. `privateLink` (a private link token) offers that experience only, private or ' +
          'not; a rotated-away token is 404. Prices are per guest times party size; no tax is added.' +
          locationRule,
      },
    })
    .get(
      '/reservations',
      ({ db, params, query }) =>
        listTablesReservations(db, params.locationId, { ...query, ...pageOf(query) }),
      {
        permission: 'reservations:read',
        credentialScope: 'reservations:read',
        params: LocationParams,
        query: ReservationListQuery,
        response: TablesReservationList,
        detail: {
          summary: 'List reservations',
          description:
            'Reservations (cancelled included) whose business date is within `dateFrom`..`dateTo` (inclusive; ' +
            '`dateFrom` after `dateTo` is 400), by start time. Pages with `page`/`limit`; `page.total` counts all.' +
            locationRule,
        },
      },
    )
    .post(
      '/reservations',
      async ({ db, actor, params, body, headers, path, set }) => {
        // Verified before the idempotent unit (it awaits); a replay of a completed request still
        // replays after its token has expired, because the error is raised inside the unit.
        const option = await verifyOptionToken(db, body.optionToken).catch((error: ApiError) => error)
        const result = idempotentWrite(
          db,
          actor,
          { key: headers['idempotency-key'], method: 'POST', path, body },
          () => {
            if (option instanceof Error) throw option
            return {
              status: 201,
              body: { data: createTablesReservation(db, actor, params.locationId, option, body.guest) },
            }
          },
        )
        set.status = result.status
        if (result.replayed) set.headers['idempotent-replayed'] = 'true'
        return tagged(set, result.body)
      },
      {
        permission: 'reservations:write',
        credentialScope: 'reservations:write',
        params: LocationParams,
        headers: CreateHeaders,
        body: CreateTablesReservation,
        response: { 201: TablesReservationData, 409: CreateConflict },
        detail: {
          summary: 'Create a reservation',
          'x-problems': ['payment_required'],
          description:
            'Books the option an availability `optionToken` names for `guest`. An expired, altered or foreign ' +
            'token is 400; one for another location 400. A `paid`, `prepaid`, `deposit` or `card_hold` option is ' +
            '402 `payment_required` (book those in the dashboard). The token is checked again against the version ' +
            'published now, whichever version issued it: 409 `option_unavailable` (with `reason` and ' +
            '`remainingCapacity`) when the experience is archived, that version no longer offers the start time, ' +
            'its cutoff has passed, the party is outside its `partyMin`..`partyMax`, or the covers booked at the ' +
            'start (by every version) leave too few under its capacity. The reservation keeps the version and ' +
            'price of the token. Answers ' +
            '`lifecycle` `confirmed`, `version` 1, a `confirmationCode` and a `publicId`. `idempotency-key` ' +
            '(8..180): the same key and body replays the first answer (header `idempotent-replayed: true`), the ' +
            'same key with another body is 422, a key still in flight 409.' +
            locationRule,
        },
      },
    )
    .get(
      '/reservations/:reservationId',
      ({ db, params, set }) =>
        tagged(set, { data: getTablesReservation(db, params.locationId, params.reservationId) }),
      {
        permission: 'reservations:read',
        credentialScope: 'reservations:read',
        params: ReservationParams,
        response: TablesReservationData,
        detail: {
          summary: 'Get a reservation',
          description: 'A reservation of another location (or tenant) is 404.' + locationRule,
        },
      },
    )
    .post(
      '/reservations/:reservationId/cancel',
      ({ db, actor, params, body, headers, path, set }) => {
        const version = expectedVersion(headers['if-match'])
        const result = idempotentWrite(
          db,
          actor,
          { key: headers['idempotency-key'], method: 'POST', path, body: { ...body, ifMatch: version } },
          () => ({
            status: 200,
            body: {
              data: cancelTablesReservation(db, actor, params.locationId, params.reservationId, {
                expectedVersion: version,
                reason: body.reason,
              }),
            },
          }),
        )
        if (result.replayed) set.headers['idempotent-replayed'] = 'true'
        return tagged(set, result.body)
      },
      {
        permission: 'reservations:write',
        credentialScope: 'reservations:write',
        params: ReservationParams,
        headers: CancelHeaders,
        body: CancelTablesReservation,
        response: TablesReservationData,
        detail: {
          summary: 'Cancel a reservation',
          description:
            'Sets `lifecycle` `cancelled` and `cancelledAt`, keeps `reason`, bumps `version` and frees the covers. ' +
            '`if-match` must be the current `version` (positive integer without leading zeros): missing is 428 ' +
            '`precondition_required`, malformed 400, another version 412 `precondition_failed` (with ' +
            '`currentVersion`). An already cancelled reservation is 409; so is one that took a payment not yet ' +
            'resolved in the dashboard. `idempotency-key` as on create: a retry with the same key, `if-match` and ' +
            'reason replays the first answer.' +
            locationRule,
        },
      },
    )
