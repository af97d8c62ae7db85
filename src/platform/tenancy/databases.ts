// The control database and the pool of tenant databases, each opened and migrated on first use.
import { type Database, SQLiteError } from 'bun:sqlite'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { drizzle } from 'drizzle-orm/bun-sqlite'
import { LRUCache } from 'lru-cache'
import { controlMigrations, tenantMigrations } from '../../../migrations/embedded'
import { ApiError } from '../foundation/problem'
import { checkpointAfterWrites } from './checkpoints'
import { migrate } from './migrator'
import { type Db, openSqlite, type SqliteOptions } from './sqlite'
import { afterEachCommit, commitNow } from './transaction'

export type { Db } from './sqlite'
export type TenantDb = Db
export type ControlDb = Db

export interface DatabaseHandle {
  sqlite: Database
  db: Db
}

/**
 * drizzle over a connection whose `prepare` reuses compiled statements. drizzle's bun-sqlite
 * session calls `client.prepare(sql)` for every query it runs (and never finalizes), so SQLite
 * compiled the same SQL again on each request; bun's `query()` keeps one compiled statement per
 * SQL text. drizzle emits `?` placeholders, so the set of SQL texts is bounded by the code.
 */
export function drizzleOn(sqlite: Database): Db {
  sqlite.prepare = ((sql: string) => sqlite.query(sql)) as Database['prepare']
  return drizzle({ client: sqlite })
}

export const controlDatabasePath = (dataDir: string) => join(dataDir, 'control.sqlite')
export const tenantDatabasePath = (dataDir: string, tenantId: string) => join(dataDir, `${tenantId}.sqlite`)

export function openControlDatabase(dataDir: string, options: SqliteOptions): DatabaseHandle {
  mkdirSync(dataDir, { recursive: true })
  const sqlite = openSqlite(controlDatabasePath(dataDir), options)
  migrate(sqlite, controlMigrations)
  return { sqlite, db: drizzleOn(sqlite) }
}

/** What bounds the pool: its memory (TENANT_POOL_MEMORY) and, when set, a count (TENANT_POOL_SIZE). */
export interface PoolLimits {
  memoryBytes: number
  maxOpen?: number
}

/** What /health shows operators of the pool's decisions. */
export interface PoolStats {
  open: number
  /** How many connections fit: the memory over the measured size, or the count limit. */
  capacity: number
  memoryBytes: number
  /** Measured: the growth of resident memory per connection opened to a tenant file. */
  connectionBytes: number
  hits: number
  misses: number
  evictions: number
}

/**
 * Connections opened to measure one's size: the first half to use up what memory the allocator
 * holds free (it serves opens from memory freed before, so a lone open grew resident memory by
 * 0.1-0.25 MB), the growth across the second half measured (bench/README.md).
 */
const SIZE_SAMPLE_CONNECTIONS = 16
/**
 * The least a connection is counted at. A worker that has served requests may hold enough freed
 * memory for all sixteen: it measured 1 byte a connection, and its pool was held by the open-file
 * limit alone (bench/README.md, tenth pass). Connections measured 236-390 KiB on a fresh heap.
 */
const MIN_CONNECTION_BYTES = 200 * 1024

const residentBytes = () => Number(readFileSync('/proc/self/statm', 'latin1').split(' ')[1]) * 4096

/**
 * Open tenant databases, least recently used evicted beyond what `limits` allow. An open
 * connection holds ~0.5 MB whatever it reads (the parsed schema of ~90 tables is most of it:
 * bench/README.md), so the pool holds as many as its memory fits, by the size it measures: on its
 * first open of an existing file (at start, the readiness probe's), the growth of resident memory
 * across opening connections to tenant files. (Measured as the pool grows instead, it took in the
 * garbage of the requests served meanwhile: 2.4 MB a connection.) Only `create` makes a database
 * file: `get` opens existing ones, so a process that still believes in a tenant another process
 * has just deleted finds it gone rather than bringing back an empty file.
 *
 * An evicted connection closes as soon as nothing uses it: work that awaits between uses (a
 * request, a job) `hold`s its handle and `release`s it at the end, and closes wait for that;
 * anything else is synchronous, so an unheld handle closes once the current task is over. (A fixed
 * delay before closing kept hundreds of evicted connections open under a spread load, and could
 * still close one under a request awaiting a payment provider.)
 */
