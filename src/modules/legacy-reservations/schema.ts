import { sql } from 'drizzle-orm'
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { customers } from '../customers/schema'

export const daysOfWeek = [
  'Sunday',
  'Monday',
  'Tuesday',
  'Wednesday',
  'Thursday',
  'Friday',
  'Saturday',
] as const
export type DayOfWeek = (typeof daysOfWeek)[number]

export const reservationStatuses = [
  'Pending',
  'Confirmed',
  'Checked In',
  'Completed',
  'Cancelled',
  'No Show',
] as const
export type ReservationStatus = (typeof reservationStatuses)[number]

export const paymentStatuses = ['unpaid', 'paid', 'refunded'] as const
export const paymentCharges = ['none', 'deposit', 'full'] as const
export const reservationChannels = ['Admin', 'Web', 'POS', 'Phone', 'Third Party'] as const

export const reservationTypes = sqliteTable(
  'reservation_types',
  {
    id: text('id').primaryKey(),
    title: text('title').notNull(),
    slug: text('slug').notNull(),
    status: text('status', { enum: ['active', 'inactive'] }).notNull(),
    type: text('type'),
    tourType: text('tour_type'),
    inventoryLocationId: text('inventory_location_id'),
    reservationLocationId: text('reservation_location_id'),
    defaultReservationLocationId: text('default_reservation_location_id'),
    reservationLocationIds: text('reservation_location_ids', { mode: 'json' }).$type<string[]>().notNull(),
    paymentCharge: text('payment_charge', { enum: paymentCharges }).notNull(),
    minGuestCount: integer('min_guest_count').notNull(),
    maxGuestCount: integer('max_guest_count').notNull(),
    /** Reservations (not guests) one start time takes; null: no limit. */
    maxGroupCount: integer('max_group_count'),
    minutesAllotted: integer('minutes_allotted').notNull(),
    minutesBeforeLocationInUse: integer('minutes_before_location_in_use').notNull(),
    leadTimeInHours: integer('lead_time_in_hours').notNull(),
    isRequiresAHost: integer('is_requires_a_host', { mode: 'boolean' }).notNull(),
    isAlwaysOccursInDefaultLocation: integer('is_always_occurs_in_default_location', {
      mode: 'boolean',
    }).notNull(),
    allowOnlineCancel: integer('allow_online_cancel', { mode: 'boolean' }).notNull(),
    onlineCancelDeadlineInHours: integer('online_cancel_deadline_in_hours'),
    emailInstructions: text('email_instructions'),
    content: text('content'),
    image: text('image'),
    seoTitle: text('seo_title'),
    seoDescription: text('seo_description'),
    metaData: text('meta_data', { mode: 'json' }).$type<Record<string, unknown>>(),
    security: text('security', { mode: 'json' }).$type<Record<string, unknown>>(),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (table) => [uniqueIndex('reservation_types_slug_unique').on(sql`lower(${table.slug})`)],
)

export const reservationTypeOptions = sqliteTable(
  'reservation_type_options',
  {
    id: text('id').primaryKey(),
    reservationTypeId: text('reservation_type_id')
      .notNull()
      .references(() => reservationTypes.id, { onDelete: 'cascade' }),
    title: text('title').notNull(),
    sku: text('sku'),
    /** Per guest, integer minor units. */
    price: integer('price').notNull(),
    taxCode: text('tax_code'),
    sortOrder: integer('sort_order').notNull(),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (table) => [index('reservation_type_options_type').on(table.reservationTypeId)],
)

export const reservationTypeTimeSlots = sqliteTable(
  'reservation_type_time_slots',
  {
    id: text('id').primaryKey(),
    reservationTypeId: text('reservation_type_id')
      .notNull()
      .references(() => reservationTypes.id, { onDelete: 'cascade' }),
    dayOfWeek: text('day_of_week', { enum: daysOfWeek }).notNull(),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (table) => [uniqueIndex('reservation_type_time_slots_day').on(table.reservationTypeId, table.dayOfWeek)],
)

export const reservationTypeTimes = sqliteTable(
  'reservation_type_times',
  {
    id: text('id').primaryKey(),
    reservationTypeTimeSlotId: text('reservation_type_time_slot_id')
      .notNull()
      .references(() => reservationTypeTimeSlots.id, { onDelete: 'cascade' }),
    /** Local `HH:MM` in the reservation location's time zone. */
    time: text('time').notNull(),
    allowCustomersToReserveOnline: integer('allow_customers_to_reserve_online', {
      mode: 'boolean',
    }).notNull(),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (table) => [uniqueIndex('reservation_type_times_time').on(table.reservationTypeTimeSlotId, table.time)],
)

export const legacyReservations = sqliteTable(
  'legacy_reservations',
  {
    id: text('id').primaryKey(),
    reservationNumber: integer('reservation_number').notNull(),
    channel: text('channel', { enum: reservationChannels }).notNull(),
    externalReservationNumber: text('external_reservation_number'),
    externalReservationVendor: text('external_reservation_vendor'),
    reservationSource: text('reservation_source'),
    customerId: text('customer_id').references(() => customers.id),
    reservationDate: text('reservation_date').notNull(),
    /** The local date of `reservationDate` at the reservation location: what date filters test. */
    businessDate: text('business_date').notNull(),
    reservationCloseOutDate: text('reservation_close_out_date'),
    lastProcessAttemptDate: text('last_process_attempt_date'),
    reservationPaidDate: text('reservation_paid_date'),
    reminderEmailSendDate: text('reminder_email_send_date'),
    checkInTime: text('check_in_time'),
    closeOutTime: text('close_out_time'),
    reservationTypeId: text('reservation_type_id')
      .notNull()
      .references(() => reservationTypes.id),
    reservationTypeOptionId: text('reservation_type_option_id'),
    guestCount: integer('guest_count').notNull(),
    reservationLocationId: text('reservation_location_id').notNull(),
    reservationLocationTableId: text('reservation_location_table_id'),
    reservationStaffId: text('reservation_staff_id'),
    experienceType: text('experience_type').notNull(),
    isRequiresAHost: integer('is_requires_a_host', { mode: 'boolean' }).notNull(),
    inventoryLocationId: text('inventory_location_id').notNull(),
    status: text('status', { enum: reservationStatuses }).notNull(),
    paymentStatus: text('payment_status', { enum: paymentStatuses }).notNull(),
    paymentCharge: text('payment_charge', { enum: paymentCharges }).notNull(),
    orderId: text('order_id'),
    orderNumber: integer('order_number'),
    reminderEmailSendStatus: text('reminder_email_send_status').notNull(),
    sku: text('sku'),
    /** Integer minor units: the option's per-guest price times the guest count, unless overridden. */
    price: integer('price').notNull(),
    tenderType: text('tender_type'),
    customerCreditCardId: text('customer_credit_card_id'),
    isPriceOverride: integer('is_price_override', { mode: 'boolean' }).notNull(),
    isReservationDateOverride: integer('is_reservation_date_override', { mode: 'boolean' }).notNull(),
    isReservationLocationOverride: integer('is_reservation_location_override', { mode: 'boolean' }).notNull(),
    isGuestCountOverride: integer('is_guest_count_override', { mode: 'boolean' }).notNull(),
    reservationThirdPartyId: text('reservation_third_party_id'),
    notes: text('notes'),
    systemNote: text('system_note'),
    metaData: text('meta_data', { mode: 'json' }).$type<Record<string, unknown>>(),
    appData: text('app_data', { mode: 'json' }).$type<Record<string, unknown>>(),
    appSync: text('app_sync', { mode: 'json' }).$type<Record<string, unknown>>(),
    flags: text('flags', { mode: 'json' }).$type<string[]>().notNull(),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (table) => [
    uniqueIndex('legacy_reservations_number').on(table.reservationNumber),
    index('legacy_reservations_date').on(table.businessDate),
    index('legacy_reservations_customer').on(table.customerId),
    index('legacy_reservations_type_slot').on(table.reservationTypeId, table.reservationDate),
  ],
)

export type ReservationTypeRow = typeof reservationTypes.$inferSelect
export type ReservationTypeOptionRow = typeof reservationTypeOptions.$inferSelect
export type LegacyReservationRow = typeof legacyReservations.$inferSelect
