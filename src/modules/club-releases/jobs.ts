import { todayIn } from '../../platform/dates'
import { DueTenants } from '../../platform/jobs/due-tenants'
import { forEachDueTenant } from '../../platform/jobs/tenants'
import type { Platform } from '../../platform/platform'
import { nextReleaseWork, processDue } from './processing'

export const PROCESS_RELEASES_JOB = 'club-releases.process'

/**
 * Every 5 minutes (and at once when a run is requested): each tenant's Active releases whose
 * process date has come (the tenant's date) are queued once, and every queued run is run.
 */
export function registerClubReleaseJobs(platform: Platform) {
  const due = new DueTenants()
  platform.jobs.register({
    name: PROCESS_RELEASES_JOB,
    intervalMs: 5 * 60_000,
    run: (signal) =>
      forEachDueTenant(platform, signal, due, async (tenant, db) => {
        const today = todayIn(tenant.timezone)
        await processDue(db, tenant.id, today, { provider: platform.payments }, signal)
        return nextReleaseWork(db, today, tenant.timezone)
      }),
  })
  return { provider: platform.payments, kick: () => platform.jobs.trigger(PROCESS_RELEASES_JOB) }
}
