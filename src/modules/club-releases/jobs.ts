import { todayIn } from '../../platform/foundation/dates'
import type { DueWorkSource } from '../../platform/jobs/due-index'
import { forEachDueTenant } from '../../platform/jobs/tenants'
import type { Platform } from '../../platform/platform'
import { nextReleaseWork, processDue } from './processing'

export const PROCESS_RELEASES_JOB = 'club-releases.process'

export const releasesDue: DueWorkSource = {
  job: PROCESS_RELEASES_JOB,
  nextWork: (tenant, db) => nextReleaseWork(db, todayIn(tenant.timezone), tenant.timezone),
}

/**
 * Every 5 minutes (and at once when a run is requested): each tenant's Active releases whose
 * process date has come (the tenant's date) are queued once, and every queued run is run.
 */
export function registerClubReleaseJobs(platform: Platform) {
  platform.jobs.register({
    name: PROCESS_RELEASES_JOB,
    intervalMs: 5 * 60_000,
    run: (signal) =>
      forEachDueTenant(platform, signal, releasesDue, async (tenant, db) => {
        await processDue(db, tenant.id, todayIn(tenant.timezone), { provider: platform.payments }, signal)
      }),
  })
  return { provider: platform.payments, kick: () => platform.jobs.trigger(PROCESS_RELEASES_JOB) }
}
