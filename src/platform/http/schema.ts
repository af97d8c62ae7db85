import { integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core'

/** Stored first responses of requests sent with an `idempotency-key` header. */
export const idempotencyKeys = sqliteTable(
  'idempotency_keys',
  {
    /** Who sent it and to which operation: subject, method and route pattern. */
    scope: text('scope').notNull(),
    key: text('key').notNull(),
    requestHash: text('request_hash').notNull(),
    /** in_flight while the first request runs; completed once its response is stored. */
    state: text('state', { enum: ['in_flight', 'completed'] }).notNull(),
    responseStatus: integer('response_status'),
    responseBody: text('response_body'),
    createdAt: text('created_at').notNull(),
    expiresAt: text('expires_at').notNull(),
  },
  (table) => [primaryKey({ columns: [table.scope, table.key] })],
)
