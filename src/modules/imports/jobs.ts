// The background worker of imports. A request stores a queued import and asks for a run; each run
// works the imports of the tenants the due index names (a queued import is due at once, a running
// one when its worker's lease runs out), so an import left running by a stopped process resumes
// after its last committed line.
import type { DueWorkSource } from '../../platform/jobs/due-index'
import { forEachDueTenant } from '../../platform/jobs/tenants'
import type { Platform } from '../../platform/platform'
import { nextImportWork, workPendingImports } from './service'

export const IMPORTS_JOB = 'imports.run'

export const pendingImports: DueWorkSource = {
  job: IMPORTS_JOB,
  nextWork: (_tenant, db) => nextImportWork(db),
}

export interface ImportWorker {
  /** An import was queued: work it soon. */
  queued(): void
}

export function registerImportJobs(platform: Platform): ImportWorker {
  platform.jobs.register({
    name: IMPORTS_JOB,
    intervalMs: 30_000,
    run: (signal) =>
      forEachDueTenant(platform, signal, pendingImports, (tenant, db) =>
        workPendingImports(db, tenant.id, signal),
      ),
  })
  return {
    queued() {
      platform.jobs.trigger(IMPORTS_JOB)
    },
  }
}
