import { made, type WalkFamily } from '../family'

export const vendors: WalkFamily = {
  name: 'vendors',
  prefixes: ['/vendor'],
  located: false,
  async create(t, tenant) {
    const vendor = await made(t, tenant, 'POST', '/vendor', { name: 'Napa Glass Co' })
    return { id: vendor.id }
  },
}
