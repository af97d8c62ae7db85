import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { locations } from '../locations/schema'
import { orders } from '../orders/schema'

export const weekdays = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const
export type Weekday = (typeof weekdays)[number]

/** `HH:MM` local times of the location. `endTime` before `startTime` runs past midnight. */
export interface WindowValue {
  day: Weekday
  startTime: string
  endTime: string
}

export interface OrderingHoursValue {
  takeoutThirdParty: WindowValue[]
  firstPartyDelivery: WindowValue[]
}

export const quoteTimeStrategies = ['manual', 'throttled'] as const
export const dispatchAssignmentModes = ['manual', 'staff_drivers', 'couriers'] as const
export const channelStatuses = ['ordering_on', 'ordering_off', 'snoozed'] as const
export type ChannelStatus = (typeof channelStatuses)[number]
export const channelModes = ['takeout', 'delivery'] as const
export type ChannelMode = (typeof channelModes)[number]

export interface FulfillmentControlValue {
  fulfillmentMode: ChannelMode
  status: ChannelStatus
  snoozeUntil: string | null
}

export const offPremiseSettings = sqliteTable('off_premise_settings', {
  id: text('id').primaryKey(),
  locationId: text('location_id')
    .notNull()
    .unique()
    .references(() => locations.id, { onDelete: 'cascade' }),
  quoteTimeStrategy: text('quote_time_strategy', { enum: quoteTimeStrategies }).notNull(),
  takeoutQuoteMinutes: integer('takeout_quote_minutes').notNull(),
  deliveryQuoteMinutes: integer('delivery_quote_minutes').notNull(),
  takeoutThrottlingMinutes: integer('takeout_throttling_minutes').notNull(),
  deliveryThrottlingMinutes: integer('delivery_throttling_minutes').notNull(),
  firstPartyDeliveryEnabled: integer('first_party_delivery_enabled', { mode: 'boolean' }).notNull(),
  allowScheduledOrders: integer('allow_scheduled_orders', { mode: 'boolean' }).notNull(),
  batchReadyEnabled: integer('batch_ready_enabled', { mode: 'boolean' }).notNull(),
  guestMessagingEnabled: integer('guest_messaging_enabled', { mode: 'boolean' }).notNull(),
  leadTimeHours: integer('lead_time_hours').notNull(),
  dispatchAssignmentMode: text('dispatch_assignment_mode', { enum: dispatchAssignmentModes }).notNull(),
  onlineOrderingHours: text('online_ordering_hours', { mode: 'json' }).$type<OrderingHoursValue>().notNull(),
  createdAt: text('created_at').notNull(),
  updatedAt: text('updated_at').notNull(),
})

