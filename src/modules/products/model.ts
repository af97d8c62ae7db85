import { t } from 'elysia'
import { pagingQuery } from '../../platform/foundation/paging'
import { freeForm, int, money, oneOf, webUrl } from '../../platform/foundation/types'
import { dateFilterQuery } from '../../platform/http/date-filter'
import { SLUG_PATTERN } from '../../platform/slug'
import {
  availableToValues,
  inventoryPolicies,
  productStatuses,
  productTypes,
  variantTaxTypes,
} from './schema'

const literals = <const T extends readonly [string, ...string[]]>(values: T, description?: string) =>
  oneOf(values, { description })

export const ProductType = literals(
  productTypes,
  'What the product is. It sets the defaults of new variants: `taxType` (Wine: wine, Food: food, ' +
    'Gift Card: none, else generalMerchandise), `hasShipping` (Wine, General Merchandise, Bundle) and ' +
    '`hasInventory` (Wine, General Merchandise). Only a Bundle has `bundleItems`.',
)
export const ProductStatus = literals(productStatuses)
export const TaxType = literals(
  variantTaxTypes,
  'The tax category the variant is charged under: the rate columns of a Tax (`wine`, `food`, ' +
    '`generalMerchandise`, `freight`), or `none` for untaxed items such as gift cards.',
)
export const InventoryPolicy = literals(
  inventoryPolicies,
  "What happens when stock runs out: `Don't Sell` stops sales, `Back Order` keeps selling.",
)
export const AvailableTo = literals(availableToValues, 'Who may buy the product.')

const counts = {
  availableForSaleCount: int({ description: 'Units on hand that may be sold.' }),
  reserveCount: int({ minimum: 0, description: 'Units held back from sale (library, events).' }),
  allocatedCount: int({
    minimum: 0,
    description: 'Units promised to orders not yet fulfilled (club shipments, holds).',
  }),
}

export const Inventory = t.Object({
  productVariantId: t.String(),
  inventoryLocationId: t.String(),
  ...counts,
})

export const Variant = t.Object({
  id: t.String(),
  title: t.String(),
  sku: t.String(),
  upcCode: t.Nullable(t.String()),
  volumeInML: t.Nullable(int()),
  costOfGood: t.Nullable(int({ description: 'Integer cents.' })),
  price: int({ description: 'Integer cents.' }),
  comparePrice: t.Nullable(int({ description: 'Integer cents.' })),
  bottleDeposit: t.Nullable(int({ description: 'Integer cents.' })),
  sortOrder: int(),
  hasInventory: t.Boolean(),
  inventoryPolicy: InventoryPolicy,
  hasShipping: t.Boolean(),
  taxType: TaxType,
  weight: t.Nullable(t.Number({ description: 'Shipping weight in pounds.' })),
  inventory: t.Array(Inventory),
})

export const ProductImage = t.Object({ id: t.String(), src: t.String(), sortOrder: int() })

export const BundleItem = t.Object({
  productVariantId: t.String(),
  productId: t.String(),
  quantity: int({ minimum: 1 }),
})

export const Product = t.Object(
  {
    id: t.String({ format: 'uuid' }),
    title: t.String(),
    subTitle: t.Nullable(t.String()),
    image: t.Nullable(t.String()),
    type: ProductType,
    departmentId: t.Nullable(t.String()),
    vendorId: t.Nullable(t.String()),
    teaser: t.Nullable(t.String()),
    content: t.Nullable(t.String()),
    webStatus: ProductStatus,
    adminStatus: ProductStatus,
    slug: t.String(),
    metaData: t.Record(t.String(), t.Unknown()),
    productTemplateId: t.Nullable(t.String()),
    images: t.Array(ProductImage),
    bundleItems: t.Array(BundleItem),
    variants: t.Array(Variant),
    inventory: t.Array(Inventory, { description: 'Every inventory row of every variant.' }),
    security: t.Object({ availableTo: AvailableTo }),
    createdAt: t.String({ format: 'date-time' }),
    updatedAt: t.String({ format: 'date-time' }),
  },
  { $id: '#/components/schemas/Product' },
)

const optionalText = (max: number, description?: string) =>
  t.Optional(t.Nullable(t.String({ maxLength: max, description })))

