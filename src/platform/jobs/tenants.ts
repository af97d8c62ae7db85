// Running a job's work over tenants, through the pool (so no more databases stay open than it
// holds, however many tenants exist), opening only the tenants with work due (due-index.ts). A
// suspended tenant's work waits until it is resumed.
import type { ControlDb, Db, TenantPool } from '../tenancy/databases'
import type { Tenant } from '../tenancy/tenants'
import type { DueIndex, DueWorkSource } from './due-index'

export interface TenantSource {
  control: { db: ControlDb }
  pool: TenantPool
  dueIndex: DueIndex
}

/**
 * Runs `work` over the active tenants this process serves whose stored answer for `source.job` is
 * due (or who have none yet), one at a time; after each visit the job's answer is computed again
 * and stored. A failing tenant does not stop the others; the run fails at the end, naming them,
 * so the job status shows it.
 */
export async function forEachDueTenant(
  platform: TenantSource,
  signal: AbortSignal,
  source: DueWorkSource,
  work: (tenant: Tenant, db: Db) => Promise<void> | void,
): Promise<void> {
  const failed: string[] = []
  for (const tenant of await platform.dueIndex.due(source.job)) {
    if (signal.aborted) break
    if (!platform.pool.isServed(tenant.id)) continue
    // Each tenant's work is mostly synchronous SQLite: let requests in between tenants.
    await new Promise<void>((resolve) => setImmediate(resolve))
    // Held across the work's awaits: the pool may evict the tenant meanwhile.
    const handle = platform.pool.hold(tenant.id)
    try {
      await work(tenant, handle.db)
      platform.dueIndex.visited(tenant, handle.db, source.job)
    } catch (error) {
      failed.push(`${tenant.slug}: ${error instanceof Error ? error.message : String(error)}`)
    } finally {
      platform.pool.release(handle)
    }
  }
  if (failed.length > 0) throw new Error(`${failed.length} tenant(s) failed: ${failed.join('; ')}`)
}
