// Running a job's work over every active tenant this process serves, one at a time, through the LRU pool (so at most
// TENANT_POOL_SIZE databases stay open however many tenants exist). A suspended tenant's work
// waits until it is resumed. A failing tenant does not stop the others; the run fails at the end,
// naming them, so the job status shows it.

import type { ControlDb, DatabaseHandle, Db, TenantPool } from '../tenancy/databases'
import type { Tenant } from '../tenancy/tenants'
import { tenantsInPages } from '../tenancy/tenants'

export interface TenantSource {
  control: { db: ControlDb }
  pool: TenantPool
}

export async function forEachTenant(
  source: TenantSource,
  signal: AbortSignal,
  work: (tenant: Tenant, db: Db) => Promise<void> | void,
): Promise<void> {
  const failed: string[] = []
  for (const tenant of tenantsInPages(source.control.db)) {
    if (signal.aborted) break
    if (tenant.status !== 'active' || !source.pool.isServed(tenant.id)) continue
    // Each tenant's work is mostly synchronous SQLite: let requests in between tenants.
    await new Promise<void>((resolve) => setImmediate(resolve))
    let handle: DatabaseHandle | undefined
    try {
      // Held across the work's awaits: the pool may evict the tenant meanwhile.
      handle = source.pool.hold(tenant.id)
      await work(tenant, handle.db)
    } catch (error) {
      failed.push(`${tenant.slug}: ${error instanceof Error ? error.message : String(error)}`)
    } finally {
      if (handle) source.pool.release(handle)
    }
  }
  if (failed.length > 0) throw new Error(`${failed.length} tenant(s) failed: ${failed.join('; ')}`)
}
