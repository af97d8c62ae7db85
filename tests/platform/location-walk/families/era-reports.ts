// ERA reports: a report requested for a restaurant is that restaurant's record. One family per
// kind, since a report's id is found only by its own kind's routes.
import { made, type WalkFamily } from '../family'

const kinds = ['metrics', 'check', 'labor', 'menu'] as const

/** A report request on one restaurant (`restaurantIds` names locations the sample cannot tell). */
const requestAt = (locationId: string) => ({
  startBusinessDate: '2031-03-01',
  endBusinessDate: '2031-03-14',
  restaurantIds: [locationId],
})

export const eraReports: WalkFamily[] = kinds.map((kind) => ({
  name: `ERA ${kind} reports`,
  prefixes: [`/era/v1/${kind}`],
  located: true,
  async create(t, tenant, locationId) {
    return { param: await made(t, tenant, 'POST', `/era/v1/${kind}`, requestAt(locationId)) }
  },
  requests: { [`POST /era/v1/${kind}`]: (locationId) => ({ body: requestAt(locationId) }) },
}))
