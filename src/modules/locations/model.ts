import { t } from 'elysia'
import { pageInfoSchema, pagingQuery } from '../../platform/foundation/paging'
import { oneOf } from '../../platform/foundation/types'
import { locationStatuses } from './schema'

const status = oneOf(locationStatuses, {
  description:
    '`inactive`: kept, with everything recorded there, but closed. A location with records is deactivated rather than deleted.',
})

const optionalText = (max: number) => t.Optional(t.Nullable(t.String({ minLength: 1, maxLength: max })))

const addressFields = {
  line1: optionalText(200),
  line2: optionalText(200),
  city: optionalText(100),
  stateCode: optionalText(10),
  postalCode: optionalText(20),
  countryCode: t.Optional(
    t.Nullable(t.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2.' })),
  ),
}

const LocationAddress = t.Object({
  line1: t.Nullable(t.String()),
  line2: t.Nullable(t.String()),
  city: t.Nullable(t.String()),
  stateCode: t.Nullable(t.String()),
  postalCode: t.Nullable(t.String()),
  countryCode: t.Nullable(t.String()),
})

const taxRegion = t.String({
  pattern: '^[A-Z]{2}(-[A-Z0-9]{1,3})?$',
  description: 'Where the location is taxed: an ISO 3166-2 subdivision (`US-CA`) or a country (`FR`).',
})

const timeZone = t.String({
  minLength: 1,
  maxLength: 100,
  description: 'IANA time zone, e.g. `America/Los_Angeles`.',
})

export const Location = t.Object(
  {
    id: t.String({ format: 'uuid' }),
    name: t.String(),
    timeZone: t.String(),
    status,
    address: LocationAddress,
    phone: t.Nullable(t.String()),
    taxRegion: t.Nullable(t.String()),
    createdAt: t.String({ format: 'date-time' }),
    updatedAt: t.String({ format: 'date-time' }),
  },
  { description: 'A place the business operates: a tasting room, a restaurant, a shop.' },
)

export const CreateLocation = t.Object(
  {
    name: t.String({ minLength: 1, maxLength: 200 }),
    timeZone: t.Optional(
      t.String({
        minLength: 1,
        maxLength: 100,
        description: "IANA time zone, e.g. `America/Los_Angeles`. Omitted: the tenant's time zone.",
      }),
    ),
    address: t.Optional(t.Object(addressFields, { additionalProperties: false })),
    phone: optionalText(50),
    taxRegion: t.Optional(t.Nullable(taxRegion)),
  },
  { additionalProperties: false },
)

export const UpdateLocation = t.Object(
  {
    name: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
    timeZone: t.Optional(timeZone),
    address: t.Optional(
      t.Object(addressFields, {
        additionalProperties: false,
        description: 'Only the address fields sent change; null clears one.',
      }),
    ),
    phone: optionalText(50),
    taxRegion: t.Optional(t.Nullable(taxRegion)),
    status: t.Optional(status),
  },
  {
    additionalProperties: false,
    description: 'Partial update: only the fields sent change; null clears a field.',
  },
)

export const LocationListQuery = t.Object({
  status: t.Optional(oneOf(locationStatuses)),
  q: t.Optional(t.String({ maxLength: 200, description: 'Case-insensitive search over name and city.' })),
  ...pagingQuery(100),
})

export const LocationList = t.Object({ locations: t.Array(Location), page: pageInfoSchema })

export const LocationParams = t.Object({ id: t.String({ minLength: 1, maxLength: 200 }) })

export const RemovedLocation = t.Object({
  outcome: t.Union([t.Literal('deleted'), t.Literal('deactivated')], {
    description: '`deactivated` when records were made at the location: those keep their history.',
  }),
  location: Location,
})

export type CreateLocationInput = typeof CreateLocation.static
export type UpdateLocationInput = typeof UpdateLocation.static
