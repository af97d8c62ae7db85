import { sql } from 'drizzle-orm'
import { index, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'

/** A tag condition of a Dynamic tag: `field operator value` over the tagged object's fields. */
export interface TagCondition {
  field: string
  operator: string
  value?: string | number | boolean | string[] | null
}

export const tags = sqliteTable(
  'tags',
  {
    id: text('id').primaryKey(),
    title: text('title').notNull(),
    /** `Customer`, `ClubMembership`, `Order` or `Reservation` (see objectTypes in fields.ts). */
    objectType: text('object_type', {
      enum: ['Customer', 'ClubMembership', 'Order', 'Reservation'],
    }).notNull(),
    type: text('type', { enum: ['Manual', 'Dynamic'] }).notNull(),
    /** `All` or `Any` for Dynamic tags; null for Manual ones. */
    appliesToCondition: text('applies_to_condition', { enum: ['All', 'Any'] }),
    conditions: text('conditions', { mode: 'json' }).$type<TagCondition[]>().notNull(),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (table) => [uniqueIndex('tags_title_unique').on(table.objectType, sql`lower(${table.title})`)],
)

/** Manual tags attached to objects of other families, by object type and id. */
export const tagAssignments = sqliteTable(
  'tag_assignments',
  {
    tagId: text('tag_id')
      .notNull()
      .references(() => tags.id, { onDelete: 'cascade' }),
    objectType: text('object_type').notNull(),
    objectId: text('object_id').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.tagId, table.objectType, table.objectId] }),
    index('tag_assignments_object').on(table.objectType, table.objectId),
  ],
)

export type TagRow = typeof tags.$inferSelect
export type TagAssignmentRow = typeof tagAssignments.$inferSelect
