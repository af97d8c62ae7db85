import { t } from 'elysia'

export const RestaurantAddress = t.Object({
  address1: t.Nullable(t.String()),
  address2: t.Nullable(t.String()),
  city: t.Nullable(t.String()),
  stateCode: t.Nullable(t.String()),
  zipCode: t.Nullable(t.String()),
  country: t.Nullable(t.String()),
  phone: t.Nullable(t.String()),
})

export const PartnerRestaurant = t.Object({
  id: t.String({ description: 'The location id.' }),
  restaurantGuid: t.String({ description: 'The location id (Toast’s name for it).' }),
  managementGroupGuid: t.String({ description: 'The tenant id.' }),
  name: t.String({ description: 'The location name.' }),
  restaurantName: t.String({ description: 'The tenant (business) name.' }),
  locationName: t.String(),
  timeZone: t.String({ description: 'IANA time zone of the location.' }),
  address: RestaurantAddress,
  createdDate: t.String({ format: 'date-time' }),
  modifiedDate: t.String({ format: 'date-time' }),
})

export const PartnerRestaurantList = t.Array(PartnerRestaurant)

export const ConnectedQuery = t.Object({
  pageSize: t.Optional(
    t.Integer({
      minimum: 1,
      maximum: 200,
      default: 100,
      description: 'Results per page, 1..200 (default 100).',
    }),
  ),
  pageToken: t.Optional(
    t.String({
      minLength: 1,
      maxLength: 500,
      description: 'The `nextPageToken` of the previous page; opaque.',
    }),
  ),
})

export const ConnectedPage = t.Object({
  results: t.Array(PartnerRestaurant),
  pageSize: t.Integer(),
  currentPageNum: t.Integer({ minimum: 1 }),
  currentPageToken: t.Nullable(t.String()),
  nextPageToken: t.Nullable(t.String({ description: 'null on the last page.' })),
  totalResultCount: t.Integer(),
  lastPage: t.Boolean(),
})

export const RestaurantParams = t.Object({ id: t.String({ minLength: 1, maxLength: 200 }) })

export const RestaurantDetail = t.Object({
  guid: t.String(),
  general: t.Object({
    name: t.String({ description: 'The tenant (business) name.' }),
    locationName: t.String(),
    timeZone: t.String(),
    managementGroupGuid: t.String(),
    currencyCode: t.String(),
    closeoutHour: t.Integer({ description: 'Business days start at this local hour (0: midnight).' }),
  }),
  location: RestaurantAddress,
  createdDate: t.String(),
  modifiedDate: t.String(),
})
