import { newId } from '../../../../src/platform/foundation/ids'
import { made, type WalkFamily } from '../family'

export const tags: WalkFamily = {
  name: 'tags',
  prefixes: ['/tag'],
  located: false,
  async create(t, tenant) {
    const tag = await made(t, tenant, 'POST', '/tag/customer', { title: `Regular ${newId()}` })
    return { objectType: 'customer', id: tag.id }
  },
}
