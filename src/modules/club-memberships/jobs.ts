import { todayIn } from '../../platform/dates'
import { DueTenants } from '../../platform/jobs/due-tenants'
import { forEachDueTenant } from '../../platform/jobs/tenants'
import type { Platform } from '../../platform/platform'
import { nextHoldEnd, releaseEndedHolds } from './transitions'

export const RELEASE_HOLDS_JOB = 'club-memberships.release-holds'

/**
 * Holds end on a date of the tenant's time zone: every 15 minutes, each tenant's holds that have
 * ended are released (reads already show them Active, so only the record and the event wait).
 */
export function registerClubMembershipJobs(platform: Platform): void {
  const due = new DueTenants()
  platform.jobs.register({
    name: RELEASE_HOLDS_JOB,
    intervalMs: 15 * 60_000,
    run: (signal) =>
      forEachDueTenant(platform, signal, due, (tenant, db) => {
        releaseEndedHolds(db, tenant.id, todayIn(tenant.timezone))
        return nextHoldEnd(db, tenant.timezone)
      }),
  })
}
