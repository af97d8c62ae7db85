// The last step of a WAL checkpoint (checkpoints.ts): RESTART takes the file's write lock, copies
// the frames not yet in the file and syncs it, so that the next write starts the WAL over. Shared
// by the request thread, the primary of HTTP workers and the checkpoint worker thread.
import type { Database } from 'bun:sqlite'

/**
 * The last step on `sqlite`, whose busy_timeout must be 0 (`withoutWaiting`): false when another
 * connection holds the lock or still reads old frames. The lock is looked at first (BEGIN
 * IMMEDIATE, let go at once): a RESTART refused the lock still copies what it can and syncs the
 * file, 4 ms a try at 1,500 writes a second, where a look takes 0.08 ms (bench/README.md,
 * twentieth pass).
 */
export function restartWalIfFree(sqlite: Database): boolean {
  try {
    if (!writeLockFreeNow(sqlite)) return false
    return sqlite.query<{ busy: number }, []>('PRAGMA wal_checkpoint(RESTART)').get()!.busy === 0
  } catch {
    return false
  }
}

function writeLockFreeNow(sqlite: Database): boolean {
  try {
    sqlite.exec('BEGIN IMMEDIATE')
  } catch {
    return false
  }
  sqlite.exec('ROLLBACK')
  return true
}
