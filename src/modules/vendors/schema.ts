import { sql } from 'drizzle-orm'
import { index, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'

export const vendors = sqliteTable(
  'vendors',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    /** Optional short code; unique within the tenant, case-insensitive, when present. */
    code: text('code'),
    status: text('status', { enum: ['active', 'inactive'] }).notNull(),
    website: text('website'),
    phone: text('phone'),
    email: text('email'),
    notes: text('notes'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (table) => [
    uniqueIndex('vendors_code_unique').on(sql`lower(${table.code})`),
    index('vendors_name').on(table.name),
  ],
)

export type VendorRow = typeof vendors.$inferSelect
