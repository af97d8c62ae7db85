import { t } from 'elysia'
import { withMembers } from '../../platform/events/catalogue'
import { family } from '../../platform/family'
import * as model from './model'
import { Product } from './model'
import { productRoutes } from './routes'

export const productsFamily = family({
  name: 'products',
  tags: {
    Products: 'Products with variants and wine details; the wine appellation and varietal lists.',
  },
  models: { products: model },
  events: [
    {
      object: 'product',
      readPermission: 'products:read',
      actions: ['create', 'update'],
      emittedBy: '`/product`',
      payload: 'the product',
      schema: Product,
    },
    {
      object: 'product',
      readPermission: 'products:read',
      actions: ['delete'],
      emittedBy: '`DELETE /product/{id}`',
      payload: 'the product as deleted, plus `removedFromCollectionIds`',
      schema: withMembers(Product, { removedFromCollectionIds: t.Array(t.String()) }),
    },
  ],
  routes: (platform) => [productRoutes(platform.auth)],
})

// What the other families may use.
export { importProduct } from './import'
export { lendToProducts } from './lent'
export { ImportedProduct, type ImportedProductInput, MAX_IMPORTED_VARIANTS } from './model'
export { existingProductIds, productForConditions, productIdsByTitle } from './queries'
export { registerProductDeleteGuard } from './references'
export { productStatuses } from './schema'
export { createProduct } from './service'
export { type CatalogVariant, findVariant, findVariantBySku, variantShippingWeights } from './variants'
export { findProductRow } from './view'