const InventoryInput = t.Object(
  {
    inventoryLocationId: t.String({ minLength: 1, maxLength: 200, description: 'A location of the tenant.' }),
    availableForSaleCount: t.Optional(
      int({ minimum: -1_000_000, maximum: 1_000_000, description: 'Negative when back-ordered.' }),
    ),
    reserveCount: t.Optional(int({ minimum: 0, maximum: 1_000_000 })),
    allocatedCount: t.Optional(int({ minimum: 0, maximum: 1_000_000 })),
  },
  { additionalProperties: false },
)

const variantFields = {
  upcCode: optionalText(64),
  volumeInML: t.Optional(t.Nullable(int({ minimum: 1, maximum: 100_000 }))),
  costOfGood: t.Optional(t.Nullable(money({ description: 'Integer cents.' }))),
  comparePrice: t.Optional(t.Nullable(money({ description: 'Integer cents.' }))),
  bottleDeposit: t.Optional(t.Nullable(money({ description: 'Integer cents per unit.' }))),
  sortOrder: t.Optional(int({ minimum: 0, maximum: 100_000 })),
  hasInventory: t.Optional(t.Boolean()),
  inventoryPolicy: t.Optional(InventoryPolicy),
  hasShipping: t.Optional(t.Boolean()),
  taxType: t.Optional(TaxType),
  weight: t.Optional(t.Nullable(t.Number({ minimum: 0, maximum: 10_000 }))),
  inventory: t.Optional(
    t.Array(InventoryInput, {
      maxItems: 500,
      description: 'Stock per location; on update, replaces the variant’s rows when sent.',
    }),
  ),
}

const skuSchema = t.String({
  minLength: 1,
  maxLength: 64,
  pattern: '^\\S(.*\\S)?$',
  description: 'Unique within the tenant, case-insensitively (409 otherwise).',
})

export const CreateVariant = t.Object(
  {
    title: t.String({ minLength: 1, maxLength: 200 }),
    sku: skuSchema,
    price: money({ description: 'Integer cents.' }),
    ...variantFields,
  },
  { additionalProperties: false },
)

export const UpdateVariant = t.Object(
  {
    id: t.Optional(
      t.String({ minLength: 1, maxLength: 200, description: 'An existing variant of this product.' }),
    ),
    title: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
    sku: t.Optional(skuSchema),
    price: t.Optional(money({ description: 'Integer cents.' })),
    ...variantFields,
  },
  {
    additionalProperties: false,
    description:
      'With `id`: changes that variant (fields not sent keep their value). Without `id`: a new ' +
      'variant, which needs `title`, `sku` and `price`.',
  },
)

const ImageInput = t.Object(
  {
    id: t.Optional(t.String({ minLength: 1, maxLength: 200, description: 'Keeps an existing image’s id.' })),
    src: webUrl(2000),
    sortOrder: t.Optional(int({ minimum: 0, maximum: 100_000 })),
  },
  { additionalProperties: false },
)

const BundleItemInput = t.Object(
  {
    productVariantId: t.String({ minLength: 1, maxLength: 200 }),
    quantity: int({ minimum: 1, maximum: 1000 }),
  },
  { additionalProperties: false },
)

const productFields = {
  subTitle: optionalText(200),
  image: t.Optional(t.Nullable(webUrl(2000))),
  departmentId: optionalText(200),
  vendorId: t.Optional(
    t.Nullable(t.String({ minLength: 1, maxLength: 200, description: 'A vendor of the tenant.' })),
  ),
  teaser: optionalText(2000),
  content: optionalText(100_000),
  webStatus: t.Optional(ProductStatus),
  adminStatus: t.Optional(ProductStatus),
  slug: t.Optional(
    t.String({
      minLength: 1,
      maxLength: 100,
      pattern: SLUG_PATTERN,
      description: 'Unique within the tenant (409 otherwise). Made from the title when not sent.',
    }),
  ),
  metaData: t.Optional(freeForm()),
  productTemplateId: optionalText(200),
  images: t.Optional(t.Array(ImageInput, { maxItems: 50 })),
  bundleItems: t.Optional(
    t.Array(BundleItemInput, {
      maxItems: 100,
      description: 'Variants of other, non-bundle products; only a Bundle product has them.',
    }),
  ),
  security: t.Optional(t.Object({ availableTo: AvailableTo }, { additionalProperties: false })),
}

