import { family } from '../../platform/family'
import { pendingReports, registerEraJobs } from './jobs'
import * as model from './model'
import { eraRoutes } from './routes'

export const eraFamily = family({
  name: 'era',
  tags: {
    'Analytics (ERA)': 'Reporting metrics, checks, labor and menu figures, computed asynchronously.',
  },
  models: { era: model },
  dueWork: [pendingReports],
  jobs: (platform) => registerEraJobs(platform),
  routes: (platform, jobs) => [...eraRoutes(platform.auth, jobs)],
})
