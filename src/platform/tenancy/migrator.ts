// Applies the SQL migrations drizzle-kit generated (embedded in migrations/embedded.ts, so the
// compiled binary needs no files beside it). Safe against two processes migrating one file:
// the applied list is re-read inside BEGIN IMMEDIATE, which only one connection can hold.
import type { Database } from 'bun:sqlite'

export interface Migration {
  tag: string
  sql: string
}

const BREAKPOINT = '--> statement-breakpoint'

export function migrate(db: Database, migrations: readonly Migration[]): string[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    tag TEXT PRIMARY KEY NOT NULL,
    applied_at TEXT NOT NULL
  )`)
  // Read once: a server opens every tenant it serves through here (and each first open in a
  // process checks), so this is part of what a pool miss costs.
  const applied = new Set(appliedMigrations(db))
  if (migrations.every((m) => applied.has(m.tag))) return []

  const run = db.transaction(() => {
    const done = new Set(appliedMigrations(db))
    const ran: string[] = []
    for (const migration of migrations) {
      if (done.has(migration.tag)) continue
      for (const statement of migration.sql.split(BREAKPOINT)) {
        if (statement.trim()) db.exec(statement)
      }
      db.query('INSERT INTO schema_migrations (tag, applied_at) VALUES (?, ?)').run(
        migration.tag,
        new Date().toISOString(),
      )
      ran.push(migration.tag)
    }
    return ran
  })
  return run.immediate()
}

/** The tags of the migrations applied to a database, in order (none: not one of ours yet). */
export function appliedMigrations(db: Database): string[] {
  const table = db
    .query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'")
    .get()
  if (!table) return []
  return db
    .query<{ tag: string }, []>('SELECT tag FROM schema_migrations ORDER BY tag')
    .all()
    .map((r) => r.tag)
}
