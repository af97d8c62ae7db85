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
