// The control database and the pool of tenant databases, each opened and migrated on first use.
import { type Database, SQLiteError } from 'bun:sqlite'
import { existsSync, mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { drizzle } from 'drizzle-orm/bun-sqlite'
import { LRUCache } from 'lru-cache'
import { controlMigrations, tenantMigrations } from '../../../migrations/embedded'
import { ApiError } from '../http/problem'
import { checkpointSoon } from './checkpoints'
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

/**
 * Open tenant databases, least recently used evicted beyond `size` (TENANT_POOL_SIZE). Only
 * `create` makes a database file: `get` opens existing ones, so a process that still believes in
 * a tenant another process has just deleted finds it gone rather than bringing back an empty file.
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
  private closeSoon: DatabaseHandle[] = []
  private closing = false
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

  constructor(
    private readonly dataDir: string,
    size: number,
    private readonly options: SqliteOptions,
    /** Called for every connection opened, e.g. to watch its commits. */
    private readonly onOpen: (tenantId: string, sqlite: Database) => void = () => {},
  ) {
    this.handles = new LRUCache({
      max: size,
      // Removed (`destroy`, `close`): at once, held or not. Evicted: once nothing uses it.
      dispose: (handle, _tenantId, reason) => {
        // Its writes so far commit now: a connection opened next for the tenant may write at once.
        commitNow(handle.sqlite)
        if (this.closing || reason === 'delete') return this.closeNow(handle)
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
    if (this.closeSoon.push(handle) > 1) return
    setImmediate(() => {
      const handles = this.closeSoon
      this.closeSoon = []
      // Held again since it was evicted (the same task held it after the eviction): wait for it.
      for (const evicted of handles)
        if (this.holds.has(evicted)) this.retired.add(evicted)
        else this.closeNow(evicted)
    })
  }

  private closeNow(handle: DatabaseHandle): void {
    this.retired.delete(handle)
    commitNow(handle.sqlite)
    handle.sqlite.close(false)
  }

  /** Where the tenant's database file is (whether or not it exists). */
  databasePath(tenantId: string): string {
    return tenantDatabasePath(this.dataDir, tenantId)
  }

  /** The tenant's database, opened (and migrated once per process) if it is not open yet. */
  get(tenantId: string): DatabaseHandle {
    return this.handles.get(tenantId) ?? this.open(tenantId, false)
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
    this.migrated.delete(tenantId)
    const path = tenantDatabasePath(this.dataDir, tenantId)
    for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${path}${suffix}`, { force: true })
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
    if (!this.migrated.has(tenantId)) {
      migrate(sqlite, tenantMigrations)
      this.migrated.add(tenantId)
    }
    if (this.options.walCheckpoint === 'background') {
      const { synchronous } = this.options
      const finish = () => {
        // Closed since (evicted, deleted): closing checkpointed it. In a group of writes (group
        // commit): that group's commit asks for another checkpoint.
        if (this.handles.peek(tenantId)?.sqlite === sqlite && !sqlite.inTransaction)
          sqlite.exec('PRAGMA wal_checkpoint(PASSIVE)')
      }
      afterEachCommit(sqlite, () => checkpointSoon(path, synchronous, finish))
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
    this.onOpen(tenantId, sqlite)
    const handle = { sqlite, db: drizzleOn(sqlite) }
    this.handles.set(tenantId, handle)
    return handle
  }

  get openCount(): number {
    return this.handles.size
  }

  close(): void {
    this.closing = true
    for (const handle of [...this.retired, ...this.closeSoon]) this.closeNow(handle)
    this.closeSoon = []
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
