import type { WalkFamily } from '../family'

/**
 * Locations themselves: the record "at" a location is that location, so `create` makes nothing
 * and names it. A caller bound to A finds B 404 by id and lists only A.
 */
export const locations: WalkFamily = {
  name: 'locations',
  prefixes: ['/locations'],
  located: true,
  async create(_t, _tenant, locationId) {
    return { id: locationId }
  },
  ownerOnly: ['PUT /locations/:id', 'DELETE /locations/:id'],
}
