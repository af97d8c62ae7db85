import { backedUpDatabases } from '../platform/backup/databases'
import { pruneSnapshots, takeSnapshot } from '../platform/backup/snapshots'
import type { Platform } from '../platform/platform'

/** One consistent snapshot of every database now, then retention (BACKUP_RETENTION). */
export function backupNow(platform: Platform) {
  const { dataDir, backupDir, backupRetention } = platform.config
  const databases = backedUpDatabases(dataDir, platform.control.db)
  const snapshot = takeSnapshot(backupDir, databases)
  const pruned = pruneSnapshots(backupDir, backupRetention)
  return {
    snapshot: snapshot.stamp,
    takenAt: snapshot.takenAt,
    dir: snapshot.dir,
    databases: databases.length,
    pruned,
  }
}
