import { t } from 'elysia'
import { calendarDate } from '../../platform/foundation/dates'
import { pageInfoSchema, pagingQuery } from '../../platform/foundation/paging'
import { bool, freeForm, int, money, oneOf } from '../../platform/foundation/types'
import { paymentStatuses, reservationChannels, reservationStatuses } from './schema'

const uuid = t.String({ format: 'uuid' })
const dateTime = t.String({ format: 'date-time' })
const nullable = (schema: Parameters<typeof t.Nullable>[0]) => t.Nullable(schema)
const text = (max: number) => t.Optional(t.Nullable(t.String({ maxLength: max })))
const object = freeForm()

export const LegacyReservation = t.Object({
  id: uuid,
  reservationNumber: t.Integer({ minimum: 1 }),
  channel: t.String(),
  externalReservationNumber: nullable(t.String()),
  externalReservationVendor: nullable(t.String()),
  reservationSource: nullable(t.String()),
  customerId: nullable(t.String()),
  reservationDate: dateTime,
  reservationCloseOutDate: nullable(t.String()),
  lastProcessAttemptDate: nullable(t.String()),
  reservationPaidDate: nullable(t.String()),
  reminderEmailSendDate: nullable(t.String({ description: 'When the reminder email was sent.' })),
  checkInTime: nullable(t.String()),
  closeOutTime: nullable(t.String()),
  reservationTypeId: uuid,
  reservationTypeOptionId: nullable(t.String()),
  guestCount: t.Integer({ minimum: 1 }),
  reservationLocationId: t.String(),
  reservationLocationTableId: nullable(t.String()),
  reservationStaffId: nullable(t.String()),
  experienceType: t.String(),
  isRequiresAHost: t.Boolean(),
  inventoryLocationId: t.String(),
  status: t.String(),
  paymentStatus: t.String(),
  paymentCharge: t.String(),
  orderId: nullable(t.String()),
  orderNumber: nullable(t.Integer()),
  reminderEmailSendStatus: t.String({
    description:
      '`pending` until the `legacy-reservations.remind` job (every five minutes) emails the customer a reminder within 24 hours of a Pending or Confirmed reservation: then `sent`, `failed` (the reason is in the `legacy_reservation.remind` audit entry), or `skipped` without a customer email; `sending` while claimed. Audited and emitted as `reservation` `remind`.',
  }),
  sku: nullable(t.String()),
  price: t.Integer({ description: 'Integer minor units.' }),
  tenderType: nullable(t.String()),
  customerCreditCardId: nullable(t.String()),
  isPriceOverride: t.Boolean(),
  isReservationDateOverride: t.Boolean(),
  isReservationLocationOverride: t.Boolean(),
  isGuestCountOverride: t.Boolean(),
  reservationThirdPartyId: nullable(t.String()),
  notes: nullable(t.String()),
  systemNote: nullable(t.String()),
  metaData: nullable(object),
  appData: nullable(object),
  appSync: nullable(object),
  flags: t.Array(t.String()),
  reservationStaff: nullable(t.Object({ id: t.String(), firstName: t.String(), lastName: t.String() })),
  reservationType: t.Object({ id: t.String(), title: t.String(), slug: t.String() }),
  createdAt: dateTime,
  updatedAt: dateTime,
})

const commonFields = {
  customerId: t.Optional(t.Nullable(t.String({ minLength: 1, maxLength: 200 }))),
  reservationTypeOptionId: t.Optional(t.Nullable(t.String({ minLength: 1, maxLength: 200 }))),
  reservationLocationTableId: text(200),
  reservationStaffId: t.Optional(t.Nullable(t.String({ minLength: 1, maxLength: 200 }))),
  isRequiresAHost: t.Optional(bool()),
  tenderType: text(50),
  notes: text(10_000),
  metaData: t.Optional(t.Nullable(object)),
  appData: t.Optional(t.Nullable(object)),
  flags: t.Optional(t.Array(t.String({ minLength: 1, maxLength: 100 }), { maxItems: 50 })),
  price: t.Optional(money({ description: 'Only with isPriceOverride.' })),
  isPriceOverride: t.Optional(bool()),
  isReservationDateOverride: t.Optional(
    bool({ description: 'Skips the time-slot and lead-time checks (staff only, never on channel Web).' }),
  ),
  isReservationLocationOverride: t.Optional(
    bool({ description: 'Allows a location outside the type’s list.' }),
  ),
  isGuestCountOverride: t.Optional(bool({ description: 'Allows a guest count outside the type’s limits.' })),
}

export const CreateLegacyReservation = t.Object(
  {
    reservationDate: t.String({
      format: 'date-time',
      description: 'The start, with Z or an offset; its local time must be a time slot of the type.',
    }),
    reservationTypeId: t.String({ minLength: 1, maxLength: 200 }),
    guestCount: int({ minimum: 1, maximum: 1000 }),
    reservationLocationId: uuid,
    inventoryLocationId: uuid,
    channel: t.Optional(oneOf(reservationChannels, { description: '`Web`: booked by the customer online.' })),
    status: t.Optional(oneOf(['Pending', 'Confirmed'] as const, { description: 'Default Pending.' })),
    experienceType: t.Optional(t.String({ minLength: 1, maxLength: 100, description: 'Default `default`.' })),
    externalReservationNumber: text(100),
    externalReservationVendor: text(100),
    reservationSource: text(100),
    reservationThirdPartyId: text(200),
    ...commonFields,
  },
  { additionalProperties: false },
)

export const UpdateLegacyReservation = t.Object(
  {
    reservationDate: t.Optional(t.String({ format: 'date-time' })),
    guestCount: t.Optional(int({ minimum: 1, maximum: 1000 })),
    reservationLocationId: t.Optional(uuid),
    inventoryLocationId: t.Optional(uuid),
    status: t.Optional(oneOf(reservationStatuses)),
    paymentStatus: t.Optional(oneOf(paymentStatuses)),
    systemNote: text(10_000),
    ...commonFields,
  },
  {
    additionalProperties: false,
    description: 'Partial: only the fields sent change; null clears an optional field.',
  },
)

export const LegacyReservationListQuery = t.Object({
  dateFrom: t.Optional(calendarDate('Local reservation date from, inclusive.')),
  dateTo: t.Optional(calendarDate('Local reservation date to, inclusive.')),
  status: t.Optional(t.Union(reservationStatuses.map((s) => t.Literal(s)))),
  reservationTypeId: t.Optional(t.String({ maxLength: 200 })),
  customerId: t.Optional(t.String({ maxLength: 200 })),
  reservationLocationId: t.Optional(t.String({ format: 'uuid' })),
  paymentStatus: t.Optional(t.Union(paymentStatuses.map((s) => t.Literal(s)))),
  ...pagingQuery(100),
})

export const LegacyReservationList = t.Object({
  reservations: t.Array(LegacyReservation),
  page: pageInfoSchema,
})
export const ReservationIdParams = t.Object({ id: t.String({ minLength: 1, maxLength: 200 }) })

export type CreateLegacyReservationInput = typeof CreateLegacyReservation.static
export type UpdateLegacyReservationInput = typeof UpdateLegacyReservation.static
export type LegacyReservationView = typeof LegacyReservation.static
