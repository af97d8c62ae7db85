// A tenant's copy in its Litestream replica, as the cluster uses it: restored to serve, and read
// back before a move hands the tenant over, so the new owner is sure to find every write.
import { rmSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import type { Config } from '../../config'
import { resolveLitestreamBinary } from '../backup/litestream'
import { checkIntegrity, fetchFromReplica, readDatabase, restoreTenant, writeMark } from '../backup/restore'
import { tenantDatabasePath } from '../tenancy/databases'
import type { Tenant } from '../tenancy/tenants'

/** When the newest write of the database at `path` was made. */
export const newestWriteAt = (path: string): string | null =>
  readDatabase(
    path,
    (sqlite) =>
      sqlite.query<{ at: string | null }, []>('SELECT max(created_at) AS at FROM audit_entries').get()?.at ??
      null,
  )

/** Litestream 0.3 keeps its state beside the database: a copy restored later must not inherit it. */
export const litestreamMetaDir = (path: string) => join(dirname(path), `.${basename(path)}-litestream`)

const replicaOptions = (config: Config, tenant: Tenant) => ({
  dataDir: config.dataDir,
  backupDir: config.backupDir,
  tenant,
  from: 'replica' as const,
  replicaUrl: config.litestreamReplicaUrl,
  s3: config.litestreamS3,
  litestreamBin: resolveLitestreamBinary(config.litestreamBin),
})

/**
 * Puts the replica in place of the tenant's database, verified (integrity, audit chain); refuses
 * a replica missing writes up to `mark`.
 */
export async function restoreFromReplica(config: Config, tenant: Tenant, mark: number | null): Promise<void> {
  const path = tenantDatabasePath(config.dataDir, tenant.id)
  rmSync(litestreamMetaDir(path), { recursive: true, force: true })
  await restoreTenant({ ...replicaOptions(config, tenant), to: path })
  const restored = readDatabase(path, writeMark)
  if (mark !== null && restored < mark) {
    rmSync(path, { force: true })
    throw new Error(`the replica holds writes up to ${restored}, the move handed over ${mark}`)
  }
}

/**
 * Reads the replica back until it holds every write up to `mark`; between two reads, `nextUpload`
 * waits for Litestream's next upload of the tenant (and throws when there will be none). A copy
 * holding the mark must also pass `integrity_check`: Litestream 0.3.13 can upload a replica that
 * restores corrupt (README "Several nodes"), and the target would have nothing sound to serve
 * while the source still holds every write; the move fails instead, and the source serves on.
 */
export async function awaitReplica(
  config: Config,
  tenant: Tenant,
  mark: number,
  nextUpload: () => Promise<void>,
): Promise<void> {
  const copy = `${tenantDatabasePath(config.dataDir, tenant.id)}.checking`
  try {
    await untilReplicaHolds(mark, nextUpload, async () => {
      rmSync(copy, { force: true })
      await fetchFromReplica(replicaOptions(config, tenant), copy)
      return readDatabase(copy, writeMark)
    })
    try {
      readDatabase(copy, checkIntegrity)
    } catch (error) {
      throw new Error(`the replica restores unsound: ${messageOf(error)}`)
    }
  } finally {
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${copy}${suffix}`, { force: true })
  }
}

/**
 * Reads the replica back (`read` answers the write mark the copy holds) until it holds `mark`,
 * waiting for Litestream's next upload between two reads. A read that fails waits too: a node
 * that has just taken a tenant over starts a new generation, and until its snapshot is uploaded a
 * restore finds "no matching backups" (the cluster suite met it, 1 run in about 25). When
 * Litestream will upload nothing more, the last read's answer is the error.
 */
export async function untilReplicaHolds(
  mark: number,
  nextUpload: () => Promise<void>,
  read: () => Promise<number>,
): Promise<void> {
  for (;;) {
    let held: number | null = null
    let failure = ''
    try {
      held = await read()
    } catch (error) {
      failure = messageOf(error)
    }
    if (held !== null && held >= mark) return
    await nextUpload().catch((error) => {
      throw new Error(
        held === null
          ? `reading the replica back: ${failure}; ${messageOf(error)}`
          : `the replica holds writes up to ${held} of ${mark}: ${messageOf(error)}`,
      )
    })
  }
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error))