export const offPremiseChannels = sqliteTable(
  'off_premise_channels',
  {
    id: text('id').primaryKey(),
    locationId: text('location_id')
      .notNull()
      .references(() => locations.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    title: text('title').notNull(),
    provider: text('provider').notNull(),
    status: text('status', { enum: channelStatuses }).notNull(),
    snoozeUntil: text('snooze_until'),
    enabledFulfillmentModes: text('enabled_fulfillment_modes', { mode: 'json' })
      .$type<ChannelMode[]>()
      .notNull(),
    acceptsScheduledOrders: integer('accepts_scheduled_orders', { mode: 'boolean' }).notNull(),
    autoAcceptOrders: integer('auto_accept_orders', { mode: 'boolean' }).notNull(),
    throttlingMinutes: integer('throttling_minutes').notNull(),
    fulfillmentControls: text('fulfillment_controls', { mode: 'json' })
      .$type<FulfillmentControlValue[]>()
      .notNull(),
    /** The earliest snooze end of the channel or its controls: what the expiry job looks for. */
    nextSnoozeEndsAt: text('next_snooze_ends_at'),
    updatedAt: text('updated_at').notNull(),
  },
  (table) => [
    index('off_premise_channels_location').on(table.locationId, table.position),
    index('off_premise_channels_snooze').on(table.nextSnoozeEndsAt),
  ],
)

export interface PersonValue {
  staffUserId: string
  displayName: string
}

export interface ChannelValue {
  kind: 'first_party' | 'third_party'
  provider: string | null
  channelId: string | null
}

export interface OffPremiseCustomerValue {
  customerId: string | null
  firstName: string | null
  lastName: string | null
  phone: string | null
  email: string | null
}

export interface QuoteValue {
  strategy: (typeof quoteTimeStrategies)[number]
  quoteTimeApplies: boolean
  quotedAt: string
  scheduledFor: string | null
  promisedFulfillmentAt: string
  takeoutQuoteMinutes: number
  deliveryQuoteMinutes: number
  takeoutThrottlingMinutes: number
  deliveryThrottlingMinutes: number
  throttlingAppliedMinutes: number
  leadTimeHours: number
  minimumLeadTimeSatisfied: boolean
  withinConfiguredOrderingHours: boolean
  quoteExemptionReason: 'third_party_channel' | null
}

export const stagingStates = ['pending', 'staged', 'ready'] as const
export interface StagingValue {
  state: (typeof stagingStates)[number]
  batchId: string | null
  batchLabel: string | null
  stagingArea: string | null
  stagingSlot: string | null
  handoffZone: string | null
  batchReadyAt: string | null
  stagedAt: string | null
  readyBy: PersonValue | null
}

export interface GuestMessagingValue {
  enabled: boolean
  preferredChannel: 'sms' | 'email'
  lastUpdatedAt: string | null
}

export interface CurbsideValue {
  vehicleMakeModel: string | null
  vehicleColor: string | null
  instructions: string | null
  parkingSpot: string | null
  arrivalNote: string | null
}

export interface PickupValue {
  kind: 'standard' | 'curbside'
  state: 'waiting' | 'ready' | 'arrived' | 'completed'
  stagedAt: string | null
  arrivedAt: string | null
  completedAt: string | null
  curbside: CurbsideValue | null
}

export interface DispatchValue {
  assignmentMode: 'unassigned' | 'staff_driver' | 'courier'
  assignedDriver: PersonValue | null
  dispatchedBy: PersonValue | null
  courierName: string | null
  courierPhone: string | null
  vehicleLabel: string | null
  assignedAt: string | null
}

export interface DeliveryValue {
  addressId: string | null
  addressLabel: string | null
  state: 'pending' | 'ready_for_dispatch' | 'dispatched' | 'delivered'
  instructions: string | null
  deliveryNotes: string | null
  stagedAt: string | null
  dispatchedAt: string | null
  deliveredAt: string | null
  dispatchNote: string | null
  dispatch: DispatchValue
}

/** The off-premise block of a takeout, pickup, curbside or delivery order. */
export const orderOffPremise = sqliteTable(
  'order_off_premise',
  {
    orderId: text('order_id')
      .primaryKey()
      .references(() => orders.id, { onDelete: 'cascade' }),
    locationId: text('location_id').notNull(),
    /** `takeout` (takeout, pickup, curbside orders) or `delivery`. */
    mode: text('mode', { enum: channelModes }).notNull(),
    scheduled: integer('scheduled', { mode: 'boolean' }).notNull(),
    promisedFulfillmentAt: text('promised_fulfillment_at').notNull(),
    channel: text('channel', { mode: 'json' }).$type<ChannelValue>().notNull(),
    customer: text('customer', { mode: 'json' }).$type<OffPremiseCustomerValue>().notNull(),
    quote: text('quote', { mode: 'json' }).$type<QuoteValue>().notNull(),
    readyAt: text('ready_at'),
    stagingState: text('staging_state', { enum: stagingStates }).notNull(),
    batchId: text('batch_id'),
    staging: text('staging', { mode: 'json' }).$type<StagingValue>().notNull(),
    guestMessaging: text('guest_messaging', { mode: 'json' }).$type<GuestMessagingValue>().notNull(),
    pickup: text('pickup', { mode: 'json' }).$type<PickupValue | null>(),
    delivery: text('delivery', { mode: 'json' }).$type<DeliveryValue | null>(),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (table) => [
    index('order_off_premise_pacing').on(table.locationId, table.mode, table.promisedFulfillmentAt),
    index('order_off_premise_batch').on(table.locationId, table.batchId),
  ],
)

export const notificationStatuses = ['pending', 'sent', 'failed', 'skipped'] as const

export const offPremiseNotifications = sqliteTable(
  'off_premise_notifications',
  {
    id: text('id').primaryKey(),
    orderId: text('order_id')
      .notNull()
      .references(() => orders.id, { onDelete: 'cascade' }),
    event: text('event').notNull(),
    template: text('template').notNull(),
    channel: text('channel', { enum: ['sms', 'email'] }).notNull(),
    status: text('status', { enum: notificationStatuses }).notNull(),
    recipient: text('recipient'),
    subject: text('subject'),
    body: text('body').notNull(),
    provider: text('provider'),
    providerMessageId: text('provider_message_id'),
    claimedAt: text('claimed_at'),
    sentAt: text('sent_at'),
    failureReason: text('failure_reason'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (table) => [
    index('off_premise_notifications_order').on(table.orderId, table.createdAt),
    index('off_premise_notifications_status').on(table.status, table.createdAt),
  ],
)

export type OffPremiseSettingsRow = typeof offPremiseSettings.$inferSelect
export type OffPremiseChannelRow = typeof offPremiseChannels.$inferSelect
export type OrderOffPremiseRow = typeof orderOffPremise.$inferSelect
export type OffPremiseNotificationRow = typeof offPremiseNotifications.$inferSelect
