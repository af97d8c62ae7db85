import type { Database } from 'bun:sqlite'
import type { BaseSQLiteDatabase } from 'drizzle-orm/sqlite-core'
import type { Db } from './databases'

/** A tenant database or a transaction on it: what services query through. */
export type Queryable = BaseSQLiteDatabase<'sync', void>

/**
 * Something a connection's write transactions are watched for: `read` is called at the start and
 * at the end of each transaction (inside it), and `changed` after a commit that moved the value.
 * The auth version uses it to tell other requests and processes that cached principals are stale.
 */
export interface CommitWatch {
  read(): number
  changed(): void
}

const watches = new WeakMap<Database, CommitWatch>()
const gates = new WeakMap<Database, () => void>()
const commitListeners = new WeakMap<Database, () => void>()

/** The SQLite connection under a database or transaction handle. */
export const sqliteOf = (handle: Queryable): Database =>
  (handle as unknown as { session: { client: Database } }).session.client

export function watchCommits(sqlite: Database, watch: CommitWatch): void {
  watches.set(sqlite, watch)
}

/** `listener` runs after each write transaction of the connection commits (checkpoints.ts). */
export function afterEachCommit(sqlite: Database, listener: () => void): void {
  commitListeners.set(sqlite, listener)
}

/**
 * `gate` runs before each write transaction on the connection and throws to refuse it: a cluster
 * node refuses writes to a tenant it cannot prove it owns (platform/cluster/node.ts).
 */
export function gateWrites(sqlite: Database, gate: () => void): void {
  gates.set(sqlite, gate)
}

/**
 * Runs `work` in one BEGIN IMMEDIATE transaction. drizzle's bun-sqlite transactions are
 * synchronous: an async callback would commit at its first await, so the type refuses one.
 * Called while the connection is already in a transaction, `work` joins that transaction, so
 * an outer unit of work (an idempotent request, a merge) can compose services that each write.
 */
export function inWriteTransaction<T>(
  db: Db,
  work: (tx: Queryable) => T extends Promise<unknown> ? never : T,
): T {
  if (db.$client.inTransaction) return work(db) as T
  gates.get(db.$client)?.()
  const watch = watches.get(db.$client)
  let moved = false
  const result = db.transaction(
    (tx) => {
      const before = watch?.read()
      const value = work(tx)
      moved = watch !== undefined && watch.read() !== before
      return value
    },
    { behavior: 'immediate' },
  ) as T
  commitListeners.get(db.$client)?.()
  if (moved) watch?.changed()
  return result
}
