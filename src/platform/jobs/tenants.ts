// Running a job's work over every active tenant this process serves, one at a time, through the LRU pool (so at most
// TENANT_POOL_SIZE databases stay open however many tenants exist). A suspended tenant's work
// waits until it is resumed. A failing tenant does not stop the others; the run fails at the end,
// naming them, so the job status shows it. Jobs that can say when a tenant next has work use
// `forEachDueTenant`, which skips the tenants with nothing due (due-tenants.ts).

import type { ControlDb, DatabaseHandle, Db, TenantPool } from '../tenancy/databases'
import type { Tenant } from '../tenancy/tenants'
import { tenantsInPages } from '../tenancy/tenants'
import type { DueTenants, NextWork } from './due-tenants'

export interface TenantSource {
  control: { db: ControlDb }
  pool: TenantPool
}

export function forEachTenant(
  source: TenantSource,
  signal: AbortSignal,
  work: (tenant: Tenant, db: Db) => Promise<void> | void,
): Promise<void> {
  return sweep(source, signal, async (tenant) => {
    await visit(source, tenant, work)
  })
}

/**
 * Like `forEachTenant`, for work that answers when the tenant next has work without a write
 * (`NextWork`): a tenant whose files have not changed since its last visit is skipped until then.
 */
export async function forEachDueTenant(
  source: TenantSource,
  signal: AbortSignal,
  due: DueTenants,
  work: (tenant: Tenant, db: Db) => Promise<NextWork> | NextWork,
): Promise<void> {
  due.beginPass()
  await sweep(source, signal, async (tenant) => {
    const now = Date.now()
    const seen = due.check(tenant.id, source.pool.databasePath(tenant.id), now)
    if (seen.skip) return
    try {
      due.record(tenant.id, seen.signature, await visit(source, tenant, work), now)
    } catch (error) {
      due.forget(tenant.id)
      throw error
    }
  })
  if (!signal.aborted) due.endPass()
}

async function visit<T>(
  source: TenantSource,
  tenant: Tenant,
  work: (tenant: Tenant, db: Db) => Promise<T> | T,
) {
  // Each tenant's work is mostly synchronous SQLite: let requests in between tenants.
  await new Promise<void>((resolve) => setImmediate(resolve))
  let handle: DatabaseHandle | undefined
  try {
    // Held across the work's awaits: the pool may evict the tenant meanwhile.
    handle = source.pool.hold(tenant.id)
    return await work(tenant, handle.db)
  } finally {
    if (handle) source.pool.release(handle)
  }
}

async function sweep(
  source: TenantSource,
  signal: AbortSignal,
  each: (tenant: Tenant) => Promise<void>,
): Promise<void> {
  const failed: string[] = []
  for (const tenant of tenantsInPages(source.control.db)) {
    if (signal.aborted) break
    if (tenant.status !== 'active' || !source.pool.isServed(tenant.id)) continue
    try {
      await each(tenant)
    } catch (error) {
      failed.push(`${tenant.slug}: ${error instanceof Error ? error.message : String(error)}`)
    }
  }
  if (failed.length > 0) throw new Error(`${failed.length} tenant(s) failed: ${failed.join('; ')}`)
}
