// Opening a SQLite file the way every database of the service is opened.
import { constants, Database } from 'bun:sqlite'
import type { BunSQLiteDatabase } from 'drizzle-orm/bun-sqlite'
import type { SqliteSynchronous } from '../../config'
import { BACKSTOP_PAGES } from './checkpoints'

/** A drizzle database over one SQLite connection (a tenant's or the control database). */
export type Db = BunSQLiteDatabase & { $client: Database }

export interface SqliteOptions {
  synchronous: SqliteSynchronous
  busyTimeoutMs: number
  /**
   * Who checkpoints the WAL: SQLite in the committing request (`automatic`, the default), a
   * worker thread (`background`, tenant databases: checkpoints.ts), the same for the writes of
   * this process's HTTP workers too (`for-workers`, their primary), the primary (`primary`, an
   * HTTP worker), or Litestream, which must own checkpointing when it replicates (`external`, see
   * its tips).
   */
  walCheckpoint?: 'automatic' | 'background' | 'for-workers' | 'primary' | 'external'
}

/** What an open WAL keeps of its file when it starts over (see openSqlite). */
const KEPT_WAL_BYTES = 16 * 1024 * 1024

/** `create: false` opens an existing file only (SQLITE_CANTOPEN when there is none). */
export function openSqlite(path: string, options: SqliteOptions, { create = true } = {}): Database {
  const db = new Database(path, { create, readwrite: true, strict: true })
  // The WAL and shared-memory files outlive the connection, emptied: the pool closes and reopens
  // tenants all day, and making and removing them cost ~16% of a pool miss (bench/README.md).
  // While open, the WAL keeps its blocks (up to KEPT_WAL_BYTES) when it starts over: cut to zero
  // bytes, its next commits allocated them again and could wait on the filesystem's journal behind
  // a checkpoint's fsync, the longest write stalls of two HTTP workers (bench/README.md,
  // eighteenth pass). The last connection to close still empties it. Not under Litestream, which
  // owns the WAL: the cluster suite saw replicas that restored unsound (integrity_check) and
  // "cannot determine last wal position, clearing generation" only once WALs were emptied under it.
  if (options.walCheckpoint !== 'external') {
    db.fileControl(constants.SQLITE_FCNTL_PERSIST_WAL, 1)
    db.exec(`PRAGMA journal_size_limit = ${KEPT_WAL_BYTES}`)
  }
  // busy_timeout first: switching to WAL itself needs the lock another process may hold.
  db.exec(`PRAGMA busy_timeout = ${options.busyTimeoutMs}`)
  db.exec('PRAGMA journal_mode = WAL')
  // Bun's bundled SQLite defaults WAL databases to FULL; set it explicitly.
  db.exec(`PRAGMA synchronous = ${options.synchronous}`)
  db.exec('PRAGMA foreign_keys = ON')
  // A small page cache per connection (default ~2 MB): a tenant's working set is small, and a
  // thousand tenants' connections must fit a small machine.
  db.exec('PRAGMA cache_size = -512')
  if (options.walCheckpoint === 'external') db.exec('PRAGMA wal_autocheckpoint = 0')
  else if (options.walCheckpoint !== undefined && options.walCheckpoint !== 'automatic')
    db.exec(`PRAGMA wal_autocheckpoint = ${BACKSTOP_PAGES}`)
  return db
}
