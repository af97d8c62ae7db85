// Tables of the control database: which tenants exist, and the lookups a bearer token needs
// before a tenant is known (passcode sessions and tables-API credentials, found by token hash).
import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core'

export const tenants = sqliteTable('tenants', {
  id: text('id').primaryKey(),
  slug: text('slug').notNull().unique(),
  name: text('name').notNull(),
  timezone: text('timezone').notNull(),
  createdAt: text('created_at').notNull(),
  updatedAt: text('updated_at').notNull(),
})

export type TenantRow = typeof tenants.$inferSelect

/** POS passcode sessions (`vps_` tokens): only the SHA-256 of the token is stored. */
export const passcodeSessions = sqliteTable(
  'passcode_sessions',
  {
    id: text('id').primaryKey(),
    tokenHash: text('token_hash').notNull().unique(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id),
    staffUserId: text('staff_user_id').notNull(),
    locationId: text('location_id').notNull(),
    createdAt: text('created_at').notNull(),
    expiresAt: text('expires_at').notNull(),
    revokedAt: text('revoked_at'),
  },
  (table) => [index('passcode_sessions_staff').on(table.tenantId, table.staffUserId)],
)

export type PasscodeSessionRow = typeof passcodeSessions.$inferSelect

/** Failed passcode sign-ins per staff user, and the lock they lead to. */
export const passcodeAttempts = sqliteTable(
  'passcode_attempts',
  {
    tenantId: text('tenant_id').notNull(),
    staffUserId: text('staff_user_id').notNull(),
    /** Attempts counted in the current window (claimed before the passcode is checked). */
    failures: integer('failures').notNull(),
    windowStartedAt: text('window_started_at').notNull(),
    lockedUntil: text('locked_until'),
  },
  (table) => [primaryKey({ columns: [table.tenantId, table.staffUserId] })],
)

/** Tables-API credentials (`tpk_live_` tokens): only the SHA-256 of the token is stored. */
export const apiCredentials = sqliteTable(
  'api_credentials',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id),
    name: text('name').notNull(),
    tokenHash: text('token_hash').notNull().unique(),
    /** The last four characters of the token, so an operator can tell credentials apart. */
    tokenHint: text('token_hint').notNull(),
    scopes: text('scopes', { mode: 'json' }).$type<string[]>().notNull(),
    locationIds: text('location_ids', { mode: 'json' }).$type<string[]>().notNull(),
    rateLimitPerMinute: integer('rate_limit_per_minute').notNull(),
    createdAt: text('created_at').notNull(),
    revokedAt: text('revoked_at'),
  },
  (table) => [index('api_credentials_tenant').on(table.tenantId)],
)

export type ApiCredentialRow = typeof apiCredentials.$inferSelect
