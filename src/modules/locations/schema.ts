import { sqliteTable, text } from 'drizzle-orm/sqlite-core'

export const locations = sqliteTable('locations', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  timezone: text('timezone').notNull(),
  createdAt: text('created_at').notNull(),
  updatedAt: text('updated_at').notNull(),
})

export type LocationRow = typeof locations.$inferSelect
