import { made, type WalkFamily } from '../family'

export const media: WalkFamily = {
  name: 'media',
  prefixes: ['/media/assets', '/media/uploads/direct'],
  located: true,
  async create(t, tenant, locationId) {
    const upload = await made(t, tenant, 'POST', '/media/uploads/direct', { kind: 'logo', locationId })
    return { id: upload.asset.id }
  },
}
