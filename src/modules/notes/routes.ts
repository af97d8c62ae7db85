import { Elysia, t } from 'elysia'
import type { AuthPlugin } from '../../platform/auth/plugin'
import { pageOf } from '../../platform/foundation/paging'
import { CreateNote, Note, NoteList, NoteListQuery, NoteParams, UpdateNote } from './model'
import { createNote, deleteNote, getNote, listNotes, noteLocation, updateNote } from './service'

export const noteRoutes = (auth: AuthPlugin) =>
  new Elysia({ name: 'notes', prefix: '/note', detail: { tags: ['Notes'] } })
    .use(auth)
    .get(
      '',
      ({ db, query, locations }) =>
        listNotes(db, locations, {
          q: query.q,
          customerId: query.customerId,
          orderId: query.orderId,
          clubMembershipId: query.clubMembershipId,
          ...pageOf(query),
        }),
      {
        permission: 'notes:read',
        query: NoteListQuery,
        response: NoteList,
        detail: {
          summary: 'List notes',
          description:
            'Newest `noteDate` first. `q` searches the content; `customerId` (a merged-away id follows the merge), `orderId` and `clubMembershipId` filter exactly and combine with AND. A note about an order lives where the order does: a caller bound to some locations lists notes of orders there and notes about no order (`total` counts the same), and gets 404 for the others by id.',
        },
      },
    )
    .post(
      '',
      ({ db, actor, body, set, locations }) => {
        set.status = 201
        return createNote(db, actor, locations, body)
      },
      {
        permission: 'notes:write',
        body: CreateNote,
        response: { 201: Note },
        detail: {
          summary: 'Create a note',
          description:
            '`content` and `noteDate` (a calendar date, YYYY-MM-DD) are required; `type` defaults to Note. `customerId`, `orderId` and `clubMembershipId` must name records of this tenant, an order at a location the caller reaches (400 naming each bad field); a customer id merged away is stored as the customer it was merged into. A customer merge moves its notes to the primary; a customer with notes cannot be deleted (409).',
        },
      },
    )
    .get('/:id', ({ db, params }) => getNote(db, params.id), {
      permission: 'notes:read',
      locatedBy: noteLocation,
      params: NoteParams,
      response: Note,
      detail: { summary: 'Get a note' },
    })
    .put(
      '/:id',
      ({ db, actor, params, body, locations }) => updateNote(db, actor, locations, params.id, body),
      {
        permission: 'notes:write',
        locatedBy: noteLocation,
        params: NoteParams,
        body: UpdateNote,
        response: Note,
        detail: {
          summary: 'Update a note',
          description:
            'Partial: fields not sent keep their value; null clears a reference. References sent are checked as on create.',
        },
      },
    )
    .delete(
      '/:id',
      ({ db, actor, params, set }) => {
        deleteNote(db, actor, params.id)
        set.status = 204
      },
      {
        permission: 'notes:write',
        locatedBy: noteLocation,
        params: NoteParams,
        response: { 204: t.Void() },
        detail: { summary: 'Delete a note', description: 'Answers 204 with no body.' },
      },
    )
