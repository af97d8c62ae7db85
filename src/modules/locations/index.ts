import { family } from '../../platform/family'
import * as model from './model'
import { locationRoutes } from './routes'

export const locationsFamily = family({
  name: 'locations',
  tags: {
    Locations:
      'The business’s locations (name, time zone, address, tax region, status); location-bound callers see their own.',
  },
  models: { locations: model },
  routes: (platform) => [locationRoutes(platform.auth)],
})

// What the other families may use.
export { Location } from './model'
export type { LocationRow } from './schema'
export {
  createLocation,
  existingLocationIds,
  findLocation,
  firstLocation,
  getLocation,
  listLocationIds,
  listLocations,
  locationTimeZones,
  onlyLocation,
  presentLocation,
  reachableLocationsPage,
} from './service'
