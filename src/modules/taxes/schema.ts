import { sql } from 'drizzle-orm'
import { integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'

export const taxCalculations = ['Added', 'Included'] as const

/**
 * Sales tax of one country (stateCode null: the whole country) or one state or province.
 * Rates are basis points per category of goods: 875 is 8.75%.
 */
export const taxes = sqliteTable(
  'taxes',
  {
    id: text('id').primaryKey(),
    title: text('title').notNull(),
    countryCode: text('country_code').notNull(),
    stateCode: text('state_code'),
    freight: integer('freight_bps').notNull(),
    food: integer('food_bps').notNull(),
    generalMerchandise: integer('general_merchandise_bps').notNull(),
    wine: integer('wine_bps').notNull(),
    taxCalculation: text('tax_calculation', { enum: taxCalculations }).notNull(),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (table) => [
    // One tax per state, and one country-wide tax (stateCode null) per country.
    uniqueIndex('taxes_state_unique').on(table.countryCode, table.stateCode),
    uniqueIndex('taxes_country_unique').on(table.countryCode).where(sql`${table.stateCode} IS NULL`),
  ],
)

export type TaxRow = typeof taxes.$inferSelect
