import { family } from '../../platform/family'
import * as model from './model'
import { auditEntryRoutes } from './routes'

export const auditEntriesFamily = family({
  name: 'audit-entries',
  tags: {
    Audit: 'The tenant’s append-only, hash-chained audit trail of every write.',
  },
  models: { auditEntries: model },
  routes: (platform) => [auditEntryRoutes(platform.auth)],
})

// What the other families may use.
export { auditLogExport } from './export'
