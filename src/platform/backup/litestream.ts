// Continuous replication with Litestream (v0.3): one replica path per database, and a supervisor
// that spreads the databases over several Litestream processes (litestream-process.ts), so that
// one database's trouble stops or delays only its own replication, and tells how far behind each
// database's replica is.
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname } from 'node:path'
import type { Logger } from '../foundation/log'
import { type LitestreamExit, type LitestreamLine, LitestreamProcess } from './litestream-process'

export interface ReplicatedDatabase {
  /** Stable name of the replica folder: `control` or the tenant id. */
  name: string
  path: string
}

export interface S3Options {
  endpoint?: string
  region?: string
  accessKeyId?: string
  secretAccessKey?: string
  forcePathStyle?: boolean
}

/** The replica URL of one database under the base `file:///dir` or `s3://bucket/prefix`. */
export function replicaUrlFor(baseUrl: string, name: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/${name}`
}

export function filePathOf(url: string): string | null {
  return url.startsWith('file://') ? decodeURIComponent(new URL(url).pathname) : null
}

const yamlString = (value: string) => JSON.stringify(value)

/**
 * Litestream's YAML config for these databases (JSON strings are valid YAML scalars).
 * `intervalMs`: how often Litestream copies each WAL (`monitor-interval`) and uploads what it
 * copied (`sync-interval`): a write waits for both before the replica has it.
 */
export function litestreamConfig(
  databases: readonly ReplicatedDatabase[],
  baseUrl: string,
  s3: S3Options = {},
  intervalMs = 1000,
): string {
  const lines = ['dbs:']
  for (const db of databases) {
    const url = replicaUrlFor(baseUrl, db.name)
    lines.push(`  - path: ${yamlString(db.path)}`, `    monitor-interval: ${intervalMs}ms`, '    replicas:')
    const file = filePathOf(url)
    if (file) {
      lines.push('      - type: file', `        path: ${yamlString(file)}`)
    } else {
      lines.push(`      - url: ${yamlString(url)}`)
      if (s3.endpoint) lines.push(`        endpoint: ${yamlString(s3.endpoint)}`)
      if (s3.region) lines.push(`        region: ${yamlString(s3.region)}`)
      if (s3.accessKeyId) lines.push(`        access-key-id: ${yamlString(s3.accessKeyId)}`)
      if (s3.secretAccessKey) lines.push(`        secret-access-key: ${yamlString(s3.secretAccessKey)}`)
      if (s3.forcePathStyle) lines.push('        force-path-style: true')
    }
    lines.push(`        sync-interval: ${intervalMs}ms`)
  }
  return `${lines.join('\n')}\n`
}

/** LITESTREAM_BIN, else the binary the npm package @flydotio/litestream-linux-x64 ships. */
export function resolveLitestreamBinary(explicit?: string): string | null {
  if (explicit) return existsSync(explicit) ? explicit : null
  try {
    const require = createRequire(import.meta.url)
    const pkg = require.resolve('@flydotio/litestream-linux-x64/package.json')
    const binary = `${dirname(pkg)}/litestream`
    return existsSync(binary) ? binary : null
  } catch {
    return null
  }
}

export interface SupervisorOptions {
  binary: string
  /** Named after it, each process has its config (litestream.yml: litestream-shard-1.yml...). */
  configPath: string
  replicaUrl: string
  s3?: S3Options
  log: Logger
  listDatabases: () => ReplicatedDatabase[]
  /** Databases per Litestream process (LITESTREAM_SHARD_SIZE). */
  shardSize?: number
  /** LITESTREAM_SYNC_INTERVAL_MS. */
  intervalMs?: number
  /** Backoff after an unexpected exit: base * 2^n, capped. */
  backoffMs?: { base: number; max: number }
}

/** One database as replication sees it (`/health` and the operator API show it). */
export interface DatabaseReplication {
  name: string
  /**
   * `replicating`; `failing` (its last attempts failed, see lastError); `isolated` (moved to a
   * process of its own after failing again and again).
   */
  state: 'replicating' | 'failing' | 'isolated'
  /** When its last upload to the replica finished (null: none since its Litestream started). */
  lastSyncAt: string | null
  /** When this process last wrote to it. */
  lastWriteAt: string | null
  /**
   * How long the oldest write this process made to it and Litestream has not uploaded yet has
   * waited: 0 when the replica has them all (to within the sync interval).
   */
  secondsBehind: number
  lastError: string | null
  lastErrorAt: string | null
}

export interface LitestreamStatus {
  state: 'running' | 'restarting' | 'stopped'
  /** Each Litestream process: its pid (null while it restarts) and how many databases it holds. */
  processes: { pid: number | null; databases: number; restarts: number }[]
  restarts: number
  lastExit: { code: number | null; at: string } | null
  databases: number
}

/** Errors in a row, with no upload between them, after which a database gets a process of its own. */
const ISOLATE_AFTER_ERRORS = 3
const DEFAULT_SHARD_SIZE = 50

interface Tracked {
  name: string
  path: string
  /** The process (shard) replicating it; isolated ones have their own. */
  shard: string
  isolated: boolean
  lastWriteAt: number | null
  /** The oldest write not known to be in the replica. */
  unsyncedSince: number | null
  uploadStartedAt: number | null
  /**
   * Its shard's running Litestream has begun an upload of it, so has opened it: its final sync
   * at a clean stop covers it. Cleared at each exit.
   */
  openedByProcess: boolean
  /** Its shard's Litestream reported failing to close it (its final sync did not happen). */
  closeFailed: boolean
  lastSyncAt: number | null
  /** Uploads finished since it joined. */
  uploads: number
  errorsInARow: number
  lastError: string | null
  lastErrorAt: number | null
}

export class LitestreamSupervisor {
  private readonly shards = new Map<string, LitestreamProcess>()
  private readonly tracked = new Map<string, Tracked>()
  private readonly waiters = new Map<string, Set<() => void>>()
  private readonly shardSize: number
  private readonly intervalMs: number
  private stopping = false
  private shardsMade = 0
  /** Stops of processes left with no database, under way: a stop waits for them too. */
  private readonly retiring = new Set<Promise<void>>()

  constructor(private readonly options: SupervisorOptions) {
    this.shardSize = options.shardSize ?? DEFAULT_SHARD_SIZE
    this.intervalMs = options.intervalMs ?? 1000
  }

  start(): void {
    this.stopping = false
    this.apply()
  }

  /**
   * Brings the processes in line with the databases to replicate; restarts only the processes
   * whose databases changed or whose files were replaced. True when one restarted.
   */
  syncDatabases(): boolean {
    return this.apply().length > 0
  }

  /** Like syncDatabases, but resolves once every restarted Litestream has made its last sync and exited. */
  async reload(): Promise<void> {
    await Promise.all(this.apply())
  }

  private apply(): Promise<void>[] {
    if (this.stopping) return []
    const wanted = new Map(this.options.listDatabases().map((db) => [db.path, db]))
    const touched = new Set<string>()
    for (const [path, tracked] of this.tracked)
      if (!wanted.has(path)) {
        this.tracked.delete(path)
        touched.add(tracked.shard)
        this.settle(path)
      }
    for (const [path, db] of wanted)
      if (!this.tracked.has(path)) {
        const shard = this.shardWithRoom()
        this.tracked.set(path, newTracked(db, shard))
        touched.add(shard)
      }
    const restarts: Promise<void>[] = []
    // Every member's shard: one just isolated has no process yet.
    const shards = [...this.shards.keys(), ...touched, ...[...this.tracked.values()].map((t) => t.shard)]
    for (const id of new Set(shards)) {
      const members = [...this.tracked.values()].filter((t) => t.shard === id)
      const shard = this.shards.get(id)
      if (members.length === 0) {
        this.shards.delete(id)
        if (shard) restarts.push(this.retire(shard))
        continue
      }
      const process = shard ?? this.newShard(id)
      const config = litestreamConfig(
        members.map(({ name, path }) => ({ name, path })),
        this.options.replicaUrl,
        this.options.s3,
        this.intervalMs,
      )
      if (
        process.configure(
          config,
          members.map((t) => t.path),
        )
      ) {
        this.options.log.info('litestream: its databases changed, restarting it', {
          databases: members.length,
        })
        for (const member of members) member.uploadStartedAt = null
        restarts.push(process.restart())
      }
    }
    return restarts
  }

  private retire(shard: LitestreamProcess): Promise<void> {
    const stopped = shard.stop().finally(() => this.retiring.delete(stopped))
    this.retiring.add(stopped)
    return stopped
  }

  /** The shard a new database joins: the first with room, else a new one. */
  private shardWithRoom(): string {
    const counts = new Map<string, number>()
    for (const t of this.tracked.values())
      if (!t.isolated) counts.set(t.shard, (counts.get(t.shard) ?? 0) + 1)
    for (const [id, count] of counts) if (count < this.shardSize) return id
    return `shard-${++this.shardsMade}`
  }

  private newShard(id: string): LitestreamProcess {
    const configPath = this.options.configPath.replace(/(\.yml)?$/, `-${id}.yml`)
    const process = new LitestreamProcess({
      binary: this.options.binary,
      configPath,
      log: this.options.log,
      backoffMs: this.options.backoffMs ?? { base: 1000, max: 60_000 },
      onLine: (line) => this.observe(id, line),
      onExit: (exit) => this.exited(id, exit),
    })
    this.shards.set(id, process)
    return process
  }

  /** Uploads and errors, from Litestream's log, per database. */
  private observe(shard: string, line: LitestreamLine): void {
    const tracked = line.fields.db ? this.tracked.get(line.fields.db) : undefined
    // A process restarting without a database (it was isolated) may still report it.
    if (!tracked || tracked.shard !== shard) return
    const now = Date.now()
    if (line.msg === 'error closing db') tracked.closeFailed = true
    if (line.msg === 'write wal segment' || line.msg === 'write snapshot') tracked.openedByProcess = true
    // A snapshot is an upload too: one holds every write before it began. Litestream writes one
    // for a new generation (it clears the generation when, restarted, it cannot find its place in
    // the WAL), and the writes it holds are not uploaded again as WAL segments: counting only
    // those left a database written just before its shard restarted "behind" until its next write.
    if (line.msg === 'write wal segment' || line.msg === 'write snapshot') tracked.uploadStartedAt = now
    else if (line.msg === 'wal segment written' || line.msg === 'snapshot written') {
      // Writes made before the upload began are taken to be in it. One Litestream had not copied
      // from the WAL yet is uploaded by its next sync, which corrects this within the interval.
      const began = tracked.uploadStartedAt ?? now
      tracked.unsyncedSince =
        tracked.lastWriteAt === null || tracked.lastWriteAt < began
          ? null
          : Math.max(tracked.unsyncedSince ?? began, began)
      tracked.uploadStartedAt = null
      tracked.lastSyncAt = now
      tracked.uploads++
      tracked.errorsInARow = 0
      this.settle(tracked.path)
    } else if (line.level === 'error' && line.msg !== 'error closing db') {
      tracked.lastError = line.fields.error ?? line.msg
      tracked.lastErrorAt = now
      tracked.errorsInARow++
      this.settle(tracked.path)
      if (tracked.errorsInARow >= ISOLATE_AFTER_ERRORS && !tracked.isolated) this.isolate(tracked)
    }
  }

  /**
   * A database failing again and again gets a Litestream of its own: the process it shared
   * restarts without it, so its trouble cannot hold back the others' uploads, restarts or stops.
   */
  private isolate(tracked: Tracked): void {
    this.options.log.warn('litestream: a database keeps failing; replicating it in a process of its own', {
      db: tracked.path,
      error: tracked.lastError,
    })
    tracked.isolated = true
    tracked.shard = `isolated-${++this.shardsMade}`
    tracked.openedByProcess = false
    void this.reload()
  }

  private exited(id: string, { code, planned, cleanStopAskedAt }: LitestreamExit): void {
    const members = [...this.tracked.values()].filter((t) => t.shard === id)
    for (const member of members) {
      if (cleanStopAskedAt !== null && member.openedByProcess && !member.closeFailed)
        this.uploadedAtStop(member, cleanStopAskedAt)
      member.openedByProcess = false
      member.closeFailed = false
    }
    if (planned) return
    for (const member of members) {
      member.uploadStartedAt = null
      member.lastError ??= `its Litestream exited (code ${code})`
      this.settle(member.path)
    }
    // A process that dies over one of its databases (its error names the file) goes on without it.
    const culprit = members.find((m) => m.lastErrorAt !== null && Date.now() - m.lastErrorAt < 5000)
    if (culprit && !culprit.isolated && members.length > 1) this.isolate(culprit)
  }

  /**
   * A clean stop's final sync uploaded the writes made before it was asked for. Litestream logs
   * nothing when the replica already held them (an upload the stop cut short had reached it), and
   * the next process has nothing to upload either: without this, a database quiet since would
   * show behind until its next write.
   */
  private uploadedAtStop(tracked: Tracked, askedAt: number): void {
    if (tracked.lastWriteAt === null || tracked.lastWriteAt < askedAt) tracked.unsyncedSince = null
    tracked.lastSyncAt = Date.now()
    tracked.uploads++
    tracked.errorsInARow = 0
    this.settle(tracked.path)
  }

  private settle(path: string): void {
    for (const waiter of [...(this.waiters.get(path) ?? [])]) waiter()
  }

  /** A write to the database at `path` was committed (the tenant pool tells). */
  noteWrite(path: string): void {
    const tracked = this.tracked.get(path)
    if (!tracked) return
    const now = Date.now()
    tracked.lastWriteAt = now
    tracked.unsyncedSince ??= now
  }

  /**
   * Follows the uploads of the database at `path`: each call of the function returned resolves
   * once Litestream has finished an upload of it since the previous call (the first: since
   * `follow`), and rejects as soon as Litestream cannot replicate it (its process is down, or it
   * failed again and again), or once `limitMs` have passed since `follow`. Litestream's own reports,
   * not a clock, say when to look again.
   */
  follow(path: string, limitMs: number): () => Promise<void> {
    const deadline = Date.now() + limitMs
    let seen = this.tracked.get(path)?.uploads ?? 0
    return async () => {
      for (;;) {
        const tracked = this.tracked.get(path)
        if (!tracked) throw new Error('it is not replicated by this node')
        if (tracked.uploads > seen) {
          seen = tracked.uploads
          return
        }
        const why = tracked.lastError ? `: ${tracked.lastError}` : ''
        if (this.shards.get(tracked.shard)?.state !== 'running')
          throw new Error(`its Litestream is not running${why}`)
        if (tracked.errorsInARow >= ISOLATE_AFTER_ERRORS)
          throw new Error(`Litestream failed ${tracked.errorsInARow} times in a row${why}`)
        const left = deadline - Date.now()
        if (left <= 0)
          throw new Error(
            `Litestream uploaded nothing of it for ${limitMs} ms (${tracked.uploads} uploads since it joined, the last at ${iso(tracked.lastSyncAt)}; last write noted at ${iso(tracked.lastWriteAt)})`,
          )
        await this.nextChange(path, left)
      }
    }
  }

  /** Resolves at the next upload, error or exit Litestream reports for the database, or after `ms`. */
  private nextChange(path: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const waiting = this.waiters.get(path) ?? new Set()
      this.waiters.set(path, waiting)
      const done = () => {
        clearTimeout(timer)
        waiting.delete(done)
        if (waiting.size === 0) this.waiters.delete(path)
        resolve()
      }
      const timer = setTimeout(done, ms)
      waiting.add(done)
    })
  }

  /** Every database replicated, by name. */
  databases(): DatabaseReplication[] {
    const now = Date.now()
    return [...this.tracked.values()]
      .map((t) => ({
        name: t.name,
        state: t.isolated
          ? ('isolated' as const)
          : t.errorsInARow > 0
            ? ('failing' as const)
            : ('replicating' as const),
        lastSyncAt: iso(t.lastSyncAt),
        lastWriteAt: iso(t.lastWriteAt),
        secondsBehind: t.unsyncedSince === null ? 0 : Math.round((now - t.unsyncedSince) / 100) / 10,
        lastError: t.lastError,
        lastErrorAt: iso(t.lastErrorAt),
      }))
      .sort((a, b) => a.name.localeCompare(b.name))
  }

  status(): LitestreamStatus {
    const processes = [...this.shards.values()]
    const exits = processes.map((p) => p.lastExit).filter((exit) => exit !== null)
    return {
      state: this.stopping
        ? 'stopped'
        : processes.every((p) => p.state === 'running')
          ? 'running'
          : 'restarting',
      processes: [...this.shards.entries()].map(([id, p]) => ({
        pid: p.pid,
        databases: [...this.tracked.values()].filter((t) => t.shard === id).length,
        restarts: p.restarts,
      })),
      restarts: processes.reduce((sum, p) => sum + p.restarts, 0),
      lastExit: exits.sort((a, b) => b.at.localeCompare(a.at))[0] ?? null,
      databases: this.tracked.size,
    }
  }

  /** Stops every Litestream; SIGTERM lets each finish its current sync first. */
  async stop(): Promise<void> {
    this.stopping = true
    await Promise.all([...[...this.shards.values()].map((p) => p.stop()), ...this.retiring])
  }
}

const iso = (at: number | null) => (at === null ? null : new Date(at).toISOString())

const newTracked = (db: ReplicatedDatabase, shard: string): Tracked => ({
  name: db.name,
  path: db.path,
  shard,
  isolated: false,
  lastWriteAt: null,
  unsyncedSince: null,
  uploadStartedAt: null,
  openedByProcess: false,
  closeFailed: false,
  lastSyncAt: null,
  uploads: 0,
  errorsInARow: 0,
  lastError: null,
  lastErrorAt: null,
})
