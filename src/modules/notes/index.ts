import { CRUD } from '../../platform/events/catalogue'
import { family } from '../../platform/family'
import { registerNotesHooks } from './hooks'
import * as model from './model'
import { Note } from './model'
import { noteRoutes } from './routes'

export const notesFamily = family({
  name: 'notes',
  tags: {
    Notes: 'Notes on customers and other records.',
  },
  models: { notes: model },
  events: [
    {
      object: 'note',
      readPermission: 'notes:read',
      actions: CRUD,
      emittedBy: '`/note`',
      payload: 'the note',
      schema: Note,
    },
  ],
  hooks: registerNotesHooks,
  routes: (platform) => [noteRoutes(platform.auth)],
})

// What the other families may use.
export { createNote } from './service'
