import { newId } from '../../../../src/platform/foundation/ids'
import { made, type WalkFamily } from '../family'

export const apps: WalkFamily = {
  name: 'apps',
  prefixes: ['/apps', '/app-sync', '/app-syncs'],
  located: false,
  async create(t, tenant) {
    const app = await made(t, tenant, 'POST', '/apps', { slug: newId(), name: 'Accounting sync' })
    const objectId = newId()
    await made(t, tenant, 'POST', '/app-sync', {
      appId: app.id,
      objectType: 'customer',
      objectId,
      status: 'Success',
    })
    return { id: app.id, objectId }
  },
}
