import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'

/** How a slot is paid: only `none` and `pay_at_venue` can be booked through the tables API. */
export const paymentOptions = ['none', 'pay_at_venue', 'paid', 'prepaid', 'deposit', 'card_hold'] as const
export type PaymentOption = (typeof paymentOptions)[number]

/** Options that need a payment taken (or a card held) before the booking is made. */
export const paymentRequiredOptions: readonly PaymentOption[] = ['paid', 'prepaid', 'deposit', 'card_hold']

/** One bookable slot pattern of a version: these start times on these weekdays. */
export interface ScheduleSlot {
  /** 0 = Sunday .. 6 = Saturday, in the location's time zone. */
  daysOfWeek: number[]
  /** Local start times, `HH:MM`, in the location's time zone. */
  times: string[]
  /** Covers (guests) bookable per start time. */
  capacity: number
  /** Per guest, integer minor units. */
  priceAmount: number
  currency: string
  paymentOption: PaymentOption
}

export const experiences = sqliteTable(
  'experiences',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    /** The location the experience is held at (and booked through the tables API of). */
    locationId: text('location_id').notNull(),
    /** The version the latest publish made; null until the first publish. */
    currentVersionId: text('current_version_id'),
    archivedAt: text('archived_at'),
    /** The secret part of the private booking link; rotating it replaces it. */
    privateLinkToken: text('private_link_token').notNull(),
    privateLinkRotatedAt: text('private_link_rotated_at'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (table) => [
    uniqueIndex('experiences_private_link_unique').on(table.privateLinkToken),
    index('experiences_location').on(table.locationId),
  ],
)

/** Immutable: each publish inserts one; reservations name the version they were booked on. */
export const experienceVersions = sqliteTable(
  'experience_versions',
  {
    id: text('id').primaryKey(),
    experienceId: text('experience_id')
      .notNull()
      .references(() => experiences.id),
    versionNumber: integer('version_number').notNull(),
    publicName: text('public_name').notNull(),
    description: text('description'),
    partyMin: integer('party_min').notNull(),
    partyMax: integer('party_max').notNull(),
    cutoffMinutes: integer('cutoff_minutes').notNull(),
    durationMinutes: integer('duration_minutes').notNull(),
    /** `private`: offered only to callers holding the experience's private link. */
    visibility: text('visibility', { enum: ['public', 'private'] }).notNull(),
    schedule: text('schedule', { mode: 'json' }).$type<ScheduleSlot[]>().notNull(),
    publishedAt: text('published_at').notNull(),
    publishedBy: text('published_by'),
  },
  (table) => [uniqueIndex('experience_versions_number').on(table.experienceId, table.versionNumber)],
)

/** The tenant's public booking page settings: one row (id `default`). */
export const tablesLocationMapping = sqliteTable('tables_location_mapping', {
  id: text('id').primaryKey(),
  tenantLocationCode: text('tenant_location_code').notNull(),
  /** The tenant location the public page books into. */
  locationId: text('location_id').notNull(),
  publicSlug: text('public_slug').notNull(),
  publicName: text('public_name').notNull(),
  isPublic: integer('is_public', { mode: 'boolean' }).notNull(),
  createdAt: text('created_at').notNull(),
  updatedAt: text('updated_at').notNull(),
})

export type ExperienceRow = typeof experiences.$inferSelect
export type ExperienceVersionRow = typeof experienceVersions.$inferSelect
export type LocationMappingRow = typeof tablesLocationMapping.$inferSelect
