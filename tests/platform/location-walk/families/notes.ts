import { made, type WalkFamily } from '../family'

export const notes: WalkFamily = {
  name: 'notes',
  prefixes: ['/note'],
  located: false,
  async create(t, tenant) {
    const note = await made(t, tenant, 'POST', '/note', { content: 'Called back', noteDate: '2031-03-14' })
    return { id: note.id }
  },
}
