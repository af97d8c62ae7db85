import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'

export const weightUnits = ['Lbs', 'Kg'] as const
export type WeightUnit = (typeof weightUnits)[number]

/** One weight band: up to and including `toWeight` (in `weightUnits`), `price` cents. */
export interface RateValue {
  id: string
  toWeight: number
  price: number
  weightUnits: WeightUnit
}

/**
 * Beyond the last band. `isWrapShipping: false`: `price` cents more for every `forEveryXWeight`
 * (or part of it) above the last band. `isWrapShipping: true`: the bands start over (see rates.ts).
 */
export interface TopRateValue {
  id: string
  isWrapShipping: boolean
  forEveryXWeight: number | null
  weightUnits: WeightUnit
  price: number | null
}

export const shippingConfigurations = sqliteTable(
  'shipping_configurations',
  {
    id: text('id').primaryKey(),
    title: text('title').notNull(),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (table) => [index('shipping_configurations_title').on(table.title)],
)

export const shippingRegions = sqliteTable(
  'shipping_regions',
  {
    id: text('id').primaryKey(),
    configurationId: text('configuration_id')
      .notNull()
      .references(() => shippingConfigurations.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    /** ISO 3166-1 alpha-2, upper case. */
    countryCode: text('country_code').notNull(),
    /** null: the whole country. */
    stateCode: text('state_code'),
  },
  (table) => [
    index('shipping_regions_configuration').on(table.configurationId, table.position),
    index('shipping_regions_place').on(table.countryCode, table.stateCode),
  ],
)

export const shippingServices = sqliteTable(
  'shipping_services',
  {
    id: text('id').primaryKey(),
    configurationId: text('configuration_id')
      .notNull()
      .references(() => shippingConfigurations.id, { onDelete: 'cascade' }),
    title: text('title').notNull(),
    code: text('code').notNull(),
    carrier: text('carrier'),
    isActive: integer('is_active', { mode: 'boolean' }).notNull(),
    isDefault: integer('is_default', { mode: 'boolean' }).notNull(),
    sortOrder: integer('sort_order').notNull(),
    rates: text('rates', { mode: 'json' }).$type<RateValue[]>().notNull(),
    topRate: text('top_rate', { mode: 'json' }).$type<TopRateValue>().notNull(),
  },
  (table) => [index('shipping_services_configuration').on(table.configurationId, table.sortOrder)],
)

export type ShippingConfigurationRow = typeof shippingConfigurations.$inferSelect
export type ShippingRegionRow = typeof shippingRegions.$inferSelect
export type ShippingServiceRow = typeof shippingServices.$inferSelect
