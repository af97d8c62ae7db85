import { family } from '../../platform/family'
import * as model from './model'
import { registerTenantJobs } from './removal'
import { tenantAdminRoutes } from './routes'

export const tenantsFamily = family({
  name: 'tenants',
  tags: {
    Operator:
      'The operator API (`/admin/v1`): tenants made, suspended, resumed, exported, imported and deleted by the operator of this service, and its audit log. Operator credentials only.',
  },
  models: { tenants: model },
  jobs: (platform) => registerTenantJobs(platform),
  routes: (platform) => [tenantAdminRoutes(platform)],
})

export type { CreateTenantInput } from './model'
// What the other families may use.
export { seeds } from './model'
export { deleteTenant } from './removal'
export {
  changeTenantStatus,
  createTenantWithOwner,
  createTenantWithOwnerInChildProcess,
  fillTenantDatabase,
  presentTenant,
  publishToCluster,
} from './service'
export { exportTenantTo, importTenant } from './transfer'
