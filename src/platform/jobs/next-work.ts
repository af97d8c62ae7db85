// What a job answers for a tenant it visits, or a write commits to: when that tenant next has work
// without a write of its own (the earliest scheduled delivery, snooze end, reminder...; null when
// only a write can bring work). The answers are kept in the control database (due-index.ts).
import { min, type SQL } from 'drizzle-orm'
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core'
import { zonedInstant } from '../foundation/dates'
import { preparedOn } from '../tenancy/prepared'
import type { Queryable } from '../tenancy/transaction'

/** When a tenant next has work for a job without a write: epoch ms, or null (only a write). */
export type NextWork = number | null

/** The earliest of the times given, ignoring the nulls. */
export function earliestOf(...times: NextWork[]): NextWork {
  const known = times.filter((time): time is number => time !== null)
  return known.length === 0 ? null : Math.min(...known)
}

/**
 * The least value of a text column among the rows `where` selects. The due index asks a dozen of
 * these of every tenant written (due-index.ts): built by drizzle at each call, they were most of its
 * 2.4 ms a tenant, so each is prepared once per connection under its `key`. Values that change
 * between calls are placeholders in `where`, given in `values`.
 */
export interface LeastValue {
  key: string
  table: SQLiteTable
  column: SQLiteColumn
  where?: () => SQL | undefined
}

export function leastText(
  db: Queryable,
  least: LeastValue,
  values: Record<string, unknown> = {},
): string | null {
  const row = preparedOn(db, `least-value:${least.key}`, () =>
    db
      .select({ least: min(least.column) })
      .from(least.table)
      .where(least.where?.())
      .prepare(),
  ).get(values)
  return row?.least ? String(row.least) : null
}

/** The earliest instant (ISO text) of `least`; null when no row has one. */
export function earliestInstant(
  db: Queryable,
  least: LeastValue,
  values: Record<string, unknown> = {},
): NextWork {
  const at = leastText(db, least, values)
  return at === null ? null : Date.parse(at)
}

/**
 * The earliest calendar date (YYYY-MM-DD) of `least`, as the instant that date begins in the
 * tenant's time zone; null when no row has one.
 */
export function earliestDateStart(
  db: Queryable,
  least: LeastValue,
  timeZone: string,
  values: Record<string, unknown> = {},
): NextWork {
  const date = leastText(db, least, values)
  return date === null ? null : zonedInstant(date, '00:00', timeZone).getTime()
}
