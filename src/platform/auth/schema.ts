// The tenant's own bearer credentials: POS passcode sessions (`vps_`), their sign-in lockouts and
// tables-API credentials (`tpk_live_`). They live in the tenant's database, so a move or a
// failover, which carries that one file, carries them (README "Several nodes"). Only the SHA-256 of
// a token is stored; the token names its tenant (tokens.ts), so no other database is read to find it.
import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'

export const passcodeSessions = sqliteTable(
  'passcode_sessions',
  {
    id: text('id').primaryKey(),
    tokenHash: text('token_hash').notNull().unique(),
    staffUserId: text('staff_user_id').notNull(),
    locationId: text('location_id').notNull(),
    createdAt: text('created_at').notNull(),
    expiresAt: text('expires_at').notNull(),
    revokedAt: text('revoked_at'),
  },
  (table) => [
    index('passcode_sessions_staff').on(table.staffUserId),
    index('passcode_sessions_expires_at').on(table.expiresAt),
  ],
)

/** Failed passcode sign-ins per staff user, and the lock they lead to. */
export const passcodeAttempts = sqliteTable('passcode_attempts', {
  staffUserId: text('staff_user_id').primaryKey(),
  /** Attempts counted in the current window (claimed before the passcode is checked). */
  failures: integer('failures').notNull(),
  windowStartedAt: text('window_started_at').notNull(),
  lockedUntil: text('locked_until'),
})

export const apiCredentials = sqliteTable('api_credentials', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  tokenHash: text('token_hash').notNull().unique(),
  /** The last four characters of the token, so an operator can tell credentials apart. */
  tokenHint: text('token_hint').notNull(),
  scopes: text('scopes', { mode: 'json' }).$type<string[]>().notNull(),
  locationIds: text('location_ids', { mode: 'json' }).$type<string[]>().notNull(),
  rateLimitPerMinute: integer('rate_limit_per_minute').notNull(),
  createdAt: text('created_at').notNull(),
  revokedAt: text('revoked_at'),
})

/** A session as the rest of the service sees it: with the tenant whose database holds it. */
export type PasscodeSessionRow = typeof passcodeSessions.$inferSelect & { tenantId: string }
export type ApiCredentialRow = typeof apiCredentials.$inferSelect & { tenantId: string }
