import { t } from 'elysia'
import { pageInfoSchema, pagingQuery } from '../../platform/foundation/paging'
import { bool, int, money, oneOf } from '../../platform/foundation/types'
import { TIME_PATTERN } from './clock'
import { paymentOptions } from './schema'

const uuid = t.String({ format: 'uuid' })
const dateTime = t.String({ format: 'date-time' })

export const paymentOptionSchema = oneOf(paymentOptions, {
  description:
    '`none`: free; `pay_at_venue`: the price is settled at the restaurant; `paid`, `prepaid`, `deposit`, ' +
    '`card_hold`: a payment (or card hold) must be taken first, so the tables API refuses them with 402.',
})

const ScheduleSlotFields = {
  daysOfWeek: t.Array(int({ minimum: 0, maximum: 6 }), {
    minItems: 1,
    maxItems: 7,
    uniqueItems: true,
    description: '0 = Sunday .. 6 = Saturday, in the location’s time zone.',
  }),
  times: t.Array(t.String({ pattern: TIME_PATTERN }), {
    minItems: 1,
    maxItems: 96,
    uniqueItems: true,
    description: 'Local start times `HH:MM` (24 h) in the location’s time zone.',
  }),
  capacity: int({ minimum: 1, maximum: 10_000, description: 'Covers (guests) bookable per start time.' }),
}

export const ScheduleSlot = t.Object({
  ...ScheduleSlotFields,
  priceAmount: t.Integer({ minimum: 0, description: 'Per guest, integer minor units.' }),
  currency: t.String(),
  paymentOption: paymentOptionSchema,
})

export const ScheduleSlotInput = t.Object(
  {
    ...ScheduleSlotFields,
    priceAmount: t.Optional(money({ description: 'Per guest, integer minor units (default 0).' })),
    currency: t.Optional(t.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 (default USD).' })),
    paymentOption: t.Optional(paymentOptionSchema),
  },
  { additionalProperties: false },
)

export const ExperienceVersion = t.Object({
  id: uuid,
  experienceId: uuid,
  versionNumber: t.Integer({ minimum: 1 }),
  publicName: t.String(),
  description: t.Nullable(t.String()),
  partyMin: t.Integer({ minimum: 1 }),
  partyMax: t.Integer({ minimum: 1 }),
  cutoffMinutes: t.Integer({ minimum: 0 }),
  durationMinutes: t.Integer({ minimum: 1 }),
  visibility: t.Union([t.Literal('public'), t.Literal('private')]),
  schedule: t.Array(ScheduleSlot),
  publishedAt: dateTime,
})

export const Experience = t.Object({
  id: uuid,
  name: t.String(),
  locationId: uuid,
  status: t.Union([t.Literal('draft'), t.Literal('published'), t.Literal('archived')], {
    description:
      '`draft` until the first publish; `archived` while archived (restoring returns the previous one).',
  }),
  currentVersion: t.Nullable(ExperienceVersion),
  archivedAt: t.Nullable(dateTime),
  createdAt: dateTime,
  updatedAt: dateTime,
})

export const ExperienceData = t.Object({ data: Experience })
export const ExperienceVersionData = t.Object({ data: ExperienceVersion })
export const ExperienceList = t.Object({ data: t.Array(Experience), page: pageInfoSchema })

export const ExperienceListQuery = t.Object({
  status: t.Optional(t.Union([t.Literal('draft'), t.Literal('published'), t.Literal('archived')])),
  locationId: t.Optional(t.String({ format: 'uuid' })),
  q: t.Optional(t.String({ maxLength: 200, description: 'Case-insensitive search over the name.' })),
  ...pagingQuery(100),
})

export const CreateExperience = t.Object(
  {
    name: t.String({ minLength: 1, maxLength: 200 }),
    locationId: t.Optional(
      t.String({
        format: 'uuid',
        description: 'Where it is held; default `x-location-id`, else the tenant’s only location.',
      }),
    ),
  },
  { additionalProperties: false },
)

export const PublishExperience = t.Object(
  {
    publicName: t.String({ minLength: 1, maxLength: 200 }),
    partyMin: int({ minimum: 1, maximum: 1000 }),
    partyMax: int({ minimum: 1, maximum: 1000 }),
    cutoffMinutes: int({
      minimum: 0,
      maximum: 525_600,
      description: 'Bookings close this many minutes before a start time.',
    }),
    description: t.Optional(t.Nullable(t.String({ maxLength: 5000 }))),
    durationMinutes: t.Optional(
      int({
        minimum: 5,
        maximum: 1440,
        description: 'Length of a booking (default: the previous version’s, else 90).',
      }),
    ),
    visibility: t.Optional(oneOf(['public', 'private'] as const)),
    schedule: t.Optional(
      t.Array(ScheduleSlotInput, {
        maxItems: 50,
        description:
          'When it can be booked. Omitted: the previous version’s schedule (none on a first publish).',
      }),
    ),
  },
  { additionalProperties: false },
)

export const PrivateLink = t.Object({
  experienceId: uuid,
  token: t.String(),
  path: t.String({
    description: 'The booking path a guest opens; availability takes the token as `privateLink`.',
  }),
  rotatedAt: t.Nullable(dateTime),
})
export const PrivateLinkData = t.Object({ data: PrivateLink })

export const ExperienceParams = t.Object({ id: t.String({ format: 'uuid' }) })

export const LocationMapping = t.Object({
  tenantLocationCode: t.String(),
  locationId: uuid,
  publicSlug: t.String(),
  publicName: t.String(),
  isPublic: t.Boolean(),
  createdAt: dateTime,
  updatedAt: dateTime,
})
export const LocationMappingData = t.Object({ data: LocationMapping })

export const PutLocationMapping = t.Object(
  {
    tenantLocationCode: t.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]*$' }),
    publicSlug: t.String({ minLength: 1, maxLength: 100, pattern: '^[a-z0-9]+(?:-[a-z0-9]+)*$' }),
    publicName: t.String({ minLength: 1, maxLength: 200 }),
    isPublic: bool(),
    locationId: t.Optional(
      t.String({
        format: 'uuid',
        description: 'The location the public page books into; default `x-location-id`, else the only one.',
      }),
    ),
  },
  { additionalProperties: false },
)

export const ScheduleEntry = t.Object({
  experienceId: uuid,
  experienceVersionId: uuid,
  name: t.String(),
  publicName: t.String(),
  locationId: uuid,
  timeZone: t.String(),
  visibility: t.Union([t.Literal('public'), t.Literal('private')]),
  partyMin: t.Integer(),
  partyMax: t.Integer(),
  cutoffMinutes: t.Integer(),
  durationMinutes: t.Integer(),
  slots: t.Array(ScheduleSlot),
})
export const ScheduleList = t.Object({ data: t.Array(ScheduleEntry) })
export const ScheduleQuery = t.Object({
  locationId: t.Optional(t.String({ format: 'uuid' })),
  experienceId: t.Optional(t.String({ format: 'uuid' })),
})

export type CreateExperienceInput = typeof CreateExperience.static
export type PublishExperienceInput = typeof PublishExperience.static
export type PutLocationMappingInput = typeof PutLocationMapping.static
export type ExperienceView = typeof Experience.static
export type ExperienceVersionView = typeof ExperienceVersion.static
