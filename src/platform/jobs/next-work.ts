// What a job answers for a tenant it visits, or a write commits to: when that tenant next has work
// without a write of its own (the earliest scheduled delivery, snooze end, reminder...; null when
// only a write can bring work). The answers are kept in the control database (due-index.ts).
import { min, type SQL } from 'drizzle-orm'
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core'
import { zonedInstant } from '../foundation/dates'
import type { Queryable } from '../tenancy/transaction'

/** When a tenant next has work for a job without a write: epoch ms, or null (only a write). */
export type NextWork = number | null

/** The earliest of the times given, ignoring the nulls. */
export function earliestOf(...times: NextWork[]): NextWork {
  const known = times.filter((time): time is number => time !== null)
  return known.length === 0 ? null : Math.min(...known)
}

/** The least value of a text column among the rows `where` selects; null when none. */
function leastText(db: Queryable, table: SQLiteTable, column: SQLiteColumn, where: SQL | undefined) {
  const row = db
    .select({ least: min(column) })
    .from(table)
    .where(where)
    .get()
  return row?.least ? String(row.least) : null
}

/** The earliest instant (ISO text) in `column` among the rows `where` selects; null when none. */
export function earliestInstant(
  db: Queryable,
  table: SQLiteTable,
  column: SQLiteColumn,
  where: SQL | undefined,
): NextWork {
  const at = leastText(db, table, column, where)
  return at === null ? null : Date.parse(at)
}

/**
 * The earliest calendar date (YYYY-MM-DD) in `column` among the rows `where` selects, as the
 * instant that date begins in the tenant's time zone; null when none.
 */
export function earliestDateStart(
  db: Queryable,
  table: SQLiteTable,
  column: SQLiteColumn,
  where: SQL | undefined,
  timeZone: string,
): NextWork {
  const date = leastText(db, table, column, where)
  return date === null ? null : zonedInstant(date, '00:00', timeZone).getTime()
}
