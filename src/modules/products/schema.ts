import { sql } from 'drizzle-orm'
import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { locations } from '../locations/schema'
import { vendors } from '../vendors/schema'

export const productTypes = [
  'Wine',
  'General Merchandise',
  'Food',
  'Bundle',
  'Event Ticket',
  'Tasting',
  'Gift Card',
] as const
export type ProductType = (typeof productTypes)[number]

/** Available or Not Available, on the web store and in the admin (POS) respectively. */
export const productStatuses = ['Available', 'Not Available'] as const

/**
 * The tax category a variant is charged under. The first four are the rate columns of a Tax
 * (`food`, `wine`, `generalMerchandise`, `freight`); `none` is not taxed (gift cards).
 */
export const variantTaxTypes = ['wine', 'food', 'generalMerchandise', 'freight', 'none'] as const
export type VariantTaxType = (typeof variantTaxTypes)[number]

export const inventoryPolicies = ["Don't Sell", 'Back Order'] as const

export const availableToValues = ['Everyone', 'Club Members Only', 'Nobody'] as const

export interface ProductImage {
  id: string
  src: string
  sortOrder: number
}

export const products = sqliteTable(
  'products',
  {
    id: text('id').primaryKey(),
    title: text('title').notNull(),
    subTitle: text('sub_title'),
    image: text('image'),
    type: text('type', { enum: productTypes }).notNull(),
    departmentId: text('department_id'),
    vendorId: text('vendor_id').references(() => vendors.id, { onDelete: 'set null' }),
    teaser: text('teaser'),
    content: text('content'),
    webStatus: text('web_status', { enum: productStatuses }).notNull(),
    adminStatus: text('admin_status', { enum: productStatuses }).notNull(),
    /** URL handle; unique within the tenant, case-insensitive. */
    slug: text('slug').notNull(),
    metaData: text('meta_data', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    productTemplateId: text('product_template_id'),
    images: text('images', { mode: 'json' }).$type<ProductImage[]>().notNull(),
    availableTo: text('available_to', { enum: availableToValues }).notNull(),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (table) => [
    uniqueIndex('products_slug_unique').on(sql`lower(${table.slug})`),
    index('products_title').on(table.title),
    index('products_updated_at').on(table.updatedAt),
  ],
)

export const productVariants = sqliteTable(
  'product_variants',
  {
    id: text('id').primaryKey(),
    productId: text('product_id')
      .notNull()
      .references(() => products.id, { onDelete: 'cascade' }),
    title: text('title').notNull(),
    /** Unique within the tenant, case-insensitive. */
    sku: text('sku').notNull(),
    upcCode: text('upc_code'),
    volumeInML: integer('volume_in_ml'),
    /** Integer cents. */
    costOfGood: integer('cost_of_good'),
    /** Integer cents. */
    price: integer('price').notNull(),
    /** Integer cents: the "was" price shown struck through. */
    comparePrice: integer('compare_price'),
    /** Integer cents charged per unit on top of the price (container deposit laws). */
    bottleDeposit: integer('bottle_deposit'),
    sortOrder: integer('sort_order').notNull(),
    hasInventory: integer('has_inventory', { mode: 'boolean' }).notNull(),
    inventoryPolicy: text('inventory_policy', { enum: inventoryPolicies }).notNull(),
    hasShipping: integer('has_shipping', { mode: 'boolean' }).notNull(),
    taxType: text('tax_type', { enum: variantTaxTypes }).notNull(),
    /** Shipping weight in pounds. */
    weight: real('weight'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (table) => [
    uniqueIndex('product_variants_sku_unique').on(sql`lower(${table.sku})`),
    index('product_variants_product').on(table.productId, table.sortOrder),
  ],
)

/** Stock of one variant at one inventory location. */
export const productInventory = sqliteTable(
  'product_inventory',
  {
    productVariantId: text('product_variant_id')
      .notNull()
      .references(() => productVariants.id, { onDelete: 'cascade' }),
    inventoryLocationId: text('inventory_location_id')
      .notNull()
      .references(() => locations.id, { onDelete: 'restrict' }),
    availableForSaleCount: integer('available_for_sale_count').notNull(),
    reserveCount: integer('reserve_count').notNull(),
    allocatedCount: integer('allocated_count').notNull(),
  },
  (table) => [primaryKey({ columns: [table.productVariantId, table.inventoryLocationId] })],
)

/** The variants a Bundle product is made of. */
export const productBundleItems = sqliteTable(
  'product_bundle_items',
  {
    productId: text('product_id')
      .notNull()
      .references(() => products.id, { onDelete: 'cascade' }),
    productVariantId: text('product_variant_id')
      .notNull()
      .references(() => productVariants.id, { onDelete: 'restrict' }),
    quantity: integer('quantity').notNull(),
    sortOrder: integer('sort_order').notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.productId, table.productVariantId] }),
    index('product_bundle_items_variant').on(table.productVariantId),
  ],
)

export type ProductRow = typeof products.$inferSelect
export type ProductVariantRow = typeof productVariants.$inferSelect
export type ProductInventoryRow = typeof productInventory.$inferSelect
export type ProductBundleItemRow = typeof productBundleItems.$inferSelect
