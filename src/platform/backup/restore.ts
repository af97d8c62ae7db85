// Bringing a tenant back from a snapshot or a Litestream replica, verified before it is put in
// place: PRAGMA integrity_check and the audit hash chain must both pass.
import { Database } from 'bun:sqlite'
import { copyFileSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { drizzle } from 'drizzle-orm/bun-sqlite'
import { verifyAuditChain } from '../audit/audit'
import { tenantDatabasePath } from '../tenancy/databases'
import { litestreamConfig, replicaUrlFor, type S3Options } from './litestream'
import { snapshotAt } from './snapshots'

export class RestoreError extends Error {}

const serveLockPath = (dataDir: string) => join(dataDir, 'serve.pid')

/** `serve` records its pid here so `restore` can refuse to replace files under a live server. */
export function writeServeLock(dataDir: string): () => void {
  const path = serveLockPath(dataDir)
  writeFileSync(path, String(process.pid))
  return () => rmSync(path, { force: true })
}

export function runningServerPid(dataDir: string): number | null {
  const path = serveLockPath(dataDir)
  if (!existsSync(path)) return null
  const pid = Number(readFileSync(path, 'utf8'))
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return null
  try {
    process.kill(pid, 0)
    return pid
  } catch {
    return null
  }
}

export interface RestoreOptions {
  dataDir: string
  backupDir: string
  tenant: { id: string; slug: string }
  from: 'snapshot' | 'replica'
  timestamp?: Date
  /** Write the restored database here instead of into place. */
  to?: string
  replicaUrl?: string
  /** The S3-compatible endpoint options of the replica (LITESTREAM_S3_*). */
  s3?: S3Options
  litestreamBin?: string | null
}

export interface RestoreReport {
  tenant: string
  from: 'snapshot' | 'replica'
  source: string
  restoredTo: string
  integrity: 'ok'
  auditEntries: number
  tables: Record<string, number>
}

const removeDatabaseFiles = (path: string) => {
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true })
}

/** Restores the replica as it is into `output`, unverified; answers the replica URL. */
export async function fetchFromReplica(options: RestoreOptions, output: string): Promise<string> {
  if (!options.replicaUrl) throw new RestoreError('LITESTREAM_REPLICA_URL is not set: there is no replica')
  if (!options.litestreamBin) throw new RestoreError('no Litestream binary (set LITESTREAM_BIN)')
  const url = replicaUrlFor(options.replicaUrl, options.tenant.id)
  // Through a config naming the database, as `serve` replicates it: a replica URL alone cannot
  // carry an S3-compatible endpoint or path-style addressing to Litestream 0.3.
  const path = tenantDatabasePath(options.dataDir, options.tenant.id)
  const configPath = `${output}.litestream.yml`
  writeFileSync(
    configPath,
    litestreamConfig([{ name: options.tenant.id, path }], options.replicaUrl, options.s3),
    {
      mode: 0o600,
    },
  )
  const args = [options.litestreamBin, 'restore', '-config', configPath, '-o', output]
  if (options.timestamp) args.push('-timestamp', options.timestamp.toISOString())
  args.push(path)
  try {
    const proc = Bun.spawn(args, { stdout: 'pipe', stderr: 'pipe' })
    const [stdout, stderr, code] = await Promise.all([
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
      proc.exited,
    ])
    if (code !== 0 || !existsSync(output))
      throw new RestoreError(`litestream restore failed: ${`${stderr}\n${stdout}`.trim()}`)
  } finally {
    rmSync(configPath, { force: true })
  }
  return url
}

function fetchFromSnapshot(options: RestoreOptions, output: string): string {
  const snapshot = snapshotAt(options.backupDir, options.timestamp)
  const file = snapshot && join(snapshot.dir, `${options.tenant.id}.sqlite`)
  if (!snapshot || !file || !existsSync(file)) {
    const when = options.timestamp ? ` at or before ${options.timestamp.toISOString()}` : ''
    throw new RestoreError(`no snapshot of tenant ${options.tenant.slug}${when} in ${options.backupDir}`)
  }
  copyFileSync(file, output)
  return snapshot.dir
}

/** PRAGMA integrity_check must answer `ok`. */
export function checkIntegrity(sqlite: Database): void {
  const integrity = sqlite.query<{ integrity_check: string }, []>('PRAGMA integrity_check').all()
  if (integrity.length !== 1 || integrity[0]?.integrity_check !== 'ok') {
    throw new RestoreError(`integrity_check failed: ${integrity.map((r) => r.integrity_check).join('; ')}`)
  }
}

/** The audit hash chain must verify; answers its length. */
export function checkAuditChain(sqlite: Database): number {
  const chain = verifyAuditChain(drizzle({ client: sqlite }))
  if (!chain.ok)
    throw new RestoreError(`audit chain broken at entry ${chain.firstBadEntryId} (seq ${chain.seq})`)
  return chain.count
}

function verify(path: string): Pick<RestoreReport, 'auditEntries' | 'tables'> {
  const sqlite = new Database(path)
  try {
    checkIntegrity(sqlite)
    const auditEntries = checkAuditChain(sqlite)
    const names = sqlite
      .query<{ name: string }, []>(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
      )
      .all()
    const tables: Record<string, number> = {}
    for (const { name } of names) {
      tables[name] = (sqlite.query(`SELECT count(*) AS n FROM "${name}"`).get() as { n: number }).n
    }
    return { auditEntries, tables }
  } finally {
    sqlite.close()
  }
}

export async function restoreTenant(options: RestoreOptions): Promise<RestoreReport> {
  const inPlace = options.to === undefined
  const target = options.to ?? tenantDatabasePath(options.dataDir, options.tenant.id)
  if (inPlace) {
    const pid = runningServerPid(options.dataDir)
    if (pid)
      throw new RestoreError(
        `a server (pid ${pid}) has this data directory open: stop it, or restore --to PATH`,
      )
  }
  const staging = `${target}.restoring`
  removeDatabaseFiles(staging)
  try {
    const source =
      options.from === 'replica'
        ? await fetchFromReplica(options, staging)
        : fetchFromSnapshot(options, staging)
    const checked = verify(staging)
    removeDatabaseFiles(target)
    renameSync(staging, target)
    return {
      tenant: options.tenant.slug,
      from: options.from,
      source,
      restoredTo: target,
      integrity: 'ok',
      ...checked,
    }
  } finally {
    removeDatabaseFiles(staging)
  }
}
