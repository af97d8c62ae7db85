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

/** The replica holds nothing of the tenant: Litestream never uploaded it. */
export class NoReplicaError extends RestoreError {}

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

/**
 * Closes a connection for good, its statements finalized, before its file may be renamed into
 * place. A plain `close()` leaves it open while a statement lives (drizzle's are never finalized),
 * and SQLite shares one WAL index per file within a process: the pool's connection on the renamed
 * file used this one's `-shm`, deleted with the staging files, while Litestream used the real one.
 * Once Litestream started the WAL over, the pool went on writing frames of the old WAL, which
 * neither a new connection nor Litestream reads: acknowledged writes lost (tests/platform/backup.test.ts).
 */
export const closeForGood = (sqlite: Database) => sqlite.close(true)

/** Opens the database at `path` read-only for `read`, and closes it. */
export function readDatabase<T>(path: string, read: (sqlite: Database) => T): T {
  const sqlite = new Database(path, { readonly: true })
  try {
    return read(sqlite)
  } finally {
    closeForGood(sqlite)
  }
}

/** The newest audit entry of a tenant database: every write records one. */
export function writeMark(sqlite: Database): number {
  return sqlite.query<{ seq: number | null }, []>('SELECT max(seq) AS seq FROM audit_entries').get()?.seq ?? 0
}

async function runLitestream(binary: string, args: string[]): Promise<string> {
  const proc = Bun.spawn([binary, ...args], { stdout: 'pipe', stderr: 'pipe' })
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ])
  if (code !== 0) throw new RestoreError(`litestream ${args[0]} failed: ${`${stderr}\n${stdout}`.trim()}`)
  return stdout
}

/** `litestream generations` output: a header, then name, generation, lag, start and end per line. */
export function parseGenerations(output: string): { generation: string; start: string; end: string }[] {
  return output
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter((fields) => fields.length >= 5)
    .map((fields) => ({ generation: fields[1]!, start: fields[3]!, end: fields[4]! }))
}

/** Litestream run against the tenant's replica through a config naming it (see fetchFromReplica). */
interface ReplicaAccess {
  /** `litestream restore` of the replica into `to`: of one generation, up to a time, if given. */
  restore(to: string, at?: { generation?: string; timestamp?: Date }): Promise<void>
  /** The generations the replica holds. */
  generations(): Promise<{ generation: string; start: string; end: string }[]>
}

async function withReplica<T>(
  options: RestoreOptions,
  output: string,
  use: (replica: ReplicaAccess) => Promise<T>,
): Promise<T> {
  const { replicaUrl, litestreamBin } = options
  if (!replicaUrl) throw new RestoreError('LITESTREAM_REPLICA_URL is not set: there is no replica')
  if (!litestreamBin) throw new RestoreError('no Litestream binary (set LITESTREAM_BIN)')
  // Through a config naming a database, as `serve` replicates it: a replica URL alone cannot carry
  // an S3-compatible endpoint or path-style addressing to Litestream 0.3. The replica's path comes
  // from the tenant id; the database named is a placeholder, which `generations` wants to exist.
  const probe = `${output}.probe`
  const configPath = `${output}.litestream.yml`
  writeFileSync(
    configPath,
    litestreamConfig([{ name: options.tenant.id, path: probe }], replicaUrl, options.s3),
    {
      mode: 0o600,
    },
  )
  try {
    return await use({
      async restore(to, at = {}) {
        const args = ['restore', '-config', configPath, '-o', to]
        const timestamp = at.timestamp ?? options.timestamp
        if (timestamp) args.push('-timestamp', timestamp.toISOString())
        if (at.generation) args.push('-generation', at.generation)
        await runLitestream(litestreamBin, [...args, probe])
        if (!existsSync(to)) throw new RestoreError(`litestream restore wrote nothing to ${to}`)
      },
      async generations() {
        writeFileSync(probe, '')
        return parseGenerations(
          await runLitestream(litestreamBin, ['generations', '-config', configPath, probe]),
        )
      },
    })
  } finally {
    rmSync(configPath, { force: true })
    rmSync(probe, { force: true })
  }
}

/** The generations written last (several when they tie), or NoReplicaError. */
async function newestGenerations(options: RestoreOptions, replica: ReplicaAccess) {
  const listed = await replica.generations()
  if (listed.length === 0)
    throw new NoReplicaError(`the replica holds no backup of tenant ${options.tenant.slug}`)
  const newest = listed.reduce((latest, { end }) => (end > latest ? end : latest), '')
  return listed.filter(({ end }) => end === newest)
}

/**
 * Restores the replica as it is into `output`, unverified; answers the replica URL.
 *
 * Without a point in time, the generation written last. Litestream 0.3 picks it by the
 * modification times S3 lists, which are whole seconds: two generations last written within the
 * same second (a tenant handed to another node, or Litestream restarted, in that second) tie, and
 * Litestream takes the first by name, which may be the stale one. A tie is settled here by the
 * newest write each generation holds.
 */
export async function fetchFromReplica(options: RestoreOptions, output: string): Promise<string> {
  await withReplica(options, output, async (replica) => {
    if (options.timestamp) return replica.restore(output)
    const tied = (await newestGenerations(options, replica)).map(({ generation }) => generation)
    if (tied.length <= 1) return replica.restore(output, { generation: tied[0] })
    let best: { path: string; mark: number } | null = null
    for (const generation of tied) {
      const path = `${output}.${generation}`
      await replica.restore(path, { generation })
      const mark = readDatabase(path, writeMark)
      if (best && best.mark >= mark) removeDatabaseFiles(path)
      else {
        if (best) removeDatabaseFiles(best.path)
        best = { path, mark }
      }
    }
    renameSync(best!.path, output)
    removeDatabaseFiles(best!.path)
  })
  return replicaUrlFor(options.replicaUrl!, options.tenant.id)
}

/** How many seconds back from its newest point a restore looks for a copy that verifies. */
const SOUND_POINT_SECONDS = 30

/** A replica none of whose points within SOUND_POINT_SECONDS of its newest verifies. */
export class UnsoundReplicaError extends NoReplicaError {}

/**
 * The replica's newest copy failed verification (Litestream 0.3.13 can upload a generation whose
 * newest point restores corrupt: benbjohnson/litestream#582). Restoring it again gives the same
 * copy, so rather than retry it for ever, the newest earlier point in time that verifies is
 * restored, a second at a time back from the newest, within the generation written last.
 */
async function soundEarlierPoint(
  options: RestoreOptions,
  output: string,
  unsound: unknown,
): Promise<ReturnType<typeof verify>> {
  return withReplica(options, output, async (replica) => {
    const [newest] = await newestGenerations(options, replica)
    const start = Date.parse(newest!.start)
    const end = Date.parse(newest!.end)
    for (let back = 1; back <= SOUND_POINT_SECONDS && end - back * 1000 >= start; back++) {
      removeDatabaseFiles(output)
      const timestamp = new Date(end - back * 1000)
      try {
        await replica.restore(output, { generation: newest!.generation, timestamp })
        return verify(output)
      } catch {
        // Not this point either: one second further back.
      }
    }
    throw new UnsoundReplicaError(
      `the replica of tenant ${options.tenant.slug} restores unsound (${unsound instanceof Error ? unsound.message : unsound}), and no point in the ${SOUND_POINT_SECONDS} s before its newest verifies`,
    )
  })
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
    closeForGood(sqlite)
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
    let checked: ReturnType<typeof verify>
    try {
      checked = verify(staging)
    } catch (error) {
      if (options.from !== 'replica' || options.timestamp) throw error
      checked = await soundEarlierPoint(options, staging, error)
    }
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