export class TenantPool {
  private readonly handles: LRUCache<string, DatabaseHandle>
  private readonly migrated = new Set<string>()
  private readonly holds = new Map<DatabaseHandle, number>()
  /** Evicted while held: closed on the last release. */
  private readonly retired = new Set<DatabaseHandle>()
  /** Evicted and not held: closed once the current task is over. */
  private closeSoon = new Set<DatabaseHandle>()
  private closeScheduled = false
  /**
   * Evicted and not closed yet (held, or closing after this task), by tenant: taken back rather
   * than opening a second connection to the file. (A second one left the first's file descriptor
   * open until both closed: SQLite cannot close one while another holds the file's locks.)
   */
  private readonly evicted = new Map<string, DatabaseHandle>()
  private readonly tenantOf = new WeakMap<DatabaseHandle, string>()
  private closing = false
  private connectionBytes = 0
  private measuring = false
  private hits = 0
  private misses = 0
  private evictions = 0
  /**
   * Whether this process serves the tenant now: always on one node; a cluster node serves only
   * the tenants it owns and can write to (jobs skip the others).
   */
  isServed: (tenantId: string) => boolean = () => true
  /**
   * Told of every commit to a tenant database while Litestream owns checkpoints (it replicates
   * them): how far behind the replica is starts there.
   */
  committed: (path: string) => void = () => {}
  /** The WAL checkpoint of each connection's file, for its HTTP workers' writes (`writtenElsewhere`). */
  private readonly checkpoints = new WeakMap<Database, () => void>()

  constructor(
    private readonly dataDir: string,
    private readonly limits: PoolLimits,
    private readonly options: SqliteOptions,
    /** Called for every connection opened, e.g. to watch its commits; `created`: a new tenant's file. */
    private readonly onOpen: (tenantId: string, db: Db, created: boolean) => void = () => {},
  ) {
    this.handles = new LRUCache({
      // The count limit; the memory's is `capacity`. lru-cache sizes its arrays by `max`: no
      // connection is smaller than 64 KiB.
      max: Math.max(1, Math.min(limits.maxOpen ?? Infinity, Math.floor(limits.memoryBytes / 65_536))),
      // Removed (`destroy`, `close`): at once, held or not. Evicted: once nothing uses it.
      dispose: (handle, tenantId, reason) => {
        // Its writes so far commit now: a connection opened next for the tenant may write at once.
        commitNow(handle.sqlite)
        if (reason === 'evict') this.evictions++
        if (this.closing || reason === 'delete') return this.closeNow(handle)
        this.evicted.set(tenantId, handle)
        if (this.holds.has(handle)) this.retired.add(handle)
        else this.closeAfterThisTask(handle)
      },
    })
  }

  /**
   * The tenant's database, kept open until `release` even if the pool evicts it meanwhile: for
   * work that awaits between its uses of the database.
   */
  hold(tenantId: string): DatabaseHandle {
    const handle = this.get(tenantId)
    this.holds.set(handle, (this.holds.get(handle) ?? 0) + 1)
    return handle
  }

  release(handle: DatabaseHandle): void {
    const left = (this.holds.get(handle) ?? 1) - 1
    if (left > 0) return void this.holds.set(handle, left)
    this.holds.delete(handle)
    if (this.retired.delete(handle)) this.closeNow(handle)
  }

  private closeAfterThisTask(handle: DatabaseHandle): void {
    this.closeSoon.add(handle)
    if (this.closeScheduled) return
    this.closeScheduled = true
    setImmediate(() => {
      this.closeScheduled = false
      const handles = this.closeSoon
      this.closeSoon = new Set()
      // Held again since it was evicted (the same task held it after the eviction): wait for it.
      for (const evicted of handles)
        if (this.holds.has(evicted)) this.retired.add(evicted)
        else this.closeNow(evicted)
    })
  }

