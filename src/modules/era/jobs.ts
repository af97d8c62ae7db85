// The background worker of ERA reports. A request marks its tenant; each run computes the pending
// reports of the marked tenants. The first run after start looks at every tenant, so requests
// left pending by a stopped process are finished too.
import { forEachTenant } from '../../platform/jobs/tenants'
import type { Platform } from '../../platform/platform'
import { computePendingReports } from './service'

export const ERA_JOB = 'era.reports'

export interface EraWorker {
  /** A report was requested for this tenant: compute it soon. */
  requested(tenantId: string): void
}

export function registerEraJobs(platform: Platform): EraWorker {
  const marked = new Set<string>()
  let scannedAll = false
  platform.jobs.register({
    name: ERA_JOB,
    intervalMs: 30_000,
    run: async (signal) => {
      if (!scannedAll) {
        scannedAll = true
        marked.clear()
        await forEachTenant(platform, signal, (_tenant, db) => {
          computePendingReports(db)
        })
        return
      }
      const tenants = [...marked]
      marked.clear()
      const failed: string[] = []
      for (const tenantId of tenants) {
        if (signal.aborted) {
          marked.add(tenantId)
          continue
        }
        try {
          computePendingReports(platform.pool.get(tenantId).db)
        } catch (error) {
          marked.add(tenantId) // tried again next run
          failed.push(`${tenantId}: ${error instanceof Error ? error.message : String(error)}`)
        }
      }
      if (failed.length > 0) throw new Error(`ERA reports failed for ${failed.join('; ')}`)
    },
  })
  return {
    requested(tenantId) {
      marked.add(tenantId)
      platform.jobs.trigger(ERA_JOB)
    },
  }
}
