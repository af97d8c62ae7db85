import { sql } from 'drizzle-orm'
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'

export type SubscriptionFamily = 'legacy' | 'tables'

/**
 * Webhook subscriptions of both families: legacy `/web-hook` (with custom headers) and the
 * tables API's `/tables-api/v1/webhook-subscriptions`. One table, so one worker delivers both.
 */
export const webhookSubscriptions = sqliteTable(
  'webhook_subscriptions',
  {
    id: text('id').primaryKey(),
    family: text('family', { enum: ['legacy', 'tables'] }).notNull(),
    /** Matched case-insensitively against the event's `object` and `action`. */
    object: text('object').notNull(),
    action: text('action').notNull(),
    url: text('url').notNull(),
    enabled: integer('enabled', { mode: 'boolean' }).notNull(),
    /** Why the service disabled it (a 410 from the receiver), null when enabled or disabled by a user. */
    disabledReason: text('disabled_reason'),
    headers: text('headers', { mode: 'json' }).$type<Record<string, string>>().notNull(),
    /** The `whsec_` signing secret; shown only in the create and rotate responses. */
    secret: text('secret').notNull(),
    /**
     * After a rotation, the replaced secret: deliveries carry a signature with each (Standard
     * Webhooks) until `previousSecretExpiresAt`, so receivers can switch without missing one.
     */
    previousSecret: text('previous_secret'),
    previousSecretExpiresAt: text('previous_secret_expires_at'),
    /**
     * The locations whose events it receives, when made by a caller bound to some (a tables-API
     * credential's allowlist, say); null: every location's, and events of no location.
     */
    locationIds: text('location_ids', { mode: 'json' }).$type<string[]>(),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (table) => [
    index('webhook_subscriptions_match').on(sql`lower(${table.object})`, sql`lower(${table.action})`),
    index('webhook_subscriptions_family').on(table.family, table.createdAt),
  ],
)

export type WebhookSubscriptionRow = typeof webhookSubscriptions.$inferSelect

export type DeliveryStatus = 'pending' | 'delivering' | 'succeeded' | 'dead'

/**
 * One event to one subscription. `pending` waits for `nextAttemptAt`; `delivering` holds a lease
 * until `nextAttemptAt` (a crash mid-request lets the lease run out, and the attempt is retried);
 * `succeeded` and `dead` are final until a replay starts a new `deliveryCycle`.
 */
export const webhookDeliveries = sqliteTable(
  'webhook_deliveries',
  {
    id: text('id').primaryKey(),
    eventId: text('event_id').notNull(),
    /** Not a foreign key: a deleted subscription's deliveries stay on record. */
    subscriptionId: text('subscription_id').notNull(),
    /** The Standard Webhooks `webhook-id`, the same on every attempt and every replay. */
    messageId: text('message_id').notNull(),
    status: text('status', { enum: ['pending', 'delivering', 'succeeded', 'dead'] })
      .$type<DeliveryStatus>()
      .notNull(),
    deliveryCycle: integer('delivery_cycle').notNull(),
    attemptsInCycle: integer('attempts_in_cycle').notNull(),
    nextAttemptAt: text('next_attempt_at'),
    lastError: text('last_error'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (table) => [
    uniqueIndex('webhook_deliveries_event_subscription').on(table.eventId, table.subscriptionId),
    index('webhook_deliveries_due').on(table.status, table.nextAttemptAt),
  ],
)

export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect

export type AttemptStatus = 'delivering' | 'succeeded' | 'failed'

/** Every HTTP attempt (or attempt refused before sending): the web-hook log and DeliveryAttempt. */
export const webhookDeliveryAttempts = sqliteTable(
  'webhook_delivery_attempts',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    id: text('id').notNull().unique(),
    deliveryId: text('delivery_id').notNull(),
    eventId: text('event_id').notNull(),
    subscriptionId: text('subscription_id').notNull(),
    url: text('url').notNull(),
    attemptNumber: integer('attempt_number').notNull(),
    deliveryCycle: integer('delivery_cycle').notNull(),
    status: text('status', { enum: ['delivering', 'succeeded', 'failed'] })
      .$type<AttemptStatus>()
      .notNull(),
    /** Sent headers; custom header values are redacted. */
    requestHeaders: text('request_headers', { mode: 'json' }).$type<Record<string, string>>().notNull(),
    responseStatus: integer('response_status'),
    hasResponseBody: integer('has_response_body', { mode: 'boolean' }).notNull(),
    responseBodyBytes: integer('response_body_bytes').notNull(),
    /** The first few KiB of the response body, for the log's `error.data`. */
    responseExcerpt: text('response_excerpt'),
    errorMessage: text('error_message'),
    startedAt: text('started_at').notNull(),
    completedAt: text('completed_at'),
  },
  (table) => [
    index('webhook_delivery_attempts_event').on(table.eventId),
    index('webhook_delivery_attempts_delivery').on(table.deliveryId),
  ],
)

export type WebhookDeliveryAttemptRow = typeof webhookDeliveryAttempts.$inferSelect

export type DeadLetterStatus = 'pending' | 'replaying' | 'delivered'

/** An event with at least one delivery whose retry schedule is spent. One per event. */
export const webhookDeadLetters = sqliteTable(
  'webhook_dead_letters',
  {
    id: text('id').primaryKey(),
    eventId: text('event_id').notNull().unique(),
    objectType: text('object_type').notNull(),
    action: text('action').notNull(),
    aggregateId: text('aggregate_id'),
    payloadKeys: text('payload_keys', { mode: 'json' }).$type<string[]>().notNull(),
    status: text('status', { enum: ['pending', 'replaying', 'delivered'] })
      .$type<DeadLetterStatus>()
      .notNull(),
    deliveryCycle: integer('delivery_cycle').notNull(),
    availableAt: text('available_at').notNull(),
    lastError: text('last_error'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (table) => [index('webhook_dead_letters_status').on(table.status, table.createdAt)],
)

export type WebhookDeadLetterRow = typeof webhookDeadLetters.$inferSelect

/** Operator actions on a dead letter: `manual_review` (a note) and `replay`. */
export const webhookDeadLetterActions = sqliteTable(
  'webhook_dead_letter_actions',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    id: text('id').notNull().unique(),
    deadLetterId: text('dead_letter_id')
      .notNull()
      .references(() => webhookDeadLetters.id),
    action: text('action', { enum: ['manual_review', 'replay'] }).notNull(),
    deliveryCycle: integer('delivery_cycle').notNull(),
    note: text('note'),
    actorStaffUserId: text('actor_staff_user_id'),
    createdAt: text('created_at').notNull(),
  },
  (table) => [index('webhook_dead_letter_actions_letter').on(table.deadLetterId, table.seq)],
)

export type WebhookDeadLetterActionRow = typeof webhookDeadLetterActions.$inferSelect
