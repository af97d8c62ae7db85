import { todayIn } from '../../platform/foundation/dates'
import type { DueWorkSource } from '../../platform/jobs/due-index'
import { forEachDueTenant } from '../../platform/jobs/tenants'
import type { Platform } from '../../platform/platform'
import { nextHoldEnd, releaseEndedHolds } from './transitions'

export const RELEASE_HOLDS_JOB = 'club-memberships.release-holds'

/**
 * Holds end on a date of the tenant's time zone: every 15 minutes, each tenant's holds that have
 * ended are released (reads already show them Active, so only the record and the event wait).
 */
export const holdEnds: DueWorkSource = {
  job: RELEASE_HOLDS_JOB,
  nextWork: (tenant, db) => nextHoldEnd(db, tenant.timezone),
}

export function registerClubMembershipJobs(platform: Platform): void {
  platform.jobs.register({
    name: RELEASE_HOLDS_JOB,
    intervalMs: 15 * 60_000,
    run: (signal) =>
      forEachDueTenant(platform, signal, holdEnds, (tenant, db) => {
        releaseEndedHolds(db, tenant.id, todayIn(tenant.timezone))
      }),
  })
}
