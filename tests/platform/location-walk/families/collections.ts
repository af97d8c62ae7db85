import { made, type WalkFamily } from '../family'

export const collections: WalkFamily = {
  name: 'collections',
  prefixes: ['/collection', '/collections'],
  located: false,
  async create(t, tenant) {
    const collection = await made(t, tenant, 'POST', '/collection', { title: 'Summer whites' })
    return { id: collection.id }
  },
}
