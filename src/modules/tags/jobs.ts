import { systemActor } from '../../platform/foundation/actor'
import type { DueWorkSource } from '../../platform/jobs/due-index'
import { forEachDueTenant } from '../../platform/jobs/tenants'
import type { Platform } from '../../platform/platform'
import { datedTags, refreshDatedTags } from './dynamic'

export const REFRESH_DATED_TAGS_JOB = 'tags.refresh-dated'

/**
 * Hourly, each tenant's Dynamic tags with a `withinLastDays` condition are re-applied, so a record
 * that ages out of (or into) one changes its tags within the hour without a write of its own.
 */
/**
 * A tenant with dated tags has work every run (its records age); without, only a write (a new
 * dated tag) brings some.
 */
export const datedTagsToRefresh: DueWorkSource = {
  job: REFRESH_DATED_TAGS_JOB,
  nextWork: (_tenant, db) => (datedTags(db).length > 0 ? Date.now() : null),
}

export function registerTagJobs(platform: Platform): void {
  platform.jobs.register({
    name: REFRESH_DATED_TAGS_JOB,
    intervalMs: 60 * 60_000,
    run: (signal) =>
      forEachDueTenant(platform, signal, datedTagsToRefresh, (tenant, db) => {
        refreshDatedTags(db, systemActor(tenant.id, 'dynamic-tags'))
      }),
  })
}
