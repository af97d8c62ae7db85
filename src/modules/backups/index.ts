import { family } from '../../platform/family'
import * as model from './model'
import { backupRoutes, operatorBackupRoutes } from './routes'

export const backupsFamily = family({
  name: 'backups',
  tags: {
    Backups: 'Snapshots, Litestream replication, database sizes and the point-in-time restore window.',
  },
  models: { backups: model },
  routes: (platform) => [backupRoutes(platform), operatorBackupRoutes(platform)],
})

// What the other families may use.
export { ReplicationLag } from './model'
