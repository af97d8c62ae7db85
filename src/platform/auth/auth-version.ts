// Watching a connection's auth version (the row the triggers of migrations 0020 (tenant) and
// 0002 (control) bump): a write transaction that moved it raises the change signal after commit.
import type { Database } from 'bun:sqlite'
import { watchCommits } from '../tenancy/transaction'

export function watchAuthVersion(sqlite: Database, signal: () => void): void {
  const version = sqlite.query<{ version: number }, []>('SELECT version FROM auth_version WHERE id = 1')
  watchCommits(sqlite, { read: () => version.get()?.version ?? 0, changed: signal })
}
