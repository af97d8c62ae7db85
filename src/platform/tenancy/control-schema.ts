// Tables of the control database: which tenants exist, the tenant of each bearer token issued
// before tokens named their tenant, and the operator's own keys and audit log.
import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core'

export const tenantStatuses = ['active', 'suspended'] as const
export type TenantStatus = (typeof tenantStatuses)[number]

export const tenants = sqliteTable(
  'tenants',
  {
    id: text('id').primaryKey(),
    slug: text('slug').notNull().unique(),
    name: text('name').notNull(),
    timezone: text('timezone').notNull(),
    /** ISO 4217 code of the business's money. */
    currency: text('currency').notNull().default('USD'),
    /** Suspended: every tenant route answers 403 `tenant_suspended` and its jobs pause. */
    status: text('status', { enum: tenantStatuses }).notNull().default('active'),
    /** Ephemeral tenants are deleted by the scheduler, without a final snapshot, once `expiresAt` passes. */
    ephemeral: integer('ephemeral', { mode: 'boolean' }).notNull().default(false),
    expiresAt: text('expires_at'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (table) => [index('tenants_expires_at').on(table.expiresAt)],
)

export type TenantRow = typeof tenants.$inferSelect

// Passcode sessions, their lockouts and tables-API credentials lived here until tenant migration
// 0031 gave each tenant its own (platform/auth/schema.ts). Rows left from before are carried into
// their tenant's database when it is first opened (platform/auth/carry-credentials.ts), after
// which these tables stay empty.

/** Passcode sessions (`vps_` tokens) from before they lived with their tenant. */
export const controlPasscodeSessions = sqliteTable(
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

/** Passcode lockouts from before they lived with their tenant. */
export const controlPasscodeAttempts = sqliteTable(
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

/** Tables-API credentials (`tpk_live_` tokens) from before they lived with their tenant. */
export const controlApiCredentials = sqliteTable(
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

/**
 * The tenant of each `vps_` and `tpk_live_` token issued before tokens named their tenant (control
 * migration 0006 filled it from the tables above): such a token finds its tenant here, and its
 * row in the tenant's database. Kept while the tenant lives on this node's data directory.
 */
export const legacyTokenTenants = sqliteTable(
  'legacy_token_tenants',
  {
    tokenHash: text('token_hash').primaryKey(),
    tenantId: text('tenant_id').notNull(),
  },
  (table) => [index('legacy_token_tenants_tenant').on(table.tenantId)],
)

/** Operator keys (`opk_` tokens) for the operator API under /admin: only the SHA-256 is stored. */
export const operatorKeys = sqliteTable('operator_keys', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  tokenHash: text('token_hash').notNull().unique(),
  /** The last four characters of the token, so an operator can tell keys apart. */
  tokenHint: text('token_hint').notNull(),
  createdAt: text('created_at').notNull(),
  revokedAt: text('revoked_at'),
})

export type OperatorKeyRow = typeof operatorKeys.$inferSelect

/** What operators did to tenants and keys; append-only (triggers refuse UPDATE and DELETE). */
export const operatorAuditEntries = sqliteTable(
  'operator_audit_entries',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    id: text('id').notNull().unique(),
    /** `operator-key:<id>`, an operator JWT's `sub`, `system:cli` or `system:<job>`. */
    subject: text('subject').notNull(),
    /** `tenant.create`, `tenant.suspend`, `operator_key.revoke`... */
    action: text('action').notNull(),
    /** No reference: the entry outlives the tenant it names. */
    tenantId: text('tenant_id'),
    tenantSlug: text('tenant_slug'),
    metadata: text('metadata', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    requestId: text('request_id'),
    ipAddress: text('ip_address'),
    userAgent: text('user_agent'),
    createdAt: text('created_at').notNull(),
  },
  (table) => [index('operator_audit_entries_tenant').on(table.tenantId)],
)

export type OperatorAuditEntryRow = typeof operatorAuditEntries.$inferSelect

/**
 * When each tenant next has work for each background job (platform/jobs/due-index.ts): written
 * after the tenant's writes commit and after each visit, so a start and each sweep open only the
 * tenants with work due. No row for a job: not known yet, visited once.
 */
export const tenantDueWork = sqliteTable(
  'tenant_due_work',
  {
    tenantId: text('tenant_id').notNull(),
    job: text('job').notNull(),
    /** Epoch ms; null: only a write can bring work. */
    dueAt: integer('due_at'),
    /** Epoch ms of the computation: a tenant file modified later was written without it. */
    indexedAt: integer('indexed_at').notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.tenantId, table.job] }),
    index('tenant_due_work_job').on(table.job, table.dueAt),
  ],
)
