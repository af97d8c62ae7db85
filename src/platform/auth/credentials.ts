// Tables-API credentials (`tpk_live_`): made and revoked from the command line or by an owner
// through /credentials, stored in the control database by token hash so the token alone selects its tenant. Each carries scopes, a
// location allowlist and a per-minute rate limit; its requests are audited with the subject
// `credential:<id>` and no staff user.
import { asc, eq } from 'drizzle-orm'
import { recordWrite } from '../audit/record-write'
import { ApiError, invalid, notFound } from '../http/problem'
import type { RequestInfo } from '../http/request-context'
import { newId, nowIso } from '../ids'
import { type ApiCredentialRow, apiCredentials } from '../tenancy/control-schema'
import type { ControlDb, TenantPool } from '../tenancy/databases'
import { findTenantById } from '../tenancy/tenants'
import { inWriteTransaction } from '../tenancy/transaction'
import type { AccessSources } from './access-sources'
import { type Actor, systemActor } from './actor'
import type { Permission } from './permissions'
import { CREDENTIAL_PREFIX, hashToken, newOpaqueToken } from './tokens'

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
export function presentCredential(row: ApiCredentialRow) {
  const { tokenHash: _hidden, ...rest } = row
  return { ...rest, status: row.revokedAt ? ('revoked' as const) : ('active' as const) }
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

  const token = newOpaqueToken(CREDENTIAL_PREFIX)
  const row = inWriteTransaction(control, (tx) =>
    tx
      .insert(apiCredentials)
      .values({
        id: newId(),
        tenantId: tenant.id,
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
      .get(),
  )
  try {
    inWriteTransaction(db, (tx) =>
      recordWrite(tx, actor ?? systemActor(tenant.id, 'cli'), {
        action: 'credential.create',
        entityType: 'api_credential',
        entityId: row.id,
        metadata: { name, scopes, locationIds, rateLimitPerMinute: rate, tokenHint: row.tokenHint },
      }),
    )
  } catch (error) {
    inWriteTransaction(control, (tx) => tx.delete(apiCredentials).where(eq(apiCredentials.id, row.id)).run())
    throw error
  }
  return { credential: presentCredential(row), token }
}

export function listCredentials(control: ControlDb, tenantId?: string) {
  return control
    .select()
    .from(apiCredentials)
    .where(tenantId ? eq(apiCredentials.tenantId, tenantId) : undefined)
    .orderBy(asc(apiCredentials.createdAt), asc(apiCredentials.id))
    .all()
    .map(presentCredential)
}

/**
 * Revokes at once: the update bumps the control database's auth version, so no cached principal
 * of the credential outlives it. `tenantId`: only a credential of this tenant (404 otherwise).
 */
export function revokeCredential(
  control: ControlDb,
  pool: TenantPool,
  id: string,
  by: { actor?: Actor; tenantId?: string } = {},
) {
  const row = control.select().from(apiCredentials).where(eq(apiCredentials.id, id)).get()
  if (!row || (by.tenantId !== undefined && row.tenantId !== by.tenantId)) throw notFound('credential', id)
  if (row.revokedAt) {
    throw new ApiError('conflict', `credential ${id} was already revoked at ${row.revokedAt}`, {
      extensions: { revokedAt: row.revokedAt },
    })
  }
  const revoked = inWriteTransaction(control, (tx) =>
    tx.update(apiCredentials).set({ revokedAt: nowIso() }).where(eq(apiCredentials.id, id)).returning().get(),
  )
  inWriteTransaction(pool.get(row.tenantId).db, (tx) =>
    recordWrite(tx, by.actor ?? systemActor(row.tenantId, 'cli'), {
      action: 'credential.revoke',
      entityType: 'api_credential',
      entityId: id,
      metadata: { name: row.name },
    }),
  )
  return presentCredential(revoked)
}

/** The active credential a `tpk_live_` token names, or 401. */
export function resolveCredential(control: ControlDb, token: string): ApiCredentialRow {
  const row = control
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
  return row
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
