// Tables-API credentials (`tpk_live_`): made and revoked from the command line or by an owner
// through /credentials, stored by token hash in the tenant's own database (schema.ts), in the
// transaction of their audit entry, so they move with the tenant; the token names its tenant
// (tokens.ts). Each carries scopes, a location allowlist and a per-minute rate limit; its requests
// are audited with the subject `credential:<id>` and no staff user.
import { asc, eq } from 'drizzle-orm'
import { recordWrite } from '../audit/record-write'
import { type Actor, systemActor } from '../foundation/actor'
import { newId, nowIso } from '../foundation/ids'
import { ApiError, invalid, notFound } from '../foundation/problem'
import type { RequestInfo } from '../foundation/request-context'
import type { ControlDb, Db, TenantPool } from '../tenancy/databases'
import { findTenantById, listTenants } from '../tenancy/tenants'
import { inWriteTransaction } from '../tenancy/transaction'
import type { AccessSources } from './access-sources'
import type { Permission } from './permissions'
import { type ApiCredentialRow, apiCredentials } from './schema'
import { CREDENTIAL_PREFIX, hashToken, newTenantToken } from './tokens'

/** What a credential may be granted; each is also the permission primitive it stands for. */
export const credentialScopes = [
  'events:read',
  'reservations:read',
  'reservations:write',
  'webhooks:manage',
] as const
export type CredentialScope = (typeof credentialScopes)[number] & Permission

export const isCredentialScope = (value: string): value is CredentialScope =>
  (credentialScopes as readonly string[]).includes(value)

/** Only these routes accept a credential at all. */
export const CREDENTIAL_ROUTE_PREFIX = '/tables-api/v1/'

export const DEFAULT_CREDENTIAL_RATE_LIMIT = 120
export const MAX_CREDENTIAL_RATE_LIMIT = 100_000

export interface NewCredential {
  tenantId: string
  name: string
  scopes: string[]
  locationIds: string[]
  rateLimitPerMinute?: number
}

/** The stored credential as shown to operators: never the token or its hash. */
export function presentCredential(row: Omit<ApiCredentialRow, 'tenantId'>, tenantId: string) {
  const { tokenHash: _hidden, ...rest } = row
  return { ...rest, tenantId, status: row.revokedAt ? ('revoked' as const) : ('active' as const) }
}

export function createCredential(
  control: ControlDb,
  pool: TenantPool,
  access: Pick<AccessSources, 'locationIds'>,
  input: NewCredential,
  /** Who made it, for the tenant's audit trail (the command line when absent). */
  actor?: Actor,
): { credential: ReturnType<typeof presentCredential>; token: string } {
  const tenant = findTenantById(control, input.tenantId)
  if (!tenant) throw notFound('tenant', input.tenantId)
  const name = input.name.trim()
  if (!name || name.length > 200) throw invalid('name', 'must be 1..200 characters')
  const scopes = [...new Set(input.scopes.map((s) => s.trim()).filter(Boolean))]
  if (scopes.length === 0) throw invalid('scopes', `give at least one of ${credentialScopes.join(', ')}`)
  for (const scope of scopes) {
    if (!isCredentialScope(scope))
      throw invalid('scopes', `unknown scope "${scope}"; one of ${credentialScopes.join(', ')}`)
  }
  const locationIds = [...new Set(input.locationIds.map((s) => s.trim()).filter(Boolean))]
  if (locationIds.length === 0) throw invalid('locations', 'give at least one location id')
  const { db } = pool.get(tenant.id)
  const known = new Set(access.locationIds(db))
  for (const id of locationIds) {
    if (!known.has(id)) throw invalid('locations', `location ${id} not found in tenant ${tenant.slug}`)
  }
  const rate = input.rateLimitPerMinute ?? DEFAULT_CREDENTIAL_RATE_LIMIT
  if (!Number.isInteger(rate) || rate < 1 || rate > MAX_CREDENTIAL_RATE_LIMIT) {
    throw invalid('rateLimitPerMinute', `must be a whole number 1..${MAX_CREDENTIAL_RATE_LIMIT}`)
  }

  const token = newTenantToken(CREDENTIAL_PREFIX, tenant.id)
  const row = inWriteTransaction(db, (tx) => {
    const created = tx
      .insert(apiCredentials)
      .values({
        id: newId(),
        name,
        tokenHash: hashToken(token),
        tokenHint: token.slice(-4),
        scopes,
        locationIds,
        rateLimitPerMinute: rate,
        createdAt: nowIso(),
        revokedAt: null,
      })
      .returning()
      .get()
    recordWrite(tx, actor ?? systemActor(tenant.id, 'cli'), {
      action: 'credential.create',
      entityType: 'api_credential',
      entityId: created.id,
      metadata: { name, scopes, locationIds, rateLimitPerMinute: rate, tokenHint: created.tokenHint },
    })
    return created
  })
  return { credential: presentCredential(row, tenant.id), token }
}

