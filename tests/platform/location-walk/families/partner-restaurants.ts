import type { WalkFamily } from '../family'

/** The partner routes show the tenant's locations as restaurants: the record IS the location. */
export const partnerRestaurants: WalkFamily = {
  name: 'partner restaurants',
  prefixes: ['/restaurants/v1/restaurants', '/partners/v1'],
  located: true,
  create: async (_t, _tenant, locationId) => ({ id: locationId }),
}
