// The wine reference lists are seeded (read-only) into every tenant: a family of each names one of
// its seeded rows rather than making one.
import { made, type WalkFamily } from '../family'

const seeded = (name: string, path: string, key: string): WalkFamily => ({
  name,
  prefixes: [path],
  located: false,
  async create(t, tenant) {
    const list = await made(t, tenant, 'GET', path)
    return { id: list[key][0].id }
  },
})

export const wineAppellations = seeded('wine appellations', '/wine-appellation', 'wineAppellations')
export const wineVarietals = seeded('wine varietals', '/wine-varietal', 'wineVarietals')
