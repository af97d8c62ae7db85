import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { experiences, experienceVersions } from '../experiences/schema'

export const reservationLifecycles = ['confirmed', 'cancelled'] as const
export type ReservationLifecycle = (typeof reservationLifecycles)[number]

export const tablesReservations = sqliteTable(
  'tables_reservations',
  {
    id: text('id').primaryKey(),
    /** The id a guest sees (links, emails); separate so the internal id never leaves the back office. */
    publicId: text('public_id').notNull(),
    confirmationCode: text('confirmation_code').notNull(),
    locationId: text('location_id').notNull(),
    experienceId: text('experience_id')
      .notNull()
      .references(() => experiences.id),
    experienceVersionId: text('experience_version_id')
      .notNull()
      .references(() => experienceVersions.id),
    lifecycle: text('lifecycle', { enum: reservationLifecycles }).notNull(),
    /** Optimistic-concurrency version: 1 on create, +1 on every change (`if-match`). */
    version: integer('version').notNull(),
    /** `api` (a tables-API credential) or `staff`. */
    source: text('source').notNull(),
    businessDate: text('business_date').notNull(),
    startsAt: text('starts_at').notNull(),
    endsAt: text('ends_at').notNull(),
    partySize: integer('party_size').notNull(),
    guestName: text('guest_name').notNull(),
    guestEmail: text('guest_email').notNull(),
    guestPhone: text('guest_phone'),
    /** The slot's payment option at booking time. */
    bookingMethod: text('booking_method').notNull(),
    currency: text('currency').notNull(),
    subtotalAmount: integer('subtotal_amount').notNull(),
    taxAmount: integer('tax_amount').notNull(),
    totalAmount: integer('total_amount').notNull(),
    /** For bookings that took a payment: when it was settled or refunded in the dashboard. */
    paymentResolvedAt: text('payment_resolved_at'),
    confirmedAt: text('confirmed_at').notNull(),
    cancelledAt: text('cancelled_at'),
    cancelReason: text('cancel_reason'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (table) => [
    uniqueIndex('tables_reservations_public_id').on(table.publicId),
    uniqueIndex('tables_reservations_confirmation_code').on(table.confirmationCode),
    index('tables_reservations_slot').on(table.experienceId, table.startsAt),
    index('tables_reservations_location_date').on(table.locationId, table.businessDate),
  ],
)

/** The tenant's secret for signing availability option tokens (one row, id `option-token`). */
export const tablesSigningKeys = sqliteTable('tables_signing_keys', {
  id: text('id').primaryKey(),
  secret: text('secret').notNull(),
  createdAt: text('created_at').notNull(),
})

export type TablesReservationRow = typeof tablesReservations.$inferSelect
