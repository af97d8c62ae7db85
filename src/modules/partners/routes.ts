import { Elysia } from 'elysia'
import type { AuthPlugin } from '../../platform/auth/plugin'
import {
  ConnectedPage,
  ConnectedQuery,
  PartnerRestaurantList,
  RestaurantDetail,
  RestaurantParams,
} from './model'
import { connectedRestaurants, getRestaurant, listRestaurants } from './service'

export const partnerRoutes = (auth: AuthPlugin) =>
  new Elysia({ name: 'partners', detail: { tags: ['Partners'] } })
    .use(auth)
    .get('/partners/v1/restaurants', ({ db, tenant, locations }) => listRestaurants(db, tenant, locations), {
      permission: 'partners:read',
      response: PartnerRestaurantList,
      detail: {
        summary: 'List restaurants',
        description:
          'A bare array: every location of this tenant as a restaurant (id, names, time zone, address), oldest first. A caller bound to one location (passcode session, location-scoped role) sees only it.',
      },
    })
    .get(
      '/partners/v1/connectedRestaurants',
      ({ db, tenant, locations, query }) => connectedRestaurants(db, tenant, locations, query),
      {
        permission: 'partners:read',
        query: ConnectedQuery,
        response: ConnectedPage,
        detail: {
          summary: 'Page through connected restaurants',
          description:
            'The restaurants (locations) connected to this tenant, in pages of `pageSize` (1..200, default 100), oldest first. Pass `nextPageToken` as `pageToken` for the next page; it is null on the last page. Pages are keyset pages: locations created meanwhile are neither skipped nor repeated. A token this service did not issue is 400.',
        },
      },
    )
    .get(
      '/restaurants/v1/restaurants/:id',
      ({ db, tenant, locations, params }) => getRestaurant(db, tenant, locations, params.id),
      {
        permission: 'partners:read',
        params: RestaurantParams,
        response: RestaurantDetail,
        detail: {
          summary: 'Get a restaurant',
          description:
            'General settings (business and location name, time zone, currency, closeout hour: business dates are calendar days in the location’s time zone) and the address. An unknown id, or another tenant’s, is 404.',
        },
      },
    )
