// The background worker of ERA reports. A request writes a pending report and asks for a run; each
// run computes the pending reports of the tenants the due index names (a pending report is due at
// once), so requests left pending by a stopped process are finished too.
import { eq } from 'drizzle-orm'
import type { DueWorkSource } from '../../platform/jobs/due-index'
import { forEachDueTenant } from '../../platform/jobs/tenants'
import type { Platform } from '../../platform/platform'
import { preparedOn } from '../../platform/tenancy/prepared'
import { eraReportRequests } from './schema'
import { computePendingReports } from './service'

export const ERA_JOB = 'era.reports'

export const pendingReports: DueWorkSource = {
  job: ERA_JOB,
  nextWork: (_tenant, db) =>
    preparedOn(db, 'era-pending-report', () =>
      db
        .select({ id: eraReportRequests.id })
        .from(eraReportRequests)
        .where(eq(eraReportRequests.status, 'pending'))
        .limit(1)
        .prepare(),
    ).get()
      ? Date.now()
      : null,
}

export interface EraWorker {
  /** A report was requested for this tenant: compute it soon. */
  requested(tenantId: string): void
}

export function registerEraJobs(platform: Platform): EraWorker {
  platform.jobs.register({
    name: ERA_JOB,
    intervalMs: 30_000,
    run: (signal) =>
      forEachDueTenant(platform, signal, pendingReports, (_tenant, db) => {
        computePendingReports(db)
      }),
  })
  return {
    requested() {
      platform.jobs.trigger(ERA_JOB)
    },
  }
}
