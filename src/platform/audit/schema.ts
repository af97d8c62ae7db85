import { sql } from 'drizzle-orm'
import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'

/**
 * Append-only (triggers refuse UPDATE and DELETE, see the audit_append_only migration) and
 * hash-chained: each entry stores the previous entry's hash and its own.
 */
export const auditEntries = sqliteTable(
  'audit_entries',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    id: text('id').notNull().unique(),
    subject: text('subject'),
    staffUserId: text('staff_user_id'),
    tenantId: text('tenant_id').notNull(),
    locationId: text('location_id'),
    requestId: text('request_id'),
    ipAddress: text('ip_address'),
    userAgent: text('user_agent'),
    method: text('method'),
    route: text('route'),
    action: text('action').notNull(),
    entityType: text('entity_type').notNull(),
    entityId: text('entity_id'),
    metadata: text('metadata', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    createdAt: text('created_at').notNull(),
    prevHash: text('prev_hash').notNull(),
    hash: text('hash').notNull(),
  },
  (table) => [
    index('audit_entries_entity').on(table.entityType, table.entityId),
    index('audit_entries_created').on(table.createdAt),
  ],
)

export type AuditEntryRow = typeof auditEntries.$inferSelect

/** Transactional outbox: a write appends its events here in its own transaction. */
export const outboxEvents = sqliteTable(
  'outbox_events',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    id: text('id').notNull().unique(),
    object: text('object').notNull(),
    action: text('action').notNull(),
    aggregateId: text('aggregate_id'),
    payload: text('payload', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    /** Who caused the event, as Commerce7's `user` field: a staff user id or a credential subject. */
    user: text('user'),
    locationId: text('location_id'),
    requestId: text('request_id'),
    createdAt: text('created_at').notNull(),
    /** When the delivery worker fanned the event out to the subscriptions matching it then. */
    dispatchedAt: text('dispatched_at'),
  },
  (table) => [
    index('outbox_events_object_action').on(table.object, table.action),
    index('outbox_events_undispatched').on(table.seq).where(sql`dispatched_at IS NULL`),
  ],
)

export type OutboxEventRow = typeof outboxEvents.$inferSelect
