import { t } from 'elysia'
import { pagingQuery } from '../../platform/foundation/paging'
import { bool, freeForm, int, money, oneOf } from '../../platform/foundation/types'
import { SLUG_PATTERN } from '../../platform/slug'
import { TIME_PATTERN } from '../experiences'
import { daysOfWeek, paymentCharges } from './schema'

const uuid = t.String({ format: 'uuid' })
const dateTime = t.String({ format: 'date-time' })
const text = (max: number) => t.Optional(t.Nullable(t.String({ maxLength: max })))
const object = freeForm()

export const ReservationTypeOption = t.Object({
  id: uuid,
  reservationTypeId: uuid,
  title: t.String(),
  sku: t.Nullable(t.String()),
  price: t.Integer({ description: 'Per guest, integer minor units.' }),
  taxCode: t.Nullable(t.String()),
  sortOrder: t.Integer(),
  createdAt: dateTime,
  updatedAt: dateTime,
})

export const ReservationTypeTime = t.Object({
  id: uuid,
  reservationTypeTimeSlotId: uuid,
  time: t.String(),
  allowCustomersToReserveOnline: t.Boolean(),
  createdAt: dateTime,
  updatedAt: dateTime,
})

export const ReservationTypeTimeSlot = t.Object({
  id: uuid,
  reservationTypeId: uuid,
  dayOfWeek: t.String(),
  times: t.Array(ReservationTypeTime),
  createdAt: dateTime,
  updatedAt: dateTime,
})

export const ReservationType = t.Object({
  id: uuid,
  title: t.String(),
  slug: t.String(),
  status: t.String(),
  type: t.Nullable(t.String()),
  tourType: t.Nullable(t.String()),
  inventoryLocationId: t.Nullable(t.String()),
  reservationLocationId: t.Nullable(t.String()),
  defaultReservationLocationId: t.Nullable(t.String()),
  reservationLocationIds: t.Array(t.String()),
  paymentCharge: t.String(),
  minGuestCount: t.Integer(),
  maxGuestCount: t.Integer(),
  maxGroupCount: t.Nullable(t.Integer()),
  minutesAllotted: t.Integer(),
  minutesBeforeLocationInUse: t.Integer(),
  leadTimeInHours: t.Integer(),
  isRequiresAHost: t.Boolean(),
  isAlwaysOccursInDefaultLocation: t.Boolean(),
  allowOnlineCancel: t.Boolean(),
  onlineCancelDeadlineInHours: t.Nullable(t.Integer()),
  emailInstructions: t.Nullable(t.String()),
  content: t.Nullable(t.String()),
  image: t.Nullable(t.String()),
  seoTitle: t.Nullable(t.String()),
  seoDescription: t.Nullable(t.String()),
  metaData: t.Nullable(object),
  security: t.Nullable(object),
  options: t.Array(ReservationTypeOption),
  timeSlots: t.Array(ReservationTypeTimeSlot),
  createdAt: dateTime,
  updatedAt: dateTime,
})

const OptionInput = t.Object(
  {
    title: t.String({ minLength: 1, maxLength: 200 }),
    sku: text(100),
    price: money({ description: 'Per guest, integer minor units.' }),
    taxCode: text(50),
    sortOrder: t.Optional(int({ minimum: 0, maximum: 100_000 })),
  },
  { additionalProperties: false },
)

const TimeSlotInput = t.Object(
  {
    dayOfWeek: oneOf(daysOfWeek),
    times: t.Array(
      t.Object(
        {
          time: t.String({
            pattern: TIME_PATTERN,
            description: 'Local `HH:MM` at the reservation location.',
          }),
          allowCustomersToReserveOnline: t.Optional(bool({ description: 'Default true.' })),
        },
        { additionalProperties: false },
      ),
      { maxItems: 96 },
    ),
  },
  { additionalProperties: false },
)

const typeFields = {
  slug: t.Optional(t.String({ pattern: SLUG_PATTERN, maxLength: 100 })),
  status: t.Optional(oneOf(['active', 'inactive'] as const)),
  type: text(100),
  tourType: text(100),
  inventoryLocationId: t.Optional(t.Nullable(uuid)),
  reservationLocationId: t.Optional(t.Nullable(uuid)),
  defaultReservationLocationId: t.Optional(t.Nullable(uuid)),
  reservationLocationIds: t.Optional(t.Array(uuid, { maxItems: 100, uniqueItems: true })),
  paymentCharge: t.Optional(oneOf(paymentCharges)),
  minGuestCount: t.Optional(int({ minimum: 1, maximum: 1000 })),
  maxGuestCount: t.Optional(int({ minimum: 1, maximum: 1000 })),
  maxGroupCount: t.Optional(t.Nullable(int({ minimum: 1, maximum: 1000 }))),
  minutesAllotted: t.Optional(int({ minimum: 1, maximum: 1440 })),
  minutesBeforeLocationInUse: t.Optional(int({ minimum: 0, maximum: 1440 })),
  leadTimeInHours: t.Optional(int({ minimum: 0, maximum: 8760 })),
  isRequiresAHost: t.Optional(bool()),
  isAlwaysOccursInDefaultLocation: t.Optional(bool()),
  allowOnlineCancel: t.Optional(bool()),
  onlineCancelDeadlineInHours: t.Optional(t.Nullable(int({ minimum: 0, maximum: 8760 }))),
  emailInstructions: text(10_000),
  content: text(50_000),
  image: text(2000),
  seoTitle: text(200),
  seoDescription: text(1000),
  metaData: t.Optional(t.Nullable(object)),
  security: t.Optional(t.Nullable(object)),
  options: t.Optional(t.Array(OptionInput, { maxItems: 100 })),
  timeSlots: t.Optional(t.Array(TimeSlotInput, { maxItems: 7 })),
}

export const CreateReservationType = t.Object(
  { title: t.String({ minLength: 1, maxLength: 200 }), ...typeFields },
  { additionalProperties: false },
)

export const UpdateReservationType = t.Object(
  { title: t.Optional(t.String({ minLength: 1, maxLength: 200 })), ...typeFields },
  {
    additionalProperties: false,
    description:
      'Partial: fields not sent keep their value; `options` and `timeSlots`, when sent, replace all.',
  },
)

export const ReservationTypeListQuery = t.Object({
  q: t.Optional(t.String({ maxLength: 200, description: 'Case-insensitive search over title and slug.' })),
  status: t.Optional(t.Union([t.Literal('active'), t.Literal('inactive')])),
  ...pagingQuery(100),
})

export const ReservationTypeList = t.Object({
  reservationTypes: t.Array(ReservationType),
  total: t.Integer(),
})
export const IdParams = t.Object({ id: t.String({ minLength: 1, maxLength: 200 }) })

export type CreateReservationTypeInput = typeof CreateReservationType.static
export type UpdateReservationTypeInput = typeof UpdateReservationType.static
export type ReservationTypeView = typeof ReservationType.static
