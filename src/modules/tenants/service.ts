// Tenants as the operator sees them: created with a first location and an owner (and demo data
// on request), listed, inspected, suspended and resumed. Deletion is in removal.ts, export and
// import in transfer.ts. Every action leaves an operator audit entry in the control database;
// the writes it makes in the tenant's own database are audited there as `system:operator`, with
// the operator's request id.
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { and, asc, count, eq, max } from 'drizzle-orm'
import { tenantMigrations } from '../../../migrations/embedded'
import { auditEntries } from '../../platform/audit/schema'
import { replicaUrlFor } from '../../platform/backup/litestream'
import { listSnapshots } from '../../platform/backup/snapshots'
import { type Actor, systemActor } from '../../platform/foundation/actor'
import { isUuid } from '../../platform/foundation/ids'
import { offsetOf, type PageRequest, searchColumns } from '../../platform/foundation/paging'
import { conflict, notFound } from '../../platform/foundation/problem'
import { type OperatorActor, recordOperatorAction } from '../../platform/operator/audit'
import type { Platform } from '../../platform/platform'
import { type TenantStatus, tenants } from '../../platform/tenancy/control-schema'
import { type ControlDb, type Db, drizzleOn, tenantDatabasePath } from '../../platform/tenancy/databases'
import { appliedMigrations, migrate } from '../../platform/tenancy/migrator'
import { openSqlite } from '../../platform/tenancy/sqlite'
import {
  createTenant,
  createTenantFilledBy,
  findTenantById,
  findTenantBySlug,
  type NewTenant,
  setTenantStatus,
  type Tenant,
} from '../../platform/tenancy/tenants'
import { inWriteTransaction } from '../../platform/tenancy/transaction'
import { databaseBytes } from '../../platform/tenancy/wal-log'
import { seedDemo } from '../demo'
import type { LocationRow } from '../locations'
import { createLocation, getLocation, presentLocation } from '../locations'
import type { StaffUserRow } from '../staff'
import { createStaffUser, findStaffUser, staffView } from '../staff'
import { type FillRequest, type FirstRecordIds, fillInChildProcess, type TenantFill } from './fill-process'
import type { CreateTenantInput } from './model'

export const presentTenant = (row: Tenant) => ({
  id: row.id,
  slug: row.slug,
  name: row.name,
  timeZone: row.timezone,
  currency: row.currency,
  status: row.status,
  ephemeral: row.ephemeral,
  expiresAt: row.expiresAt,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
})

/** The actor of the writes an operator's action makes in a tenant's own database. */
export const operatorTenantActor = (tenantId: string, operator: OperatorActor): Actor => ({
  ...systemActor(tenantId, 'operator'),
  requestId: operator.requestId,
  ipAddress: operator.ipAddress,
  userAgent: operator.userAgent,
})

/** The tenant an operator names by id or by slug. */
export function findTenant(platform: Platform, idOrSlug: string): Tenant {
  const control = platform.control.db
  const tenant = isUuid(idOrSlug) ? findTenantById(control, idOrSlug) : findTenantBySlug(control, idOrSlug)
  if (!tenant) throw notFound('tenant', idOrSlug)
  return tenant
}

export interface FirstRecords {
  location: LocationRow
  owner: StaffUserRow
}

/** An empty tenant: one location, named `Main`, and its owner. */
function seedEmpty(db: Db, actor: Actor, tenant: Tenant, owner: CreateTenantInput['owner']): FirstRecords {
  return {
    location: createLocation(db, actor, { name: 'Main', timezone: tenant.timezone }),
    owner: createStaffUser(db, actor, {
      email: owner.email,
      firstName: owner.firstName ?? 'Tenant',
      lastName: owner.lastName ?? 'Owner',
      subject: owner.subject,
      role: 'owner',
    }),
  }
}

