import { sql } from 'drizzle-orm'
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'

export const cadenceUnits = ['day', 'week', 'month', 'year'] as const
export type CadenceUnit = (typeof cadenceUnits)[number]

export const clubs = sqliteTable(
  'clubs',
  {
    id: text('id').primaryKey(),
    title: text('title').notNull(),
    /** Unique within the tenant, case-insensitive. */
    slug: text('slug').notNull(),
    type: text('type', { enum: ['Traditional', 'Subscription'] }).notNull(),
    content: text('content'),
    publishDate: text('publish_date'),
    seoTitle: text('seo_title'),
    seoDescription: text('seo_description'),
    webStatus: text('web_status', { enum: ['Available', 'Not Available'] }).notNull(),
    adminStatus: text('admin_status', { enum: ['Available', 'Not Available'] }).notNull(),
    /** How often memberships are processed (shipments, charges), unless one overrides it. */
    cadenceUnit: text('cadence_unit', { enum: cadenceUnits }).notNull(),
    cadenceCount: integer('cadence_count').notNull(),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (table) => [
    uniqueIndex('clubs_slug_unique').on(sql`lower(${table.slug})`),
    index('clubs_title').on(table.title),
  ],
)

export type ClubRow = typeof clubs.$inferSelect
