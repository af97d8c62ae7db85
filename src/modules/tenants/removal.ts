// Deleting a tenant, and the job that deletes ephemeral tenants once they expire.
//
// Order matters: the final snapshot first (if it fails, nothing is gone); then the control rows,
// in one control transaction with the operator audit entry, so every process stops finding the
// tenant from its next request; then this process's connection and the files (database, WAL,
// shared memory, media objects). Other processes never bring the file back: their pools open
// existing files only. Litestream drops the database from its config at its next sync.
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { lte } from 'drizzle-orm'
import { listSnapshots } from '../../platform/backup/snapshots'
import { nowIso } from '../../platform/foundation/ids'
import { type OperatorActor, recordOperatorAction, systemOperator } from '../../platform/operator/audit'
import type { Platform } from '../../platform/platform'
import { tenants } from '../../platform/tenancy/control-schema'
import { deleteTenantRows, type Tenant } from '../../platform/tenancy/tenants'
import { inWriteTransaction } from '../../platform/tenancy/transaction'
import { presentTenant } from './service'

/** Final snapshots of deleted tenants, under BACKUP_DIR: out of the scheduled snapshots' retention. */
const deletedTenantsDir = (backupDir: string) => join(backupDir, 'deleted-tenants')

/** A consistent copy (VACUUM INTO) of the tenant's database, named by its slug, id and the time. */
function takeFinalSnapshot(platform: Platform, tenant: Tenant): string {
  const dir = deletedTenantsDir(platform.config.backupDir)
  mkdirSync(dir, { recursive: true })
  const path = join(dir, `${tenant.slug}.${tenant.id}.${nowIso().replace(/[:.]/g, '-')}.sqlite`)
  platform.pool.get(tenant.id).sqlite.query('VACUUM INTO ?').run(path)
  return path
}

/** Every snapshot file of the tenant, scheduled or final: how many were removed. */
function purgeSnapshots(backupDir: string, tenantId: string): number {
  const files = listSnapshots(backupDir).map((snapshot) => join(snapshot.dir, `${tenantId}.sqlite`))
  const finals = deletedTenantsDir(backupDir)
  if (existsSync(finals))
    files.push(
      ...readdirSync(finals).flatMap((name) => (name.includes(`.${tenantId}.`) ? [join(finals, name)] : [])),
    )
  const present = files.filter((file) => existsSync(file))
  for (const file of present) rmSync(file)
  return present.length
}

export interface DeleteOptions {
  /** Also remove every snapshot of the tenant; no final snapshot is taken then. */
  purgeSnapshots: boolean
  /** The operator audit action: `tenant.delete`, or `tenant.expire` from the expiry job. */
  action?: 'tenant.delete' | 'tenant.expire'
}

export async function deleteTenant(
  platform: Platform,
  operator: OperatorActor,
  tenant: Tenant,
  options: DeleteOptions,
) {
  const control = platform.control.db
  const finalSnapshot = options.purgeSnapshots ? null : takeFinalSnapshot(platform, tenant)
  inWriteTransaction(control, () => {
    recordOperatorAction(control, operator, {
      action: options.action ?? 'tenant.delete',
      tenant,
      metadata: { finalSnapshot, purgeSnapshots: options.purgeSnapshots, ephemeral: tenant.ephemeral },
    })
    deleteTenantRows(control, tenant.id)
  })
  // Litestream lets go of the file (its last sync made, its process restarted without it) before
  // the file goes: a file removed under it fails its syncs and, until it is isolated, those of the
  // databases sharing its process (as the cluster's removeLocalCopy already waits).
  await platform.replication?.reload()
  platform.pool.destroy(tenant.id)
  await platform.storage.removeTenant(tenant.id)
  const snapshotsPurged = options.purgeSnapshots ? purgeSnapshots(platform.config.backupDir, tenant.id) : 0
  return { tenant: presentTenant(tenant), finalSnapshot, snapshotsPurged }
}

export const TENANT_EXPIRY_JOB = 'tenants.expire'
const EXPIRY_INTERVAL_MS = 10_000

/** Ephemeral tenants past their expiry: deleted with every snapshot, none taken. */
export async function expireTenants(platform: Platform, signal?: AbortSignal): Promise<string[]> {
  const expired = platform.control.db.select().from(tenants).where(lte(tenants.expiresAt, nowIso())).all()
  const removed: string[] = []
  for (const tenant of expired) {
    if (signal?.aborted) break
    if (!tenant.ephemeral) continue
    await deleteTenant(platform, systemOperator(TENANT_EXPIRY_JOB), tenant, {
      purgeSnapshots: true,
      action: 'tenant.expire',
    })
    removed.push(tenant.slug)
  }
  return removed
}

export function registerTenantJobs(platform: Platform): void {
  platform.jobs.register({
    name: TENANT_EXPIRY_JOB,
    intervalMs: EXPIRY_INTERVAL_MS,
    run: async (signal) => {
      const removed = await expireTenants(platform, signal)
      if (removed.length > 0) platform.log.info('ephemeral tenants expired', { tenants: removed })
    },
  })
}
