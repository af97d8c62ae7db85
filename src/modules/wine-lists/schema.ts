import { index, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'

/** Reference list seeded into every tenant by the wine_lists_seed migration; read-only over HTTP. */
export const wineAppellations = sqliteTable(
  'wine_appellations',
  {
    id: text('id').primaryKey(),
    /** ISO 3166-1 alpha-2, upper case. */
    countryCode: text('country_code').notNull(),
    region: text('region').notNull(),
    appellation: text('appellation').notNull(),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (table) => [
    uniqueIndex('wine_appellations_unique').on(table.countryCode, table.region, table.appellation),
    index('wine_appellations_appellation').on(table.appellation),
  ],
)

export const wineVarietalTypes = ['Red', 'White', 'Rosé', 'Sparkling'] as const

export const wineVarietals = sqliteTable(
  'wine_varietals',
  {
    id: text('id').primaryKey(),
    type: text('type', { enum: wineVarietalTypes }).notNull(),
    varietal: text('varietal').notNull(),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (table) => [uniqueIndex('wine_varietals_unique').on(table.type, table.varietal)],
)

export type WineAppellationRow = typeof wineAppellations.$inferSelect
export type WineVarietalRow = typeof wineVarietals.$inferSelect
