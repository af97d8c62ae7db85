import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'

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
  },
  (table) => [index('outbox_events_object_action').on(table.object, table.action)],
)

export type OutboxEventRow = typeof outboxEvents.$inferSelect
