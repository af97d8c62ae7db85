// The operator's commands: tenants (create, suspend, resume, delete, export, import) and operator
// keys, the same actions as the operator API, recorded in the operator audit log as `system:cli`.
import { copyFileSync, existsSync, statSync } from 'node:fs'
import { registerFamilies } from '../modules'
import {
  changeTenantStatus,
  createTenantWithOwner,
  deleteTenant,
  exportTenantTo,
  importTenant,
  presentTenant,
  publishToCluster,
  seeds,
} from '../modules/tenants'
import { recordOperatorAction, systemOperator } from '../platform/operator/audit'
import {
  createSharedOperatorKey,
  listSharedOperatorKeys,
  revokeSharedOperatorKey,
} from '../platform/operator/keys'
import type { Platform } from '../platform/platform'
import { createTenant, findTenantBySlug, type Tenant } from '../platform/tenancy/tenants'
import { type Flags, optional, required, UsageError, wholeNumber } from './flags'

const cli = systemOperator('cli')

/** In a cluster, operator keys are shared through its etcd: a key opens every node. */
const sharedKeys = (p: Platform) =>
  p.cluster ? { etcd: p.cluster.etcd, prefix: p.cluster.settings.prefix } : null

export function tenantOf(platform: Platform, slug: string): Tenant {
  const tenant = findTenantBySlug(platform.control.db, slug)
  if (!tenant) throw new UsageError(`tenant "${slug}" not found`)
  return tenant
}

function seedOf(flags: Flags) {
  const seed = optional(flags, 'seed')
  if (seed !== undefined && !(seeds as readonly string[]).includes(seed))
    throw new UsageError(`--seed must be one of ${seeds.join(', ')}`)
  return seed as (typeof seeds)[number] | undefined
}

/**
 * With --seed: a first location and an owner (--owner-subject, default `owner`), and the demo
 * data for `demo`. Without: the bare tenant database, filled by `location create` and `staff create`.
 */
function createTenantCommand(p: Platform, flags: Flags) {
  const slug = required(flags, 'slug')
  const input = {
    slug,
    name: required(flags, 'name'),
    currency: optional(flags, 'currency'),
    ephemeral: flags.ephemeral === true,
    ttlSeconds: wholeNumber(flags, 'ttl'),
  }
  const seed = seedOf(flags)
  if (seed) {
    // A seed runs the families' code: with their hooks, as in the server.
    registerFamilies()
    const owner = {
      subject: optional(flags, 'owner-subject') ?? 'owner',
      email: optional(flags, 'owner-email') ?? `owner@${slug}.example.com`,
    }
    const made = createTenantWithOwner(p, cli, {
      ...input,
      timeZone: optional(flags, 'timezone'),
      owner,
      seed,
    })
    const { timeZone: timezone, ...tenant } = made.tenant
    return { ...tenant, timezone, seed, locationId: made.location.id, ownerStaffUserId: made.owner.id }
  }
  const tenant = createTenant(
    p.control.db,
    p.pool,
    { ...input, timezone: optional(flags, 'timezone') },
    {
      registered: (row) => recordOperatorAction(p.control.db, cli, { action: 'tenant.create', tenant: row }),
    },
  )
  const { timeZone: timezone, ...shown } = presentTenant(tenant)
  return { ...shown, timezone }
}

export const tenantCommands: Record<string, (p: Platform, flags: Flags) => unknown> = {
  'tenant create': async (p, flags) => {
    const created = createTenantCommand(p, flags)
    await publishToCluster(p, created.id)
    return created
  },
  'tenant suspend': (p, flags) =>
    changeTenantStatus(p, cli, tenantOf(p, required(flags, 'tenant')), 'suspended'),
  'tenant resume': (p, flags) => changeTenantStatus(p, cli, tenantOf(p, required(flags, 'tenant')), 'active'),
  'tenant delete': (p, flags) =>
    deleteTenant(p, cli, tenantOf(p, required(flags, 'tenant')), {
      purgeSnapshots: flags['purge-snapshots'] === true,
    }),
  'tenant export': (p, flags) => {
    const tenant = tenantOf(p, required(flags, 'tenant'))
    const out = required(flags, 'out')
    if (existsSync(out)) throw new UsageError(`${out} already exists`)
    exportTenantTo(p, cli, tenant, out)
    return { tenant: tenant.slug, path: out, sizeBytes: statSync(out).size }
  },
  'tenant import': async (p, flags) => {
    const file = required(flags, 'file')
    if (!existsSync(file)) throw new UsageError(`${file} does not exist`)
    const input = {
      slug: required(flags, 'slug'),
      name: required(flags, 'name'),
      timezone: optional(flags, 'timezone'),
      currency: optional(flags, 'currency'),
    }
    const imported = await importTenant(p, cli, input, async (path) => copyFileSync(file, path))
    await publishToCluster(p, imported.tenant.id)
    return imported
  },
  'operator-key create': async (p, flags) => {
    const name = required(flags, 'name')
    const { key, token } = await createSharedOperatorKey(p.control.db, cli, { name }, sharedKeys(p))
    return { ...key, token }
  },
  'operator-key list': async (p) => ({
    operatorKeys: await listSharedOperatorKeys(p.control.db, sharedKeys(p)),
  }),
  'operator-key revoke': (p, flags) =>
    revokeSharedOperatorKey(p.control.db, cli, required(flags, 'id'), sharedKeys(p)),
}
