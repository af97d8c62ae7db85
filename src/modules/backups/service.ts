// The backup report of /backups (one tenant's database) and /admin/v1/backups (every database).
import { backedUpDatabases } from '../../platform/backup/databases'
import { backupMode, databaseBackupStates, snapshotsHolding } from '../../platform/backup/overview'
import type { Platform } from '../../platform/platform'
import { listTenants } from '../../platform/tenancy/tenants'

const earliestOf = (values: (string | null)[]) =>
  values.reduce<string | null>((min, v) => (v !== null && (min === null || v < min) ? v : min), null)
const latestOf = (values: (string | null)[]) =>
  values.reduce<string | null>((max, v) => (v !== null && (max === null || v > max) ? v : max), null)

function restoreCommands(mode: ReturnType<typeof backupMode>, slug: string) {
  const from = mode === 'litestream' ? 'replica' : 'snapshot'
  return [
    `restaurant-ops restore --tenant ${slug} --from ${from} --timestamp <ISO date-time in the window>`,
    'Stop the server first: restore refuses to replace a database a running server holds open. Or add `--to PATH` to restore beside it and inspect the copy.',
    'The restored file is checked (PRAGMA integrity_check and the audit hash chain) before it is put in place.',
  ]
}

/** `tenantId`: that tenant's database only; every database (control included) otherwise. */
export function backupReport(platform: Platform, tenantId?: string) {
  const { config, control, replication } = platform
  const tenants = listTenants(control.db)
  const slugOf = new Map(tenants.map((t) => [t.id, t.slug]))
  const databases = backedUpDatabases(config.dataDir, control.db).filter(
    (db) => tenantId === undefined || db.name === tenantId,
  )
  const mode = backupMode(config)
  const lags = new Map(replication?.databases().map(({ name, ...lag }) => [name, lag]))
  const states = databaseBackupStates(config, databases).map((state) => ({
    ...state,
    tenantSlug: slugOf.get(state.name) ?? null,
    replication: lags.get(state.name) ?? null,
  }))
  const snapshots = snapshotsHolding(
    config.backupDir,
    databases.map((db) => db.name),
  )
  const status = replication?.status()
  return {
    mode,
    snapshotIntervalSeconds: config.backupIntervalSeconds,
    snapshotRetention: config.backupRetention,
    replication: status
      ? { state: status.state, restarts: status.restarts, lastExit: status.lastExit }
      : null,
    pointInTime:
      mode === 'litestream'
        ? {
            continuous: true,
            earliest: earliestOf(states.map((s) => s.replica?.earliestRestorableAt ?? null)),
            latest: latestOf(states.map((s) => s.replica?.latestReplicatedAt ?? null)),
          }
        : {
            continuous: false,
            earliest: snapshots[0]?.takenAt ?? null,
            latest: snapshots.at(-1)?.takenAt ?? null,
          },
    databases: states,
    snapshots,
    restore: restoreCommands(mode, tenantId ? (slugOf.get(tenantId) ?? tenantId) : '<slug>'),
  }
}
