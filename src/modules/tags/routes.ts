import { Elysia, t } from 'elysia'
import type { AuthPlugin } from '../../platform/auth/plugin'
import { pageOf } from '../../platform/foundation/paging'
import { CreateTag, Tag, TagList, TagListQuery, TagParams, TagTypeParams, UpdateTag } from './model'
import { createTag, deleteTag, listTags, tagObjectType, updateTag } from './service'
import { getTag } from './tag-row'

export const tagRoutes = (auth: AuthPlugin) =>
  new Elysia({ name: 'tags', prefix: '/tag', detail: { tags: ['Tags'] } })
    .use(auth)
    .get(
      '/:objectType',
      ({ db, params, query }) =>
        listTags(db, tagObjectType(params.objectType), { q: query.q, type: query.type, ...pageOf(query) }),
      {
        permission: 'tags:read',
        params: TagTypeParams,
        query: TagListQuery,
        response: TagList,
        detail: {
          summary: 'List tags of an object type',
          description:
            'Object types: `customer`, `club-membership`, `order`, `reservation` (anything else is 404). Ordered by title; `q` matches the title, `type` filters Manual or Dynamic.',
        },
      },
    )
    .post(
      '/:objectType',
      ({ db, actor, params, body, set }) => {
        const objectType = tagObjectType(params.objectType)
        set.status = 201
        return createTag(db, actor, objectType, body)
      },
      {
        permission: 'tags:write',
        params: TagTypeParams,
        body: CreateTag,
        response: { 201: Tag },
        detail: {
          summary: 'Create a tag',
          description:
            '`type` defaults to Manual. Dynamic tags need 1..25 `conditions` whose `field` is a field of the object type and whose `operator` and `value` suit that field (400 naming the condition otherwise); `appliesToCondition` defaults to All. Titles are unique per object type, case-insensitively (409). ' +
            'A Dynamic tag is back-filled at once: every record of its object type whose fields meet its conditions carries it. From then on each record is re-evaluated, in the same transaction, whenever it is created or changed (a customer also when one of its orders or club memberships is): it gains or loses the tag accordingly. Customer fields `city`, `region`, `postalCode` and `countryCode` are those of its first address; `orderCount`, `lifetimeValue` (cents) and `lastOrderDate` count its paid and closed orders; `clubMembershipCount` its memberships not cancelled. Reservation tags test legacy reservations (`/reservation`), `locationId` being the reservation location. `withinLastDays` is evaluated on the day of the write. ' +
            'Each attachment or detachment the conditions make is audited on the record (`tag.attach` / `tag.detach`, metadata `byConditions: true`) and emits `tag.attach` / `tag.detach`.',
        },
      },
    )
    .get('/:objectType/:id', ({ db, params }) => getTag(db, tagObjectType(params.objectType), params.id), {
      permission: 'tags:read',
      params: TagParams,
      response: Tag,
      detail: { summary: 'Get a tag', description: 'A tag of another object type is 404 here.' },
    })
    .put(
      '/:objectType/:id',
      ({ db, actor, params, body }) =>
        updateTag(db, actor, tagObjectType(params.objectType), params.id, body),
      {
        permission: 'tags:write',
        params: TagParams,
        body: UpdateTag,
        response: Tag,
        detail: {
          summary: 'Update a tag',
          description:
            'Partial. A Dynamic tag whose conditions change is back-filled again: records that now match gain it, records that no longer match lose it. Switching a Dynamic tag to Manual drops its conditions and detaches it from every record its conditions had attached it to; a Manual tag still attached to objects cannot become Dynamic (409).',
        },
      },
    )
    .delete(
      '/:objectType/:id',
      ({ db, actor, params, set }) => {
        deleteTag(db, actor, tagObjectType(params.objectType), params.id)
        set.status = 204
      },
      {
        permission: 'tags:write',
        params: TagParams,
        response: { 204: t.Void() },
        detail: {
          summary: 'Delete a tag',
          description: 'Answers 204 with no body. The tag is detached from every object it was attached to.',
        },
      },
    )
