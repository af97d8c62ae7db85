import { sqliteTable, text } from 'drizzle-orm/sqlite-core'

export const locations = sqliteTable('locations', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  timezone: text('timezone').notNull(),
  // Street address (partner restaurant routes); all optional.
  addressLine1: text('address_line1'),
  addressLine2: text('address_line2'),
  city: text('city'),
  stateCode: text('state_code'),
  postalCode: text('postal_code'),
  countryCode: text('country_code'),
  phone: text('phone'),
  createdAt: text('created_at').notNull(),
  updatedAt: text('updated_at').notNull(),
})

export type LocationRow = typeof locations.$inferSelect