export const CreateProduct = t.Object(
  {
    title: t.String({ minLength: 1, maxLength: 200 }),
    type: ProductType,
    variants: t.Array(CreateVariant, { minItems: 1, maxItems: 100 }),
    ...productFields,
  },
  { additionalProperties: false },
)

export const UpdateProduct = t.Object(
  {
    title: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
    type: t.Optional(ProductType),
    variants: t.Optional(
      t.Array(UpdateVariant, {
        minItems: 1,
        maxItems: 100,
        description: 'The full variant list: variants left out are deleted.',
      }),
    ),
    ...productFields,
  },
  {
    additionalProperties: false,
    description: 'Partial update: only the fields sent change; null clears a field.',
  },
)

export const ProductListQuery = t.Object({
  q: t.Optional(t.String({ maxLength: 200, description: 'Case-insensitive search over title and SKUs.' })),
  updatedAt: dateFilterQuery('updatedAt'),
  webStatus: t.Optional(ProductStatus),
  adminStatus: t.Optional(ProductStatus),
  collectionId: t.Optional(
    t.String({ minLength: 1, maxLength: 200, description: 'Members of a collection.' }),
  ),
  ...pagingQuery(100),
})

export const ProductList = t.Object({ products: t.Array(Product), total: int({ minimum: 0 }) })

export const ProductParams = t.Object({ id: t.String({ minLength: 1, maxLength: 200 }) })

export type CreateProductInput = typeof CreateProduct.static
export type UpdateProductInput = typeof UpdateProduct.static
export type CreateVariantInput = typeof CreateVariant.static
export type UpdateVariantInput = typeof UpdateVariant.static
export type ProductView = typeof Product.static
export type VariantView = typeof Variant.static

const uuid = t.String({ format: 'uuid' })

/**
 * One row of a bulk import of products (`POST /imports`, kind `products`): one variant with its
 * product's columns, the usual export shape (Shopify, Commerce7). The product is found by
 * `productId`, else its `slug` (the handle); the variant by `variantId`, else its `sku`.
 */
/** Most variants one imported product may have, as the API's own product create allows. */
export const MAX_IMPORTED_VARIANTS = 100

const importedProductFields = {
  productId: t.Optional(uuid),
  slug: t.Optional(t.String({ minLength: 1, maxLength: 100, pattern: SLUG_PATTERN })),
  title: t.Optional(t.String({ minLength: 1, maxLength: 200, description: 'Needed by a new product.' })),
  type: t.Optional(ProductType),
  subTitle: t.Optional(t.String({ maxLength: 200 })),
  image: t.Optional(webUrl(2000)),
  teaser: t.Optional(t.String({ maxLength: 2000 })),
  content: t.Optional(t.String({ maxLength: 100_000 })),
  webStatus: t.Optional(ProductStatus),
  adminStatus: t.Optional(ProductStatus),
  createdAt: t.Optional(t.String({ format: 'date-time', description: 'Kept as given (history).' })),
}

const importedVariantFields = {
  variantId: t.Optional(uuid),
  sku: skuSchema,
  variantTitle: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
  price: money({ description: 'Integer cents.' }),
  comparePrice: t.Optional(money()),
  costOfGood: t.Optional(money()),
  bottleDeposit: t.Optional(money()),
  upcCode: t.Optional(t.String({ maxLength: 64 })),
  volumeInML: t.Optional(int({ minimum: 1, maximum: 100_000 })),
  sortOrder: t.Optional(int({ minimum: 0, maximum: 100_000 })),
  hasInventory: t.Optional(t.Boolean()),
  hasShipping: t.Optional(t.Boolean()),
  taxType: t.Optional(TaxType),
  inventoryPolicy: t.Optional(InventoryPolicy),
}

/** One variant with its product's fields: what one variant's upsert takes. */
export const ImportedProductVariant = t.Object(
  { ...importedProductFields, ...importedVariantFields },
  { additionalProperties: false },
)

export type ImportedProductVariantInput = typeof ImportedProductVariant.static

/** One product of an import (the imports family's `products` kind), with its variants. */
export const ImportedProduct = t.Object(
  {
    ...importedProductFields,
    variants: t.Array(t.Object(importedVariantFields, { additionalProperties: false }), {
      minItems: 1,
      maxItems: MAX_IMPORTED_VARIANTS,
    }),
  },
  { additionalProperties: false },
)

export type ImportedProductInput = typeof ImportedProduct.static
