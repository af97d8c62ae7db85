// The `products` kind: a product with its variants. A CSV is one row per variant with the
// product's columns beside it (as Shopify and Commerce7 export them): consecutive rows with the
// same slug (handle), or productId, are one product, whose columns may be left empty after its
// first row. An NDJSON line is one product nesting `variants`. Barcodes and SKUs are often long
// digit strings that pass the Luhn check: the card-number check leaves them alone.
import { ImportedProduct, type ImportedProductInput, importProduct, MAX_IMPORTED_VARIANTS } from '../products'
import { type FieldSpec, integerField as integer, textField as text } from './fields'
import type { KindSpec } from './kind-spec'

/** A variant's field: `variants.#.<name>` (the row's variant), under `variant.<field>`. */
const variant = (spec: FieldSpec): FieldSpec => ({ ...spec, path: `variants.#.${spec.path}` })

export const products: KindSpec<ImportedProductInput> = {
  fields: {
    productId: text('productId'),
    slug: text('slug', 'handle', 'urlhandle', 'productslug', 'producthandle'),
    title: text('title', 'producttitle', 'productname', 'name'),
    type: text('type', 'producttype'),
    subTitle: text('subTitle', 'subheading'),
    image: text('image', 'imagesrc', 'imageurl', 'productimage'),
    teaser: text('teaser', 'shortdescription', 'summary'),
    content: text('content', 'description', 'bodyhtml', 'body', 'longdescription'),
    webStatus: text('webStatus'),
    adminStatus: text('adminStatus'),
    createdAt: text('createdAt', 'created', 'createddate'),
    'variant.id': variant(text('variantId')),
    'variant.sku': variant({ path: 'sku', type: 'text', aliases: ['sku'], digitsAllowed: true }),
    'variant.title': variant(text('variantTitle', 'variant', 'variantname', 'option1value')),
    'variant.price': variant(integer('price', 'price', 'pricecents')),
    'variant.comparePrice': variant(integer('comparePrice', 'compareatprice', 'variantcompareatprice')),
    'variant.costOfGood': variant(integer('costOfGood', 'costofgoods', 'cost', 'costperitem', 'variantcost')),
    'variant.bottleDeposit': variant(integer('bottleDeposit', 'deposit')),
    'variant.upcCode': variant({
      path: 'upcCode',
      type: 'text',
      aliases: ['upc', 'barcode', 'variantbarcode', 'gtin', 'ean'],
      digitsAllowed: true,
    }),
    'variant.volumeInML': variant(integer('volumeInML', 'volume', 'volumeml', 'bottlesize', 'sizeml')),
    'variant.sortOrder': variant(integer('sortOrder', 'position', 'variantposition')),
    'variant.hasInventory': variant({
      path: 'hasInventory',
      type: 'boolean',
      aliases: ['trackinventory', 'inventorytracked'],
    }),
    'variant.hasShipping': variant({
      path: 'hasShipping',
      type: 'boolean',
      aliases: ['requiresshipping', 'variantrequiresshipping'],
    }),
    'variant.taxType': variant(text('taxType', 'taxcategory')),
    'variant.inventoryPolicy': variant(text('inventoryPolicy', 'variantinventorypolicy')),
  },
  schema: ImportedProduct,
  complete(record) {
    // Handles are matched case-insensitively; a slug is stored lower case.
    if (typeof record.slug === 'string') record.slug = record.slug.toLowerCase()
  },
  apply: importProduct,
  grouping: {
    key: ['slug', 'productId'],
    maxRows: MAX_IMPORTED_VARIANTS,
    nested: { variants: { prefix: () => 'variant.', perRow: true, max: MAX_IMPORTED_VARIANTS } },
  },
}
