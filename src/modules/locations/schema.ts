import { sqliteTable, text } from 'drizzle-orm/sqlite-core'

export const locationStatuses = ['active', 'inactive'] as const

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
  /** Where the location is taxed: an ISO 3166-2 subdivision (`US-CA`) or a country (`FR`). */
  taxRegion: text('tax_region'),
  /** Inactive: kept for the records made there (a location with records is never deleted). */
  status: text('status', { enum: locationStatuses }).notNull().default('active'),
  createdAt: text('created_at').notNull(),
  updatedAt: text('updated_at').notNull(),
})

export type LocationRow = typeof locations.$inferSelect
