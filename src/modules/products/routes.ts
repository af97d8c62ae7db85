import { Elysia, t } from 'elysia'
import type { AuthPlugin } from '../../platform/auth/plugin'
import { pageOf } from '../../platform/foundation/paging'
import { parseDateFilter } from '../../platform/http/date-filter'
import { CreateProduct, Product, ProductList, ProductListQuery, ProductParams, UpdateProduct } from './model'
import { createProduct, deleteProduct, getProduct, listProducts, updateProduct } from './service'

export const productRoutes = (auth: AuthPlugin) =>
  new Elysia({ name: 'products', prefix: '/product', detail: { tags: ['Products'] } })
    .use(auth)
    .get(
      '',
      ({ db, query }) =>
        listProducts(db, {
          q: query.q,
          updatedAt:
            query.updatedAt === undefined ? undefined : parseDateFilter(query.updatedAt, 'query/updatedAt'),
          webStatus: query.webStatus,
          adminStatus: query.adminStatus,
          collectionId: query.collectionId,
          ...pageOf(query),
        }),
      {
        permission: 'products:read',
        query: ProductListQuery,
        response: ProductList,
        detail: {
          summary: 'List products',
          description:
            'Ordered by title, or by position in the collection when `collectionId` is given (an ' +
            'unknown collection matches nothing). `q` matches the title or any variant SKU. ' +
            '`updatedAt` takes Commerce7 prefixes: `gt:`, `gte:`, `lt:`, `lte:`, `btw:A|B`.',
        },
      },
    )
    .post(
      '',
      ({ db, actor, body, set }) => {
        set.status = 201
        return createProduct(db, actor, body)
      },
      {
        permission: 'products:write',
        body: CreateProduct,
        response: { 201: Product },
        detail: {
          summary: 'Create a product',
          description:
            'Needs `title`, `type` and at least one variant `{title, sku, price}`. Money fields are ' +
            'integer cents. A SKU already used by any variant of the tenant (case-insensitive) or a ' +
            'taken `slug` is 409. Inventory rows name locations of the tenant. Statuses default to ' +
            '`Available`, `security.availableTo` to `Everyone`; variant defaults follow the `type`.',
        },
      },
    )
    .get('/:id', ({ db, params }) => getProduct(db, params.id), {
      permission: 'products:read',
      params: ProductParams,
      response: Product,
      detail: { summary: 'Get a product', description: 'With variants, inventory, images and bundle items.' },
    })
    .put(
      '/:id',
      ({ db, actor, locations, params, body }) => updateProduct(db, actor, locations, params.id, body),
      {
        permission: 'products:write',
        params: ProductParams,
        body: UpdateProduct,
        response: Product,
        detail: {
          summary: 'Update a product',
          description:
            'Partial: fields not sent keep their value. `variants`, when sent, is the full list: ' +
            'entries with `id` change that variant, entries without add one, variants left out are ' +
            'deleted (409 while a bundle contains them). `images` and `bundleItems` replace the lists. ' +
            'A variant’s `inventory` replaces its rows at the locations the caller acts at: a caller bound to ' +
            'some locations leaves the stock of others as it is (and naming one is 403).',
        },
      },
    )
    .delete(
      '/:id',
      ({ db, actor, params, set }) => {
        deleteProduct(db, actor, params.id)
        set.status = 204
      },
      {
        permission: 'products:write',
        params: ProductParams,
        response: { 204: t.Void() },
        detail: {
          summary: 'Delete a product',
          description:
            'Answers 204 with no body. Deletes the variants and their inventory and removes the ' +
            'product from every collection. 409 while another product’s bundle contains one of its variants, ' +
            'or while an active menu-item recipe uses the product (`recipe {id, title}` names it; deactivate ' +
            'the recipe first: a product an active recipe depletes is never deleted under it).',
        },
      },
    )