/** Fills a new tenant's database with its first records (the seed's), audited as the operator's. */
export function fillNewTenant(
  db: Db,
  operator: OperatorActor,
  tenant: Tenant,
  fill: TenantFill,
): FirstRecords {
  const actor = operatorTenantActor(tenant.id, operator)
  // One transaction for the whole fill: the demo's hundreds of writes commit once.
  return inWriteTransaction(db, () =>
    fill.seed === 'demo' ? seedDemo(db, actor, tenant, fill.owner) : seedEmpty(db, actor, tenant, fill.owner),
  )
}

const newTenantOf = (input: CreateTenantInput): NewTenant => ({
  slug: input.slug,
  name: input.name,
  timezone: input.timeZone,
  currency: input.currency,
  ephemeral: input.ephemeral,
  ttlSeconds: input.ttlSeconds,
})

/** The operator's audit entry of a tenant made, in the control transaction that registers it. */
function recordCreation(
  control: ControlDb,
  operator: OperatorActor,
  input: CreateTenantInput,
  tenant: Tenant,
  first: FirstRecordIds,
): void {
  recordOperatorAction(control, operator, {
    action: 'tenant.create',
    tenant,
    metadata: {
      seed: input.seed ?? 'empty',
      ephemeral: tenant.ephemeral,
      expiresAt: tenant.expiresAt,
      locationId: first.locationId,
      ownerStaffUserId: first.ownerStaffUserId,
      ownerSubject: input.owner.subject,
    },
  })
}

function presentCreated(platform: Platform, tenant: Tenant, { location, owner }: FirstRecords) {
  const { db } = platform.pool.get(tenant.id)
  return { tenant: presentTenant(tenant), location: presentLocation(location), owner: staffView(db, owner) }
}

export function createTenantWithOwner(platform: Platform, operator: OperatorActor, input: CreateTenantInput) {
  const control = platform.control.db
  let first: FirstRecords | undefined
  const tenant = createTenant(control, platform.pool, newTenantOf(input), {
    prepare(db, tenant) {
      first = fillNewTenant(db, operator, tenant, input)
    },
    registered(tenant) {
      recordCreation(control, operator, input, tenant, {
        locationId: first!.location.id,
        ownerStaffUserId: first!.owner.id,
      })
    },
  })
  return presentCreated(platform, tenant, first!)
}

/** The `fill-tenant` command (fill-process.ts): makes, migrates and fills the file, then closes it. */
export function fillTenantDatabase(request: FillRequest): FirstRecordIds {
  const { path, config } = request
  const sqlite = openSqlite(path, {
    synchronous: config.sqliteSynchronous,
    busyTimeoutMs: config.sqliteBusyTimeoutMs,
  })
  try {
    migrate(sqlite, tenantMigrations)
    const first = fillNewTenant(drizzleOn(sqlite), request.operator, request.tenant, request.fill)
    return { locationId: first.location.id, ownerStaffUserId: first.owner.id }
  } finally {
    sqlite.close(false)
  }
}

/**
 * createTenantWithOwner, its database filled by a child process (fill-process.ts) while this one
 * goes on answering: the demo takes seconds. `signal` stops the child and removes what it made.
 */
export async function createTenantWithOwnerInChildProcess(
  platform: Platform,
  operator: OperatorActor,
  input: CreateTenantInput,
  signal?: AbortSignal,
) {
  const { config, control, pool } = platform
  let first: FirstRecordIds | undefined
  const fill = async (path: string, tenant: Tenant) => {
    first = await fillInChildProcess(
      { path, tenant, operator, fill: { owner: input.owner, seed: input.seed }, config },
      signal,
    )
  }
  const tenant = await createTenantFilledBy(control.db, pool, newTenantOf(input), fill, (tenant) =>
    recordCreation(control.db, operator, input, tenant, first!),
  )
  const { db } = pool.get(tenant.id)
  return presentCreated(platform, tenant, {
    location: getLocation(db, first!.locationId),
    owner: findStaffUser(db, first!.ownerStaffUserId)!,
  })
}

/**
 * On a cluster node, a tenant just made here becomes this node's in etcd; a slug taken meanwhile
 * on another node removes it again (409).
 */
