// What an operator needs to know about backups, read from the files themselves: each database's
// size, the snapshots in BACKUP_DIR that hold it, and, under Litestream with a file replica, the
// window a point-in-time restore can reach (from the oldest snapshot Litestream keeps to its
// newest WAL segment). For an S3 replica the window is not read here: `litestream snapshots`
// lists it.
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { databaseBytes } from '../tenancy/wal-log'
import { filePathOf, type ReplicatedDatabase, replicaUrlFor } from './litestream'
import { listSnapshots } from './snapshots'

export interface BackupSettings {
  backupDir: string
  backupIntervalSeconds: number
  backupRetention: number
  litestreamReplicaUrl: string | undefined
}

export interface ReplicaWindow {
  url: string
  /** The oldest instant a restore can reach; null when not known (S3) or nothing is replicated yet. */
  earliestRestorableAt: string | null
  /** The newest replicated write. */
  latestReplicatedAt: string | null
}

export interface DatabaseBackupState {
  /** `control` or the tenant id (the file and replica names). */
  name: string
  sizeBytes: number
  walBytes: number
  snapshots: number
  lastSnapshotAt: string | null
  replica: ReplicaWindow | null
}

/** Every file under `dir` (recursively), with its modification time. */
function modifiedTimes(dir: string): number[] {
  if (!existsSync(dir)) return []
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => statSync(join(entry.parentPath, entry.name)).mtimeMs)
}

const isoOrNull = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString())

/** Litestream v0.3's file replica layout: generations/<id>/snapshots/* and generations/<id>/wal/**. */
export function replicaWindow(baseUrl: string, name: string): ReplicaWindow {
  const url = replicaUrlFor(baseUrl, name)
  const dir = filePathOf(url)
  if (!dir) return { url, earliestRestorableAt: null, latestReplicatedAt: null }
  const generations = join(dir, 'generations')
  const snapshots: number[] = []
  const everything: number[] = []
  for (const generation of existsSync(generations) ? readdirSync(generations) : []) {
    snapshots.push(...modifiedTimes(join(generations, generation, 'snapshots')))
    everything.push(...modifiedTimes(join(generations, generation)))
  }
  return {
    url,
    earliestRestorableAt: isoOrNull(snapshots.length ? Math.min(...snapshots) : undefined),
    latestReplicatedAt: isoOrNull(everything.length ? Math.max(...everything) : undefined),
  }
}

/** The backup state of each database named. */
export function databaseBackupStates(
  settings: BackupSettings,
  databases: readonly ReplicatedDatabase[],
): DatabaseBackupState[] {
  const snapshots = listSnapshots(settings.backupDir)
  return databases.map((db) => {
    const holding = snapshots.filter((s) => existsSync(join(s.dir, `${db.name}.sqlite`)))
    return {
      name: db.name,
      ...databaseBytes(db.path),
      snapshots: holding.length,
      lastSnapshotAt: holding.at(-1)?.takenAt ?? null,
      replica: settings.litestreamReplicaUrl ? replicaWindow(settings.litestreamReplicaUrl, db.name) : null,
    }
  })
}

/** How this server backs up: Litestream, scheduled snapshots, or snapshots on demand only. */
export const backupMode = (settings: BackupSettings) =>
  settings.litestreamReplicaUrl
    ? ('litestream' as const)
    : settings.backupIntervalSeconds > 0
      ? ('scheduled-snapshots' as const)
      : ('manual-snapshots' as const)

/** The snapshots holding any of these databases, oldest first, with the databases each holds. */
export function snapshotsHolding(backupDir: string, names: readonly string[]) {
  return listSnapshots(backupDir)
    .map((s) => {
      const sizes = names.map(
        (name) => statSync(join(s.dir, `${name}.sqlite`), { throwIfNoEntry: false })?.size,
      )
      const held = names.filter((_, i) => sizes[i] !== undefined)
      const bytes = sizes.reduce<number>((sum, size) => sum + (size ?? 0), 0)
      return { stamp: s.stamp, takenAt: s.takenAt, databases: held, bytes }
    })
    .filter((s) => s.databases.length > 0)
}
