import { Elysia } from 'elysia'
import type { AuthPlugin } from '../../platform/auth/plugin'
import { pageOf } from '../../platform/foundation/paging'
import { Club, ClubList, ClubListQuery, ClubParams, CreateClub, UpdateClub } from './model'
import { createClub, deleteClub, getClub, listClubs, updateClub } from './service'

/** One implementation, mounted at `/club` and at `/clubs`. */
const clubResource = (auth: AuthPlugin, prefix: string) =>
  new Elysia({ name: `clubs${prefix}`, prefix, detail: { tags: ['Clubs'] } })
    .use(auth)
    .get('', ({ db, query }) => listClubs(db, { q: query.q, ...pageOf(query) }), {
      permission: 'clubs:read',
      query: ClubListQuery,
      response: ClubList,
      detail: { summary: 'List clubs', description: 'Ordered by title; `q` matches title or slug.' },
    })
    .post(
      '',
      ({ db, actor, body, set }) => {
        set.status = 201
        return createClub(db, actor, body)
      },
      {
        permission: 'clubs:write',
        body: CreateClub,
        response: { 201: Club },
        detail: {
          summary: 'Create a club',
          description:
            'A duplicate `slug` is 409. Defaults: `type` Traditional, both statuses Available, `cadence` every 3 months (quarterly releases).',
        },
      },
    )
    .get('/:id', ({ db, params }) => getClub(db, params.id), {
      permission: 'clubs:read',
      params: ClubParams,
      response: Club,
      detail: { summary: 'Get a club' },
    })
    .put('/:id', ({ db, actor, params, body }) => updateClub(db, actor, params.id, body), {
      permission: 'clubs:write',
      params: ClubParams,
      body: UpdateClub,
      response: Club,
      detail: {
        summary: 'Update a club',
        description:
          'Partial: fields not sent keep their value. A new `cadence` moves the next process date of every live membership that has no `cadenceOverride`.',
      },
    })
    .delete('/:id', ({ db, actor, params }) => deleteClub(db, actor, params.id), {
      permission: 'clubs:write',
      params: ClubParams,
      response: Club,
      detail: {
        summary: 'Delete a club',
        description:
          'Answers the deleted club. Refused (409) once the club has memberships; mark it Not Available instead.',
      },
    })

export const clubRoutes = (auth: AuthPlugin) =>
  new Elysia({ name: 'clubs' }).use(clubResource(auth, '/club')).use(clubResource(auth, '/clubs'))