export async function publishToCluster(platform: Platform, tenantId: string): Promise<void> {
  const tenant = findTenantById(platform.control.db, tenantId)
  if (platform.cluster && tenant) await platform.cluster.publish(tenant)
}

export function listTenantsPage(
  platform: Platform,
  query: { q?: string; status?: TenantStatus } & PageRequest,
) {
  if (platform.cluster) return clusterTenantsPage(platform.cluster.tenantRecords(), query)
  const control = platform.control.db
  const where = and(
    searchColumns(query.q, [tenants.slug, tenants.name]),
    query.status ? eq(tenants.status, query.status) : undefined,
  )
  const total = control.select({ n: count() }).from(tenants).where(where).get()?.n ?? 0
  const rows = control
    .select()
    .from(tenants)
    .where(where)
    .orderBy(asc(tenants.slug))
    .limit(query.limit)
    .offset(offsetOf(query))
    .all()
  return {
    tenants: rows.map((row) => ({ ...presentTenant(row), node: null, lost: null })),
    page: { total, page: query.page, limit: query.limit },
  }
}

/** Several nodes: every tenant of the cluster as etcd has it, with the node that owns it. */
function clusterTenantsPage(
  records: { tenant: Tenant; owner: string; lost?: { at: string; reason: string } }[],
  query: { q?: string; status?: TenantStatus } & PageRequest,
) {
  const needle = query.q?.toLowerCase()
  const matching = records
    .filter(({ tenant }) => !query.status || tenant.status === query.status)
    .filter(
      ({ tenant }) =>
        !needle || tenant.slug.toLowerCase().includes(needle) || tenant.name.toLowerCase().includes(needle),
    )
    .sort((a, b) => a.tenant.slug.localeCompare(b.tenant.slug))
  const page = matching.slice(offsetOf(query), offsetOf(query) + query.limit)
  return {
    tenants: page.map(({ tenant, owner, lost }) => ({
      ...presentTenant(tenant),
      node: owner,
      lost: lost ?? null,
    })),
    page: { total: matching.length, page: query.page, limit: query.limit },
  }
}

/** The tenant with its database's size, last write and schema, and its backups. */
export function tenantDetail(platform: Platform, tenant: Tenant) {
  const { config, replication } = platform
  const path = tenantDatabasePath(config.dataDir, tenant.id)
  const { db, sqlite } = platform.pool.get(tenant.id)
  const applied = appliedMigrations(sqlite)
  const lastWriteAt =
    db
      .select({ at: max(auditEntries.createdAt) })
      .from(auditEntries)
      .get()?.at ?? null
  const snapshots = listSnapshots(config.backupDir).filter((s) =>
    existsSync(join(s.dir, `${tenant.id}.sqlite`)),
  )
  return {
    ...presentTenant(tenant),
    database: {
      ...databaseBytes(path),
      lastWriteAt,
      schemaVersion: applied.at(-1) ?? null,
      pendingMigrations: tenantMigrations.filter((m) => !applied.includes(m.tag)).length,
    },
    backup: {
      snapshots: snapshots.length,
      lastSnapshotAt: snapshots.at(-1)?.takenAt ?? null,
      replication: config.litestreamReplicaUrl
        ? {
            replicaUrl: replicaUrlFor(config.litestreamReplicaUrl, tenant.id),
            state: replication?.status().state ?? null,
          }
        : null,
    },
  }
}

const verbs: Record<TenantStatus, string> = { active: 'resume', suspended: 'suspend' }

/** Suspends or resumes: every process refuses or serves the tenant again from its next request. */
export function changeTenantStatus(
  platform: Platform,
  operator: OperatorActor,
  tenant: Tenant,
  status: TenantStatus,
) {
  if (tenant.status === status)
    throw conflict(`tenant ${tenant.slug} is already ${status}`, { currentStatus: tenant.status })
  const control = platform.control.db
  const row = inWriteTransaction(control, () => {
    recordOperatorAction(control, operator, { action: `tenant.${verbs[status]}`, tenant })
    return setTenantStatus(control, tenant.id, status)
  })
  return presentTenant(row)
}
