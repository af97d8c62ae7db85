// Backups as the console shows them: GET /backups (the tenant's own database, `backups:read`) and
// GET /admin/v1/backups (every database, operator credential).
import { Elysia } from 'elysia'
import type { Platform } from '../../platform/platform'
import { BackupReport } from './model'
import { backupReport } from './service'

const about =
  'Snapshots (BACKUP_DIR), Litestream replication (LITESTREAM_REPLICA_URL), database sizes and the window a point-in-time restore can reach, read from the files at the time of the request. Restoring is a command-line step (`restore`, listed in `restore`), never an API call: it replaces a database file.'

export const backupRoutes = (platform: Platform) =>
  new Elysia({ name: 'backups', detail: { tags: ['Backups'] } })
    .use(platform.auth)
    .get('/backups', ({ tenant }) => backupReport(platform, tenant.id), {
      permission: 'backups:read',
      tenantWide: true,
      response: BackupReport,
      detail: { summary: 'Backups of this tenant’s database', description: about },
    })

export const operatorBackupRoutes = (platform: Platform) =>
  new Elysia({ name: 'backups-admin', prefix: '/admin/v1', detail: { tags: ['Operator'] } })
    .use(platform.operator)
    .get('/backups', () => backupReport(platform), {
      operator: true,
      response: BackupReport,
      detail: {
        summary: 'Backups of every database',
        description: `The control database and every tenant’s. ${about}`,
      },
    })
