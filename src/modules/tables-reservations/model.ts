import { t } from 'elysia'
import { calendarDate } from '../../platform/foundation/dates'
import { pageInfoSchema, pagingQuery } from '../../platform/foundation/paging'
import { oneOf } from '../../platform/foundation/types'
import { idempotencyKeyHeader } from '../../platform/http/idempotency'
import { paymentOptionSchema } from '../experiences'

const uuid = t.String({ format: 'uuid' })
const dateTime = t.String({ format: 'date-time' })

const Booking = t.Object({
  method: t.String({ description: 'The payment option of the slot booked (`none`, `pay_at_venue`, ...).' }),
  currency: t.String(),
  subtotalAmount: t.Integer({ minimum: 0, description: 'Integer minor units.' }),
  taxAmount: t.Integer({ minimum: 0 }),
  totalAmount: t.Integer({ minimum: 0 }),
})

export const TablesReservation = t.Object({
  id: uuid,
  publicId: uuid,
  confirmationCode: t.String(),
  locationId: uuid,
  experienceId: uuid,
  experienceVersionId: uuid,
  lifecycle: t.Union([t.Literal('confirmed'), t.Literal('cancelled')]),
  version: t.Integer({ minimum: 1 }),
  source: t.String({ description: '`api` (a tables-API credential) or `staff`.' }),
  businessDate: t.String({ description: 'The local date of the booking, YYYY-MM-DD.' }),
  startsAt: dateTime,
  endsAt: dateTime,
  partySize: t.Integer({ minimum: 1 }),
  guest: t.Object({ name: t.String(), email: t.String(), phone: t.Nullable(t.String()) }),
  booking: Booking,
  confirmedAt: dateTime,
  cancelledAt: t.Nullable(dateTime),
  cancelReason: t.Nullable(t.String()),
})

export const TablesReservationData = t.Object({ data: TablesReservation })
export const TablesReservationList = t.Object({ data: t.Array(TablesReservation), page: pageInfoSchema })

export const LocationParams = t.Object({ locationId: t.String({ format: 'uuid' }) })
export const ReservationParams = t.Object({
  locationId: t.String({ format: 'uuid' }),
  reservationId: t.String({ format: 'uuid' }),
})

export const ReservationListQuery = t.Object({
  dateFrom: calendarDate('First business date, inclusive.'),
  dateTo: calendarDate('Last business date, inclusive; not before dateFrom.'),
  ...pagingQuery(100),
})

export const AvailabilityQuery = t.Object({
  date: calendarDate('The local business date.'),
  partySize: t.Integer({ minimum: 1, maximum: 1000 }),
  experienceId: t.Optional(t.String({ format: 'uuid' })),
  privateLink: t.Optional(
    t.String({
      minLength: 1,
      maxLength: 200,
      description: 'A private link token: offers that experience only.',
    }),
  ),
})

export const AvailabilityOption = t.Object({
  optionToken: t.String({ description: 'Signed; redeem it with create before `expiresAt`.' }),
  expiresAt: dateTime,
  experienceId: uuid,
  experienceVersionId: uuid,
  name: t.String(),
  businessDate: t.String(),
  startsAt: dateTime,
  endsAt: dateTime,
  partySize: t.Integer({ minimum: 1 }),
  remainingCapacity: t.Integer({ minimum: 0 }),
  paymentOption: paymentOptionSchema,
  paymentRequired: t.Boolean({ description: 'True when create will answer 402 payment_required.' }),
  booking: Booking,
})
export const AvailabilityList = t.Object({ data: t.Array(AvailabilityOption), timeZone: t.String() })

export const CreateTablesReservation = t.Object(
  {
    optionToken: t.String({ minLength: 1, maxLength: 4000 }),
    guest: t.Object(
      {
        name: t.String({ minLength: 1, maxLength: 200 }),
        email: t.String({ format: 'email', maxLength: 320 }),
        phone: t.Optional(t.Nullable(t.String({ maxLength: 50 }))),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
)

/** Why a token's option can no longer be booked (the `reason` of a 409 `option_unavailable`). */
export const optionUnavailableReasons = [
  'archived',
  'start_not_offered',
  'closed',
  'party_size',
  'capacity',
] as const

export const CreateConflict = t.Object(
  {
    type: t.String(),
    title: t.String(),
    status: t.Literal(409),
    detail: t.String({ description: 'The reason, in words.' }),
    code: oneOf(['option_unavailable', 'idempotency_key_in_use']),
    requestId: t.String(),
    reason: t.Optional(
      oneOf(optionUnavailableReasons, {
        description:
          '`option_unavailable` only: `archived`; `start_not_offered` (the published version has no such start ' +
          'time); `closed` (past its cutoff); `party_size` (outside the published `partyMin`..`partyMax`); ' +
          '`capacity` (too few covers left).',
      }),
    ),
    remainingCapacity: t.Optional(
      t.Integer({
        minimum: 0,
        description: '`option_unavailable` only: covers still bookable at the start time now (0 if none).',
      }),
    ),
    publishedVersionId: t.Optional(
      t.String({ format: 'uuid', description: 'The version whose rules refused the option.' }),
    ),
    startsAt: t.Optional(dateTime),
    partySize: t.Optional(t.Integer({ minimum: 1 })),
    partyMin: t.Optional(t.Integer({ minimum: 1 })),
    partyMax: t.Optional(t.Integer({ minimum: 1 })),
    capacity: t.Optional(t.Integer({ minimum: 1 })),
    closedAt: t.Optional(dateTime),
    experienceId: t.Optional(uuid),
  },
  {
    description:
      'A problem document. `option_unavailable`: the option can no longer be booked under the rules published ' +
      'now; ask availability again. `idempotency_key_in_use`: a request with this key is still running.',
  },
)

export const CancelTablesReservation = t.Object(
  { reason: t.String({ minLength: 1, maxLength: 500 }) },
  { additionalProperties: false },
)

const idempotencyKey = t.String({
  ...idempotencyKeyHeader,
  description: 'Required: the same key and request replays the first response (24 hours).',
})

export const CreateHeaders = t.Object({ 'idempotency-key': idempotencyKey })
export const CancelHeaders = t.Object({
  'idempotency-key': idempotencyKey,
  'if-match': t.Optional(
    t.String({
      description:
        'Required: the reservation `version`, a positive integer without leading zeros. Missing is 428, ' +
        'malformed 400, another version 412.',
    }),
  ),
})
