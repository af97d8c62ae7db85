import { type ControlDb, controlDatabasePath, tenantDatabasePath } from '../tenancy/databases'
import { listTenants } from '../tenancy/tenants'
import type { ReplicatedDatabase } from './litestream'

/** Every database file to back up: the control database, then each tenant's, named by id. */
export function backedUpDatabases(dataDir: string, control: ControlDb): ReplicatedDatabase[] {
  return [
    { name: 'control', path: controlDatabasePath(dataDir) },
    ...listTenants(control).map((t) => ({ name: t.id, path: tenantDatabasePath(dataDir, t.id) })),
  ]
}
