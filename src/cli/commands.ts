// The command line: each command honours DATA_DIR and prints one JSON object as its last line.

import { parseArgs } from 'node:util'
import { loadConfig } from '../config'
import { dueWorkSources, registerFamilies } from '../modules'
import { accessSources } from '../modules/access'
import { createLocation } from '../modules/locations'
import { createStaffUser, findStaffIdBySubject, findStaffUser, presentStaffUser } from '../modules/staff'
import { fillTenantDatabase } from '../modules/tenants'
import { verifyAuditChain } from '../platform/audit/audit'
import { createCredential, listCredentials, revokeCredential } from '../platform/auth/credentials'
import { resolveLitestreamBinary } from '../platform/backup/litestream'
import { restoreTenant } from '../platform/backup/restore'
import { systemActor } from '../platform/foundation/actor'
import { ApiError } from '../platform/foundation/problem'
import { openPlatform, type Platform } from '../platform/platform'
import { migrateAll } from '../platform/tenancy/databases'
import { listTenants } from '../platform/tenancy/tenants'
import { backupNow } from './backup'
import { moveCommand, rebalanceCommand } from './cluster-commands'
import { exportCommand, importCommand } from './data-commands'
import { CommandFailure, optional, required, UsageError } from './flags'
import { serve } from './serve'
import { tenantCommands, tenantOf } from './tenant-commands'

export { CommandFailure, UsageError }

const list = (value: string): string[] =>
  value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)

const stringOption = { type: 'string' } as const
const booleanOption = { type: 'boolean' } as const
const options = {
  slug: stringOption,
  name: stringOption,
  timezone: stringOption,
  tenant: stringOption,
  email: stringOption,
  'first-name': stringOption,
  'last-name': stringOption,
  subject: stringOption,
  role: stringOption,
  location: stringOption,
  passcode: stringOption,
  ttl: stringOption,
  timestamp: stringOption,
  from: stringOption,
  to: stringOption,
  scopes: stringOption,
  locations: stringOption,
  'rate-limit': stringOption,
  id: stringOption,
  address1: stringOption,
  address2: stringOption,
  city: stringOption,
  state: stringOption,
  'postal-code': stringOption,
  country: stringOption,
  phone: stringOption,
  currency: stringOption,
  seed: stringOption,
  'owner-subject': stringOption,
  'owner-email': stringOption,
  ephemeral: booleanOption,
  'purge-snapshots': booleanOption,
  out: stringOption,
  file: stringOption,
  kind: stringOption,
  validate: booleanOption,
  'emit-events': booleanOption,
  mapping: stringOption,
  format: stringOption,
} as const

async function withPlatform<T>(work: (platform: Platform) => T | Promise<T>): Promise<T> {
  const platform = await openPlatform(loadConfig(), { access: accessSources, dueWork: dueWorkSources })
  try {
    return await work(platform)
  } finally {
    platform.close()
  }
}

