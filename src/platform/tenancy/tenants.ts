// Tenants live in the control database; each has its own SQLite file in the pool.
import { asc, eq, sql } from 'drizzle-orm'
import { newId, nowIso } from '../foundation/ids'
import { ApiError, invalid } from '../foundation/problem'
import {
  controlApiCredentials,
  controlPasscodeAttempts,
  controlPasscodeSessions,
  legacyTokenTenants,
  type TenantRow,
  type TenantStatus,
  tenantDueWork,
  tenants,
} from './control-schema'
import type { ControlDb, Db, TenantPool } from './databases'
import { preparedOn } from './prepared'
import { inWriteTransaction } from './transaction'

export type Tenant = TenantRow

export const slugPattern = /^[a-z0-9][a-z0-9-]{0,62}$/
export const currencyPattern = /^[A-Z]{3}$/

/** How long an ephemeral tenant lives when its creator names no TTL, and at most. */
export const DEFAULT_EPHEMERAL_TTL_SECONDS = 3600
export const MAX_EPHEMERAL_TTL_SECONDS = 30 * 86400

export function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value })
    return true
  } catch {
    return false
  }
}

export interface NewTenant {
  slug: string
  name: string
  timezone?: string
  currency?: string
  /** Deleted by the scheduler `ttlSeconds` (default an hour) after it is created. */
  ephemeral?: boolean
  ttlSeconds?: number
}

function validated(control: ControlDb, input: NewTenant) {
  const timezone = input.timezone ?? 'UTC'
  const currency = input.currency ?? 'USD'
  if (!slugPattern.test(input.slug)) throw invalid('slug', 'lower-case letters, digits and dashes, 1..63')
  if (!input.name.trim()) throw invalid('name', 'must not be empty')
  if (!isTimeZone(timezone)) throw invalid('timezone', `unknown IANA time zone "${timezone}"`)
  if (!currencyPattern.test(currency)) throw invalid('currency', 'an ISO 4217 code such as USD')
  const ttl = input.ttlSeconds
  if (ttl !== undefined && !input.ephemeral) throw invalid('ttlSeconds', 'only ephemeral tenants expire')
  if (ttl !== undefined && (!Number.isInteger(ttl) || ttl < 1 || ttl > MAX_EPHEMERAL_TTL_SECONDS))
    throw invalid('ttlSeconds', `a whole number of seconds, 1..${MAX_EPHEMERAL_TTL_SECONDS}`)
  if (findTenantBySlug(control, input.slug))
    throw new ApiError('conflict', `tenant "${input.slug}" already exists`)
  return { timezone, currency, ttlSeconds: ttl ?? DEFAULT_EPHEMERAL_TTL_SECONDS }
}

/** A new tenant's row, validated (a taken slug is 409). */
export function newTenantRow(control: ControlDb, input: NewTenant): Tenant {
  const { timezone, currency, ttlSeconds } = validated(control, input)
  const now = new Date()
  return {
    id: newId(),
    slug: input.slug,
    name: input.name.trim(),
    timezone,
    currency,
    status: 'active',
    ephemeral: input.ephemeral ?? false,
    expiresAt: input.ephemeral ? new Date(now.getTime() + ttlSeconds * 1000).toISOString() : null,
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
  }
}

/**
 * Adds the control row of a tenant whose database is in place: from then on requests find it.
 * `registered` runs in the same control transaction (the operator audit entry of the action).
 */
export function registerTenant(
  control: ControlDb,
  tenant: Tenant,
  registered?: (tenant: Tenant) => void,
): void {
  inWriteTransaction(control, (tx) => {
    tx.insert(tenants).values(tenant).run()
    registered?.(tenant)
  })
}

export interface TenantSetup {
  /** Fills the new database (a first location and owner, demo data) before anyone sees the tenant. */
  prepare?(db: Db, tenant: Tenant): void
  /** Runs in the control transaction that registers the tenant. */
  registered?(tenant: Tenant): void
}

/**
 * Creates the tenant's database, lets `prepare` fill it, and only then adds its control row: no
 * request or job sees a tenant before it is complete, and a failure leaves nothing behind.
 */
