import { t } from 'elysia'
import { pagingQuery } from '../../platform/foundation/paging'
import { int, oneOf, webUrl } from '../../platform/foundation/types'
import { SLUG_PATTERN } from '../../platform/slug'
import { productStatuses } from '../products'
import { allOperators, type FieldKind } from '../tags'
import { collectionTypes } from './schema'

/** The product fields Dynamic collection conditions may test. `price` is the lowest variant price, in cents. */
export const productConditionFields: Record<string, FieldKind> = {
  title: 'string',
  subTitle: 'string',
  type: 'string',
  slug: 'string',
  departmentId: 'string',
  vendorId: 'string',
  webStatus: 'string',
  adminStatus: 'string',
  availableTo: 'string',
  price: 'number',
  createdAt: 'date',
}

const Status = oneOf(productStatuses)
const CollectionType = oneOf(collectionTypes, {
  description:
    'Manual: the collection holds exactly the products listed in `productIds`. Dynamic: it holds every product its `conditions` match, kept up to date as products are created and changed.',
})

const AppliesToCondition = t.Union([t.Literal('All'), t.Literal('Any')], {
  description:
    'Dynamic collections: whether all conditions or any one of them must hold. Null for Manual ones.',
})

const CollectionCondition = t.Object(
  {
    field: t.String({
      minLength: 1,
      maxLength: 100,
      description: `A product field: ${Object.keys(productConditionFields).join(', ')} (\`price\`: the lowest variant price, in cents).`,
    }),
    operator: oneOf(allOperators as [string, ...string[]], {
      description: 'The operators of Dynamic tags (`POST /tag/{objectType}`), by the kind of the field.',
    }),
    value: t.Optional(
      t.Nullable(
        t.Union([
          t.String({ maxLength: 200 }),
          int(),
          t.Boolean(),
          t.Array(t.String({ maxLength: 200 }), { maxItems: 100 }),
        ]),
      ),
    ),
  },
  { additionalProperties: false },
)

export const Collection = t.Object(
  {
    id: t.String({ format: 'uuid' }),
    title: t.String(),
    type: CollectionType,
    appliesToCondition: t.Nullable(AppliesToCondition),
    conditions: t.Array(CollectionCondition),
    content: t.Nullable(t.String()),
    webStatus: Status,
    adminStatus: Status,
    slug: t.String(),
    featureImage: t.Nullable(t.String()),
    seo: t.Object({ title: t.Nullable(t.String()), description: t.Nullable(t.String()) }),
    productIds: t.Array(t.String(), {
      description:
        'Member products, in display order (a Dynamic collection: the matches in title order when filled, later matches appended).',
    }),
    createdAt: t.String({ format: 'date-time' }),
    updatedAt: t.String({ format: 'date-time' }),
  },
  { $id: '#/components/schemas/Collection' },
)

const fields = {
  type: t.Optional(CollectionType),
  appliesToCondition: t.Optional(t.Nullable(AppliesToCondition)),
  conditions: t.Optional(
    t.Array(CollectionCondition, {
      maxItems: 25,
      description: 'Required (1..25) for Dynamic collections; must be empty for Manual ones.',
    }),
  ),
  content: t.Optional(t.Nullable(t.String({ maxLength: 100_000 }))),
  webStatus: t.Optional(Status),
  adminStatus: t.Optional(Status),
  slug: t.Optional(
    t.String({
      minLength: 1,
      maxLength: 100,
      pattern: SLUG_PATTERN,
      description: 'Unique within the tenant (409 otherwise). Made from the title when not sent.',
    }),
  ),
  featureImage: t.Optional(t.Nullable(webUrl(2000))),
  seo: t.Optional(
    t.Object(
      {
        title: t.Optional(t.Nullable(t.String({ maxLength: 200 }))),
        description: t.Optional(t.Nullable(t.String({ maxLength: 1000 }))),
      },
      { additionalProperties: false },
    ),
  ),
  productIds: t.Optional(
    t.Array(t.String({ minLength: 1, maxLength: 200 }), {
      maxItems: 1000,
      uniqueItems: true,
      description:
        'Manual collections: products of the tenant, in display order; replaces the membership when sent. Refused (400) on a Dynamic collection, whose conditions decide.',
    }),
  ),
}

export const CreateCollection = t.Object(
  { title: t.String({ minLength: 1, maxLength: 200 }), ...fields },
  { additionalProperties: false },
)

export const UpdateCollection = t.Object(
  { title: t.Optional(t.String({ minLength: 1, maxLength: 200 })), ...fields },
  {
    additionalProperties: false,
    description: 'Partial update: only the fields sent change; null clears a field.',
  },
)

export const CollectionListQuery = t.Object({
  q: t.Optional(t.String({ maxLength: 200, description: 'Case-insensitive search over title and slug.' })),
  webStatus: t.Optional(Status),
  adminStatus: t.Optional(Status),
  productId: t.Optional(
    t.String({ minLength: 1, maxLength: 200, description: 'Collections containing this product.' }),
  ),
  ...pagingQuery(100),
})

export const CollectionList = t.Object({
  collections: t.Array(Collection),
  total: int({ minimum: 0 }),
})

export const CollectionParams = t.Object({ id: t.String({ minLength: 1, maxLength: 200 }) })

export type CreateCollectionInput = typeof CreateCollection.static
export type UpdateCollectionInput = typeof UpdateCollection.static
export type CollectionView = typeof Collection.static
