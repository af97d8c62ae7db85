import { CRUD } from '../../platform/events/catalogue'
import { family } from '../../platform/family'
import { registerCollectionsHooks } from './hooks'
import * as model from './model'
import { Collection } from './model'
import { collectionRoutes } from './routes'

export const collectionsFamily = family({
  name: 'collections',
  tags: {
    Collections: 'Product collections (`/collection` and `/collections` are the same).',
  },
  models: { collections: model },
  events: [
    {
      object: 'collection',
      readPermission: 'collections:read',
      actions: CRUD,
      emittedBy: '`/collection`, `/collections`',
      payload: 'the collection',
      schema: Collection,
    },
  ],
  hooks: registerCollectionsHooks,
  routes: (platform) => [
    collectionRoutes(platform.auth, '/collection'),
    collectionRoutes(platform.auth, '/collections'),
  ],
})

// What the other families may use.
export { collectionExists, collectionIdsOfProduct, createCollection, existingCollectionIds } from './service'