  private closeNow(handle: DatabaseHandle): void {
    this.retired.delete(handle)
    const tenantId = this.tenantOf.get(handle)
    if (tenantId && this.evicted.get(tenantId) === handle) this.evicted.delete(tenantId)
    commitNow(handle.sqlite)
    handle.sqlite.close(false)
  }

  /** Where the tenant's database file is (whether or not it exists). */
  databasePath(tenantId: string): string {
    return tenantDatabasePath(this.dataDir, tenantId)
  }

  /** The tenant's database, opened (and migrated once per process) if it is not open yet. */
  get(tenantId: string): DatabaseHandle {
    const open = this.handles.get(tenantId)
    if (open) {
      this.hits++
      return open
    }
    const evicted = this.evicted.get(tenantId)
    if (evicted) {
      this.hits++
      this.evicted.delete(tenantId)
      this.retired.delete(evicted)
      this.closeSoon.delete(evicted)
      this.admit(tenantId, evicted)
      return evicted
    }
    this.misses++
    return this.open(tenantId, false)
  }

  /** Into the pool, evicting the least recently used beyond what it holds. */
  private admit(tenantId: string, handle: DatabaseHandle): void {
    this.handles.set(tenantId, handle)
    while (this.handles.size > this.capacity) this.handles.pop()
  }

  /** Makes and migrates the database file of a new tenant. */
  create(tenantId: string): DatabaseHandle {
    if (this.handles.has(tenantId) || existsSync(tenantDatabasePath(this.dataDir, tenantId)))
      throw new Error(`tenant ${tenantId} already has a database`)
    mkdirSync(this.dataDir, { recursive: true })
    return this.open(tenantId, true)
  }

