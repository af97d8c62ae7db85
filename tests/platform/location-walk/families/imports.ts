import { upload } from '../../../modules/imports/helpers'
import type { WalkFamily } from '../family'

export const imports: WalkFamily = {
  name: 'imports',
  prefixes: ['/imports'],
  located: false,
  async create(t, tenant) {
    const file = 'External ID,First Name,Last Name,Email\nc-1,A,B,a@example.com\n'
    const res = await upload(t, file, { kind: 'customers' }, { as: tenant.owner, tenant })
    if (res.status !== 202) throw new Error(`fixture POST /imports: ${res.status} ${res.text}`)
    return { id: res.body.id }
  },
}