const tenantCredentials = (db: Db, tenantId: string) =>
  db
    .select()
    .from(apiCredentials)
    .orderBy(asc(apiCredentials.createdAt), asc(apiCredentials.id))
    .all()
    .map((row) => presentCredential(row, tenantId))

/**
 * The tenant's credentials, oldest first; without a tenant (the command line), those of every
 * tenant of this data directory, tenant by tenant.
 */
export function listCredentials(control: ControlDb, pool: TenantPool, tenantId?: string) {
  const tenants = tenantId === undefined ? listTenants(control).map((t) => t.id) : [tenantId]
  return tenants.flatMap((id) => tenantCredentials(pool.get(id).db, id))
}

/**
 * Revokes at once: the update bumps the tenant's auth version, so no cached principal of the
 * credential outlives it. `tenantId`: the credential's tenant (404 when it is not one of its);
 * without it (the command line), the tenant of this data directory that holds it.
 */
export function revokeCredential(
  control: ControlDb,
  pool: TenantPool,
  id: string,
  by: { actor?: Actor; tenantId?: string } = {},
) {
  const candidates = by.tenantId === undefined ? listTenants(control).map((t) => t.id) : [by.tenantId]
  const owner = candidates.find(
    (tenantId) =>
      pool
        .get(tenantId)
        .db.select({ id: apiCredentials.id })
        .from(apiCredentials)
        .where(eq(apiCredentials.id, id))
        .get() !== undefined,
  )
  if (owner === undefined) throw notFound('credential', id)
  const revoked = inWriteTransaction(pool.get(owner).db, (tx) => {
    const row = tx.select().from(apiCredentials).where(eq(apiCredentials.id, id)).get()!
    if (row.revokedAt) {
      throw new ApiError('conflict', `credential ${id} was already revoked at ${row.revokedAt}`, {
        extensions: { revokedAt: row.revokedAt },
      })
    }
    recordWrite(tx, by.actor ?? systemActor(owner, 'cli'), {
      action: 'credential.revoke',
      entityType: 'api_credential',
      entityId: id,
      metadata: { name: row.name },
    })
    return tx
      .update(apiCredentials)
      .set({ revokedAt: nowIso() })
      .where(eq(apiCredentials.id, id))
      .returning()
      .get()
  })
  return presentCredential(revoked, owner)
}

/** The active credential a `tpk_live_` token names, in the database of the tenant it belongs to, or 401. */
export function resolveCredential(db: Db, tenantId: string, token: string): ApiCredentialRow {
  const row = db
    .select()
    .from(apiCredentials)
    .where(eq(apiCredentials.tokenHash, hashToken(token)))
    .get()
  const refuse = (reason: string) =>
    new ApiError('unauthenticated', `Credential refused: ${reason}`, {
      headers: { 'www-authenticate': 'Bearer error="invalid_token"' },
    })
  if (!row) throw refuse('unknown token')
  if (row.revokedAt) throw refuse('the credential has been revoked')
  return { ...row, tenantId }
}

export function credentialActor(
  row: ApiCredentialRow,
  info: RequestInfo,
  method: string,
  route: string,
): Actor {
  return {
    kind: 'credential',
    subject: `credential:${row.id}`,
    staffUserId: null,
    tenantId: row.tenantId,
    locationId: null,
    requestId: info.requestId,
    ipAddress: info.ipAddress,
    userAgent: info.userAgent,
    method,
    route,
  }
}
