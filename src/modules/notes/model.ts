import { t } from 'elysia'
import { pagingQuery } from '../../platform/foundation/paging'
import { int, oneOf } from '../../platform/foundation/types'
import { noteTypes } from './schema'

const noteType = oneOf(noteTypes, {
  description: 'What kind of interaction the note records; defaults to Note.',
})

const reference = (what: string) =>
  t.Optional(
    t.Nullable(
      t.String({
        minLength: 1,
        maxLength: 200,
        description: `The ${what} the note is about: a ${what} of this tenant (400 naming the field otherwise); null clears it.`,
      }),
    ),
  )

export const Note = t.Object(
  {
    id: t.String({ format: 'uuid' }),
    type: noteType,
    content: t.String(),
    noteDate: t.String({ format: 'date' }),
    customerId: t.Nullable(t.String()),
    orderId: t.Nullable(t.String()),
    clubMembershipId: t.Nullable(t.String()),
    createdAt: t.String({ format: 'date-time' }),
    updatedAt: t.String({ format: 'date-time' }),
  },
  { $id: '#/components/schemas/Note' },
)

const noteDate = t.String({ format: 'date', description: 'The date the note is about, YYYY-MM-DD.' })
const content = t.String({ minLength: 1, maxLength: 10_000 })

const references = {
  customerId: reference('customer'),
  orderId: reference('order'),
  clubMembershipId: reference('club membership'),
}

export const CreateNote = t.Object(
  { content, noteDate, type: t.Optional(noteType), ...references },
  { additionalProperties: false },
)

export const UpdateNote = t.Object(
  { content: t.Optional(content), noteDate: t.Optional(noteDate), type: t.Optional(noteType), ...references },
  {
    additionalProperties: false,
    description: 'Partial update: only the fields sent change; null clears a reference.',
  },
)

export const NoteListQuery = t.Object({
  q: t.Optional(t.String({ maxLength: 200, description: 'Case-insensitive search over the content.' })),
  customerId: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
  orderId: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
  clubMembershipId: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
  ...pagingQuery(100),
})

export const NoteList = t.Object({ notes: t.Array(Note), total: int({ minimum: 0 }) })

export const NoteParams = t.Object({ id: t.String({ minLength: 1, maxLength: 200 }) })

export type CreateNoteInput = typeof CreateNote.static
export type UpdateNoteInput = typeof UpdateNote.static
export type NoteListFilters = Omit<typeof NoteListQuery.static, 'page' | 'limit'>
