import { family } from '../../platform/family'
import { pendingImports, registerImportJobs } from './jobs'
import * as model from './model'
import { importRoutes } from './routes'

export const importsFamily = family({
  name: 'imports',
  tags: {
    'Data import and export':
      'Bulk imports of CSV or NDJSON files with a report of every row, and streaming exports.',
  },
  models: { imports: model },
  dueWork: [pendingImports],
  jobs: (platform) => registerImportJobs(platform),
  routes: (platform, worker) => [importRoutes(platform.auth, platform, worker)],
})

// What the other families (and the command line) may use.
export { ImportForm, type ImportFormInput } from './model'
export { createImport, getImport, listImportErrors, workImport } from './service'
