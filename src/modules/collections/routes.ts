import { Elysia, t } from 'elysia'
import type { AuthPlugin } from '../../platform/auth/plugin'
import { pageOf } from '../../platform/foundation/paging'
import {
  Collection,
  CollectionList,
  CollectionListQuery,
  CollectionParams,
  CreateCollection,
  UpdateCollection,
} from './model'
import {
  createCollection,
  deleteCollection,
  getCollection,
  listCollections,
  updateCollection,
} from './service'

/** One implementation, mounted at `/collection` and at `/collections`. */
export const collectionRoutes = (auth: AuthPlugin, prefix: '/collection' | '/collections') =>
  new Elysia({ name: `collections${prefix}`, prefix, detail: { tags: ['Collections'] } })
    .use(auth)
    .get(
      '',
      ({ db, query }) =>
        listCollections(db, {
          q: query.q,
          webStatus: query.webStatus,
          adminStatus: query.adminStatus,
          productId: query.productId,
          ...pageOf(query),
        }),
      {
        permission: 'collections:read',
        query: CollectionListQuery,
        response: CollectionList,
        detail: {
          summary: 'List collections',
          description:
            'Ordered by title; `q` matches title or slug; `productId` finds the collections of a product.',
        },
      },
    )
    .post(
      '',
      ({ db, actor, body, set }) => {
        set.status = 201
        return createCollection(db, actor, body)
      },
      {
        permission: 'collections:write',
        body: CreateCollection,
        response: { 201: Collection },
        detail: {
          summary: 'Create a collection',
          description:
            'Needs `title`. The slug is made from the title when not sent; a taken slug is 409. ' +
            '`productIds` lists member products in display order (unknown ids are 400). ' +
            'A `Dynamic` collection takes 1..25 `conditions` over product fields instead (with `appliesToCondition`, default All; `productIds` is then 400): it is filled at once with every matching product, in title order, and every later product create, change or delete adds or removes that product (appended at the end), recorded as a `collection.update` (metadata `byConditions`, `added` or `removed`) with its event.',
        },
      },
    )
    .get('/:id', ({ db, params }) => getCollection(db, params.id), {
      permission: 'collections:read',
      params: CollectionParams,
      response: Collection,
      detail: { summary: 'Get a collection' },
    })
    .put('/:id', ({ db, actor, params, body }) => updateCollection(db, actor, params.id, body), {
      permission: 'collections:write',
      params: CollectionParams,
      body: UpdateCollection,
      response: Collection,
      detail: {
        summary: 'Update a collection',
        description:
          'Partial: fields not sent keep their value; `productIds`, when sent, replaces the membership of a Manual collection (400 on a Dynamic one). Changing the conditions of a Dynamic collection (or making a Manual one Dynamic) refills it with the matching products; making a Dynamic collection Manual drops its conditions and keeps the products it holds as its list.',
      },
    })
    .delete(
      '/:id',
      ({ db, actor, params, set }) => {
        deleteCollection(db, actor, params.id)
        set.status = 204
      },
      {
        permission: 'collections:write',
        params: CollectionParams,
        response: { 204: t.Void() },
        detail: {
          summary: 'Delete a collection',
          description: 'Answers 204 with no body. The member products stay; only the membership goes.',
        },
      },
    )
