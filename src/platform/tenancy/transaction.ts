import type { BaseSQLiteDatabase } from 'drizzle-orm/sqlite-core'
import type { Db } from './databases'

/** A tenant database or a transaction on it: what services query through. */
export type Queryable = BaseSQLiteDatabase<'sync', void>

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
  return db.transaction((tx) => work(tx), { behavior: 'immediate' }) as T
}