/** Runs one command; returns the JSON object to print, or null for `serve` (it prints its own). */
export async function runCommand(argv: string[]): Promise<unknown> {
  const { positionals, values: flags } = parseArgs({
    args: argv,
    options,
    allowPositionals: true,
    strict: true,
  })
  const [command, sub] = positionals
  // `import FILE` and `export KIND` take a value, not a subcommand.
  if (command === 'import') {
    // The rows' writes go through the families' hooks (an order's payments, dynamic tags), as in the server.
    registerFamilies()
    return withPlatform((p) => importCommand(p, sub, flags))
  }
  if (command === 'export') return withPlatform((p) => exportCommand(p, sub, flags))
  const name = `${command} ${sub ?? ''}`.trim()
  switch (name) {
    case 'serve':
      await serve(loadConfig())
      return null
    case 'tenant move':
      return moveCommand(loadConfig(), positionals[2], flags)
    case 'tenant rebalance':
      return rebalanceCommand(loadConfig())
    case 'tenant list':
      return withPlatform((p) => ({
        tenants: listTenants(p.control.db).map(
          ({ id, slug, name, timezone, currency, status, ephemeral, expiresAt }) => ({
            id,
            slug,
            name,
            timezone,
            currency,
            status,
            ephemeral,
            expiresAt,
          }),
        ),
      }))
    case 'location create':
      return withPlatform((p) => {
        const tenant = tenantOf(p, required(flags, 'tenant'))
        const location = createLocation(p.pool.get(tenant.id).db, systemActor(tenant.id, 'cli'), {
          name: required(flags, 'name'),
          timezone: optional(flags, 'timezone') ?? tenant.timezone,
          address: {
            addressLine1: optional(flags, 'address1') ?? null,
            addressLine2: optional(flags, 'address2') ?? null,
            city: optional(flags, 'city') ?? null,
            stateCode: optional(flags, 'state') ?? null,
            postalCode: optional(flags, 'postal-code') ?? null,
            countryCode: optional(flags, 'country') ?? null,
            phone: optional(flags, 'phone') ?? null,
          },
        })
        return { id: location.id, name: location.name, timezone: location.timezone }
      })
    case 'staff create':
      return withPlatform((p) => {
        const tenant = tenantOf(p, required(flags, 'tenant'))
        const staff = createStaffUser(p.pool.get(tenant.id).db, systemActor(tenant.id, 'cli'), {
          email: required(flags, 'email'),
          firstName: required(flags, 'first-name'),
          lastName: required(flags, 'last-name'),
          subject: optional(flags, 'subject'),
          role: optional(flags, 'role'),
          locationId: optional(flags, 'location'),
          passcode: optional(flags, 'passcode'),
        })
        return {
          ...presentStaffUser(staff),
          subject: optional(flags, 'subject') ?? null,
          role: optional(flags, 'role') ?? null,
          locationId: optional(flags, 'location') ?? null,
        }
      })
    case 'token':
      return withPlatform(async (p) => {
        if (!p.devIssuer)
          throw new UsageError('AUTH_JWKS_URL is set: tokens come from that identity provider')
        const tenant = tenantOf(p, required(flags, 'tenant'))
        const subject = required(flags, 'subject')
        const ttl = Number(optional(flags, 'ttl') ?? 3600)
        if (!Number.isInteger(ttl) || ttl < 1 || ttl > 31 * 86400)
          throw new UsageError('--ttl must be 1..2678400 seconds')
        const { db } = p.pool.get(tenant.id)
        const staffUserId = findStaffIdBySubject(db, subject)
        if (!staffUserId || findStaffUser(db, staffUserId)?.status !== 'active') {
          throw new UsageError(
            `no active staff user of tenant "${tenant.slug}" is mapped to subject "${subject}"`,
          )
        }
        return { token: await p.devIssuer.mint({ subject, ttlSeconds: ttl }), expiresIn: ttl, staffUserId }
      })
    case 'credential create':
      return withPlatform((p) => {
        const tenant = tenantOf(p, required(flags, 'tenant'))
        const rate = optional(flags, 'rate-limit')
        if (rate !== undefined && !/^\d+$/.test(rate))
          throw new UsageError('--rate-limit must be a whole number')
        const { credential, token } = createCredential(p.control.db, p.pool, accessSources, {
          tenantId: tenant.id,
          name: required(flags, 'name'),
          scopes: list(required(flags, 'scopes')),
          locationIds: list(required(flags, 'locations')),
          rateLimitPerMinute: rate === undefined ? undefined : Number(rate),
        })
        return {
          id: credential.id,
          token,
          tenant: tenant.slug,
          name: credential.name,
          scopes: credential.scopes,
          locationIds: credential.locationIds,
          rateLimitPerMinute: credential.rateLimitPerMinute,
        }
      })
    case 'credential list':
      return withPlatform((p) => {
        const slug = optional(flags, 'tenant')
        const tenant = slug === undefined ? undefined : tenantOf(p, slug)
        return { credentials: listCredentials(p.control.db, p.pool, tenant?.id) }
      })
    case 'credential revoke':
      return withPlatform((p) => {
        const slug = optional(flags, 'tenant')
        const tenantId = slug === undefined ? undefined : tenantOf(p, slug).id
        return revokeCredential(p.control.db, p.pool, required(flags, 'id'), { tenantId })
      })
    case 'audit verify':
      return withPlatform((p) => {
        const tenant = tenantOf(p, required(flags, 'tenant'))
        const verdict = verifyAuditChain(p.pool.get(tenant.id).db)
        const result = { tenant: tenant.slug, ...verdict }
        if (!verdict.ok) {
          throw new CommandFailure(
            `audit chain of tenant "${tenant.slug}" is broken at entry ${verdict.firstBadEntryId} (seq ${verdict.seq}); ${verdict.count} entries before it verify`,
            result,
          )
        }
        return result
      })
    case 'fill-tenant':
      // Internal: `serve` makes the embedded demo through it (src/modules/tenants/fill-process.ts),
      // with the families' hooks, as in the server.
      registerFamilies()
      return fillTenantDatabase(JSON.parse(await Bun.stdin.text()))
    case 'migrate': {
      const config = loadConfig()
      return migrateAll(config.dataDir, {
        synchronous: config.sqliteSynchronous,
        busyTimeoutMs: config.sqliteBusyTimeoutMs,
      })
    }
    case 'backup':
      return withPlatform((p) => backupNow(p))
    case 'restore':
      return withPlatform((p) => {
        const tenant = tenantOf(p, required(flags, 'tenant'))
        const from = optional(flags, 'from') ?? (p.config.litestreamReplicaUrl ? 'replica' : 'snapshot')
        if (from !== 'snapshot' && from !== 'replica')
          throw new UsageError('--from must be snapshot or replica')
        const at = optional(flags, 'timestamp')
        const timestamp = at === undefined ? undefined : new Date(at)
        if (timestamp && Number.isNaN(timestamp.getTime()))
          throw new UsageError('--timestamp must be an ISO date-time')
        return restoreTenant({
          dataDir: p.config.dataDir,
          backupDir: p.config.backupDir,
          tenant,
          from,
          timestamp,
          to: optional(flags, 'to'),
          replicaUrl: p.config.litestreamReplicaUrl,
          s3: p.config.litestreamS3,
          litestreamBin: resolveLitestreamBinary(p.config.litestreamBin),
        })
      })
    default: {
      const run = tenantCommands[name]
      if (!run) throw new UsageError(`unknown command "${positionals.join(' ')}"`)
      return withPlatform((p) => run(p, flags))
    }
  }
}

export function describeFailure(error: unknown): string {
  if (error instanceof ApiError) {
    const fields = error.options.errors?.map((e) => `${e.path}: ${e.message}`).join('; ')
    return fields ? `${error.detail} (${fields})` : error.detail
  }
  return error instanceof Error ? error.message : String(error)
}
