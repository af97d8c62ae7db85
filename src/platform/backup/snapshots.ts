// Consistent snapshots without Litestream: VACUUM INTO writes a transactionally consistent copy
// of each database, even while the server writes, into BACKUP_DIR/<timestamp>/.
import { Database } from 'bun:sqlite'
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import type { ReplicatedDatabase } from './litestream'

export interface Snapshot {
  /** Folder name: the UTC time it was taken, with ':' and '.' replaced so it is a safe path. */
  stamp: string
  takenAt: string
  dir: string
}

const toStamp = (iso: string) => iso.replace(/[:.]/g, '-')
const fromStamp = (stamp: string) =>
  stamp.replace(/^(\d{4}-\d{2}-\d{2}T\d{2})-(\d{2})-(\d{2})-(\d{3}Z)$/, '$1:$2:$3.$4')

export function takeSnapshot(
  backupDir: string,
  databases: readonly ReplicatedDatabase[],
  now = new Date(),
): Snapshot {
  const takenAt = now.toISOString()
  const stamp = toStamp(takenAt)
  const dir = join(backupDir, stamp)
  // Written under a temporary name and renamed, so a listed snapshot is always complete.
  const partial = `${dir}.partial`
  mkdirSync(partial, { recursive: true })
  for (const db of databases) {
    if (!existsSync(db.path)) continue
    const source = new Database(db.path, { readonly: true })
    try {
      source.query('VACUUM INTO ?').run(join(partial, `${db.name}.sqlite`))
    } finally {
      source.close()
    }
  }
  renameSync(partial, dir)
  return { stamp, takenAt, dir }
}

export function listSnapshots(backupDir: string): Snapshot[] {
  if (!existsSync(backupDir)) return []
  return readdirSync(backupDir)
    .filter((name) => /^\d{4}-\d{2}-\d{2}T[\d-]+Z$/.test(name))
    .sort()
    .map((stamp) => ({ stamp, takenAt: fromStamp(stamp), dir: join(backupDir, stamp) }))
}

/** Keeps the newest `keep` snapshots; returns the stamps removed. */
export function pruneSnapshots(backupDir: string, keep: number): string[] {
  const all = listSnapshots(backupDir)
  const removed = all.slice(0, Math.max(0, all.length - keep))
  for (const snapshot of removed) rmSync(snapshot.dir, { recursive: true, force: true })
  return removed.map((s) => s.stamp)
}

/** The newest snapshot taken at or before `at` (the newest of all when `at` is absent). */
export function snapshotAt(backupDir: string, at?: Date): Snapshot | undefined {
  const candidates = listSnapshots(backupDir).filter((s) => !at || Date.parse(s.takenAt) <= at.getTime())
  return candidates.at(-1)
}
