// Watching a connection's auth version (the row the triggers of migrations 0020 and 0031 (tenant)
// and 0002 (control) bump): a write transaction that moved it raises the change signal after commit.
import type { Database } from 'bun:sqlite'
import { watchCommits } from '../tenancy/transaction'

export function watchAuthVersion(sqlite: Database, signal: () => void): void {
  // Compiled on the connection's first write, not at open: most connections the pool opens only read.
  const read = () =>
    sqlite.query<{ version: number }, []>('SELECT version FROM auth_version WHERE id = 1').get()?.version ?? 0
  watchCommits(sqlite, { read, changed: signal })
}
