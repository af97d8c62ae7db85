import { systemActor } from '../../platform/auth/actor'
import { DueTenants } from '../../platform/jobs/due-tenants'
import { forEachDueTenant } from '../../platform/jobs/tenants'
import type { Platform } from '../../platform/platform'
import { refreshDatedTags } from './dynamic'

export const REFRESH_DATED_TAGS_JOB = 'tags.refresh-dated'

/**
 * Hourly, each tenant's Dynamic tags with a `withinLastDays` condition are re-applied, so a record
 * that ages out of (or into) one changes its tags within the hour without a write of its own.
 */
export function registerTagJobs(platform: Platform): void {
  const due = new DueTenants()
  platform.jobs.register({
    name: REFRESH_DATED_TAGS_JOB,
    intervalMs: 60 * 60_000,
    // A tenant with dated tags has work every run (its records age); without, only a write (a new
    // dated tag) brings some.
    run: (signal) =>
      forEachDueTenant(platform, signal, due, (tenant, db) =>
        refreshDatedTags(db, systemActor(tenant.id, 'dynamic-tags')) > 0 ? Date.now() : null,
      ),
  })
}
