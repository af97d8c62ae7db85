// A connection's busy_timeout, set aside for work that must not wait for another process's lock.
import type { Database } from 'bun:sqlite'

/**
 * Runs `work` with the connection's busy_timeout at 0, so that nothing in it waits on the event
 * loop for a lock another process holds, then sets it back to `busyTimeoutMs`. Executed, not
 * prepared once: SQLite applies busy_timeout when it compiles the pragma.
 */
export function withoutWaiting<T>(sqlite: Database, busyTimeoutMs: number, work: () => T): T {
  sqlite.exec('PRAGMA busy_timeout = 0')
  try {
    return work()
  } finally {
    sqlite.exec(`PRAGMA busy_timeout = ${busyTimeoutMs}`)
  }
}