export function createTenant(
  control: ControlDb,
  pool: TenantPool,
  input: NewTenant,
  setup: TenantSetup = {},
): Tenant {
  const tenant = newTenantRow(control, input)
  const { db } = pool.create(tenant.id)
  try {
    setup.prepare?.(db, tenant)
    registerTenant(control, tenant, setup.registered)
  } catch (error) {
    pool.destroy(tenant.id)
    throw error
  }
  return tenant
}

/**
 * createTenant for a database filled elsewhere: `fill` makes and fills the file at the tenant's
 * path on a connection of its own (another process) and resolves once it has closed it. Only then
 * is the control row added; a failure removes what was made.
 */
export async function createTenantFilledBy(
  control: ControlDb,
  pool: TenantPool,
  input: NewTenant,
  fill: (path: string, tenant: Tenant) => Promise<void>,
  registered?: (tenant: Tenant) => void,
): Promise<Tenant> {
  const tenant = newTenantRow(control, input)
  try {
    await fill(pool.databasePath(tenant.id), tenant)
    registerTenant(control, tenant, registered)
  } catch (error) {
    pool.destroy(tenant.id)
    throw error
  }
  return tenant
}

/** Through the control database's write transaction, so every process hears of it (auth signals). */
export function setTenantStatus(control: ControlDb, id: string, status: TenantStatus): Tenant {
  return inWriteTransaction(control, (tx) =>
    tx.update(tenants).set({ status, updatedAt: nowIso() }).where(eq(tenants.id, id)).returning().get(),
  )!
}

/** The tenant's control rows: itself, its due work, and what is left of its tokens from before 0006. */
export function deleteTenantRows(control: ControlDb, id: string): void {
  inWriteTransaction(control, (tx) => {
    tx.delete(controlPasscodeSessions).where(eq(controlPasscodeSessions.tenantId, id)).run()
    tx.delete(controlPasscodeAttempts).where(eq(controlPasscodeAttempts.tenantId, id)).run()
    tx.delete(controlApiCredentials).where(eq(controlApiCredentials.tenantId, id)).run()
    tx.delete(legacyTokenTenants).where(eq(legacyTokenTenants.tenantId, id)).run()
    tx.delete(tenantDueWork).where(eq(tenantDueWork.tenantId, id)).run()
    tx.delete(tenants).where(eq(tenants.id, id)).run()
  })
}

/** 403 `tenant_suspended` for a suspended tenant: every tenant route refuses it. */
export function assertTenantActive(tenant: Tenant): Tenant {
  if (tenant.status !== 'active')
    throw new ApiError('tenant_suspended', `Tenant ${tenant.slug} is suspended`, {
      extensions: { tenantId: tenant.id },
    })
  return tenant
}

export const findTenantBySlug = (control: ControlDb, slug: string): Tenant | undefined =>
  preparedOn(control, 'tenant-by-slug', () =>
    control
      .select()
      .from(tenants)
      .where(eq(tenants.slug, sql.placeholder('slug')))
      .prepare(),
  ).get({ slug })

export const findTenantById = (control: ControlDb, id: string): Tenant | undefined =>
  preparedOn(control, 'tenant-by-id', () =>
    control
      .select()
      .from(tenants)
      .where(eq(tenants.id, sql.placeholder('id')))
      .prepare(),
  ).get({ id })

export const listTenants = (control: ControlDb): Tenant[] =>
  control.select().from(tenants).orderBy(asc(tenants.slug)).all()

/**
 * Every tenant by id, read a page at a time: a sweep over ten thousand tenants holds a page of
 * rows, not all of them, while it works (a dozen jobs sweep at once after start). A tenant created
 * meanwhile is met at the end (ids grow with time).
 */
export const countTenants = (control: ControlDb): number =>
  control.select({ count: sql<number>`count(*)` }).from(tenants).get()?.count ?? 0

/** The first tenant by slug, without reading the others (start-up and health checks). */
export const firstTenant = (control: ControlDb): Tenant | undefined =>
  control.select().from(tenants).orderBy(asc(tenants.slug)).limit(1).get()
