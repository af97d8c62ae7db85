import { sql } from 'drizzle-orm'
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { productStatuses, products } from '../products/schema'
import type { TagCondition } from '../tags/schema'

/** Manual collections hold the products listed in `productIds`; Dynamic ones those their conditions match. */
export const collectionTypes = ['Manual', 'Dynamic'] as const

export const collections = sqliteTable(
  'collections',
  {
    id: text('id').primaryKey(),
    title: text('title').notNull(),
    type: text('type', { enum: collectionTypes }).notNull(),
    /** `All` or `Any` for Dynamic collections; null for Manual ones. */
    appliesToCondition: text('applies_to_condition', { enum: ['All', 'Any'] }),
    /** Dynamic collections: conditions over product fields (see productConditionFields). */
    conditions: text('conditions', { mode: 'json' }).$type<TagCondition[]>().notNull().default(sql`'[]'`),
    content: text('content'),
    webStatus: text('web_status', { enum: productStatuses }).notNull(),
    adminStatus: text('admin_status', { enum: productStatuses }).notNull(),
    /** URL handle; unique within the tenant, case-insensitive. */
    slug: text('slug').notNull(),
    featureImage: text('feature_image'),
    seoTitle: text('seo_title'),
    seoDescription: text('seo_description'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (table) => [
    uniqueIndex('collections_slug_unique').on(sql`lower(${table.slug})`),
    index('collections_title').on(table.title),
  ],
)

/** Product membership of a collection, in display order. Deleting either side removes the row. */
export const collectionProducts = sqliteTable(
  'collection_products',
  {
    collectionId: text('collection_id')
      .notNull()
      .references(() => collections.id, { onDelete: 'cascade' }),
    productId: text('product_id')
      .notNull()
      .references(() => products.id, { onDelete: 'cascade' }),
    sortOrder: integer('sort_order').notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.collectionId, table.productId] }),
    index('collection_products_product').on(table.productId),
  ],
)

export type CollectionRow = typeof collections.$inferSelect