  /**
   * Closes the tenant's connection now and removes its database file, WAL and shared memory (and
   * the rollback journal a process killed while it made the file leaves): a request still holding
   * the connection fails rather than writing to a file that is gone.
   */
  destroy(tenantId: string): void {
    this.handles.delete(tenantId)
    const evicted = this.evicted.get(tenantId)
    if (evicted) this.closeNow(evicted)
    this.migrated.delete(tenantId)
    const path = tenantDatabasePath(this.dataDir, tenantId)
    for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${path}${suffix}`, { force: true })
  }

  /**
   * A write to the tenant committed in an HTTP worker (the primary's pool, whose checkpoints are
   * `for-workers`): its WAL is checkpointed here as after this process's own writes.
   */
  writtenElsewhere(tenantId: string): void {
    if (this.options.walCheckpoint !== 'for-workers') return
    let handle: DatabaseHandle
    try {
      handle = this.get(tenantId)
    } catch {
      // Deleted since.
      return
    }
    this.checkpoints.get(handle.sqlite)?.()
  }

  private open(tenantId: string, create: boolean): DatabaseHandle {
    const path = tenantDatabasePath(this.dataDir, tenantId)
    let sqlite: Database
    try {
      sqlite = openSqlite(path, this.options, { create })
    } catch (error) {
      if (error instanceof SQLiteError && error.code === 'SQLITE_CANTOPEN')
        throw new ApiError('tenant_not_found', `Tenant ${tenantId} has no database`)
      throw error
    }
    // A new file is migrated as it opens: not what an open costs. After this task: not on the
    // path of the request (at start, the readiness probe) that opened it.
    if (!create && this.connectionBytes === 0 && !this.measuring) {
      this.measuring = true
      setImmediate(() => this.measure(path))
    }
    if (!this.migrated.has(tenantId)) {
      migrate(sqlite, tenantMigrations)
      this.migrated.add(tenantId)
    }
    const { walCheckpoint, synchronous, busyTimeoutMs } = this.options
    if (walCheckpoint === 'background' || walCheckpoint === 'for-workers') {
      const checkpoint = checkpointAfterWrites(
        sqlite,
        path,
        { synchronous, busyTimeoutMs, forWorkers: walCheckpoint === 'for-workers' },
        // Closed since (evicted, deleted): closing checkpointed it.
        () => this.handles.peek(tenantId)?.sqlite === sqlite,
      )
      if (walCheckpoint === 'for-workers') this.checkpoints.set(sqlite, checkpoint)
    }
    if (this.options.walCheckpoint === 'external') {
      // Only a commit that changed rows adds to the WAL. One that changed nothing (a job's pass
      // finding nothing to do) gives Litestream nothing to upload, so the replica's lag, counted
      // from it, never came back to 0.
      const changes = sqlite.query<{ n: number }, []>('SELECT total_changes() AS n')
      let counted = changes.get()!.n
      afterEachCommit(sqlite, () => {
        const now = changes.get()!.n
        if (now === counted) return
        counted = now
        this.committed(path)
      })
    }
    const handle = { sqlite, db: drizzleOn(sqlite) }
    this.onOpen(tenantId, handle.db, create)
    this.tenantOf.set(handle, tenantId)
    this.admit(tenantId, handle)
    return handle
  }

  /** How many connections the memory holds (at least the one in use): all until one is measured. */
  get capacity(): number {
    if (this.connectionBytes === 0) return this.handles.max
    return Math.min(this.handles.max, Math.max(1, Math.floor(this.limits.memoryBytes / this.connectionBytes)))
  }

  /** Opens SIZE_SAMPLE_CONNECTIONS connections to tenant files (`path` when too few), and closes them. */
  private measure(path: string): void {
    if (this.closing) return
    const files = readdirSync(this.dataDir)
      .filter(
        (name) => name.endsWith('.sqlite') && join(this.dataDir, name) !== controlDatabasePath(this.dataDir),
      )
      .slice(0, SIZE_SAMPLE_CONNECTIONS)
      .map((name) => join(this.dataDir, name))
    while (files.length < SIZE_SAMPLE_CONNECTIONS) files.push(path)
    const half = SIZE_SAMPLE_CONNECTIONS / 2
    const opened: Database[] = []
    try {
      for (const file of files.slice(0, half)) opened.push(openSqlite(file, this.options, { create: false }))
      const before = residentBytes()
      for (const file of files.slice(half)) opened.push(openSqlite(file, this.options, { create: false }))
      this.connectionBytes = Math.max(MIN_CONNECTION_BYTES, Math.round((residentBytes() - before) / half))
      while (this.handles.size > this.capacity) this.handles.pop()
    } catch {
      // A file gone meanwhile (a tenant deleted): measured on the next open.
      this.measuring = false
    } finally {
      for (const sqlite of opened) sqlite.close(false)
    }
  }

  /** How many more tenants can be opened without evicting one. */
  get room(): number {
    return Math.max(0, this.capacity - this.handles.size)
  }

  get openCount(): number {
    return this.handles.size
  }

  stats(): PoolStats {
    return {
      open: this.handles.size,
      capacity: this.capacity,
      memoryBytes: this.limits.memoryBytes,
      connectionBytes: this.connectionBytes,
      hits: this.hits,
      misses: this.misses,
      evictions: this.evictions,
    }
  }

  close(): void {
    this.closing = true
    for (const handle of [...this.retired, ...this.closeSoon]) this.closeNow(handle)
    this.closeSoon.clear()
    this.handles.clear()
  }
}

/** Migrates the control database and every tenant database; reports what each applied. */
export function migrateAll(dataDir: string, options: SqliteOptions) {
  mkdirSync(dataDir, { recursive: true })
  const control = openSqlite(controlDatabasePath(dataDir), options)
  try {
    const controlApplied = migrate(control, controlMigrations)
    const rows = control
      .query<{ id: string; slug: string }, []>('SELECT id, slug FROM tenants ORDER BY slug')
      .all()
    const tenants: Record<string, string[]> = {}
    for (const { id, slug } of rows) {
      const tenantDb = openSqlite(tenantDatabasePath(dataDir, id), options, { create: false })
      try {
        tenants[slug] = migrate(tenantDb, tenantMigrations)
      } finally {
        tenantDb.close(false)
      }
    }
    return { control: controlApplied, tenants }
  } finally {
    control.close(false)
  }
}
