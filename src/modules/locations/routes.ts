import { Elysia } from 'elysia'
import { locatedRow } from '../../platform/auth/location-scope'
import type { AuthPlugin } from '../../platform/auth/plugin'
import { pageOf } from '../../platform/foundation/paging'
import {
  CreateLocation,
  Location,
  LocationList,
  LocationListQuery,
  LocationParams,
  RemovedLocation,
  UpdateLocation,
} from './model'
import { locations } from './schema'
import {
  createLocationFromApi,
  getLocationView,
  pageLocations,
  removeLocation,
  updateLocation,
} from './service'

/** A location lives at itself: a caller bound to other locations finds it 404. */
const locationLocated = locatedRow('location', locations, locations.id, locations.id)

export const locationRoutes = (auth: AuthPlugin) =>
  new Elysia({ name: 'locations', prefix: '/locations', detail: { tags: ['Locations'] } })
    .use(auth)
    .get(
      '',
      ({ db, locations: scope, query }) =>
        pageLocations(db, scope, { status: query.status, q: query.q, ...pageOf(query) }),
      {
        permission: 'locations:read',
        query: LocationListQuery,
        response: LocationList,
        detail: {
          summary: 'List locations',
          description:
            'Oldest first. A caller bound to some locations (a location-scoped role, a passcode session, `x-location-id`) lists only those.',
        },
      },
    )
    .post(
      '',
      ({ db, actor, tenant, body, set }) => {
        set.status = 201
        return createLocationFromApi(db, actor, body, tenant.timezone)
      },
      {
        permission: 'locations:manage',
        body: CreateLocation,
        response: { 201: Location },
        detail: { summary: 'Create a location', description: 'An unknown IANA time zone is 400.' },
      },
    )
    .get('/:id', ({ db, params }) => getLocationView(db, params.id), {
      permission: 'locations:read',
      locatedBy: locationLocated,
      params: LocationParams,
      response: Location,
      detail: { summary: 'Get a location' },
    })
    .put('/:id', ({ db, actor, params, body }) => updateLocation(db, actor, params.id, body), {
      permission: 'locations:manage',
      locatedBy: locationLocated,
      params: LocationParams,
      body: UpdateLocation,
      response: Location,
      detail: {
        summary: 'Update a location',
        description: 'Partial. `status: active` reopens a deactivated location.',
      },
    })
    .delete('/:id', ({ db, actor, params }) => removeLocation(db, actor, params.id), {
      permission: 'locations:manage',
      locatedBy: locationLocated,
      params: LocationParams,
      response: RemovedLocation,
      detail: {
        summary: 'Delete or deactivate a location',
        description:
          'A location nothing was ever recorded at (no order, drawer, shift, role, stock...) is deleted. One with records is deactivated instead (`outcome: deactivated`, `status: inactive`): its records keep their history.',
      },
    })
