import { newId } from '../../../../src/platform/foundation/ids'
import { made, type WalkFamily } from '../family'

export const clubs: WalkFamily = {
  name: 'clubs',
  prefixes: ['/club', '/clubs'],
  located: false,
  async create(t, tenant) {
    const club = await made(t, tenant, 'POST', '/club', { title: 'Reserve club', slug: newId() })
    return { id: club.id }
  },
}
