// Streaming exports: a family answers its records a page at a time (keyset pages, each read on its
// own snapshot), and the stream asks for the next page only when the client has taken the last, so
// memory holds one page whatever the size. CSV through csv-stringify, or NDJSON.
import { heapSize } from 'bun:jsc'
import { stringify } from 'csv-stringify/sync'
import { and, asc, eq, gt, gte, lt, or, type SQL } from 'drizzle-orm'
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core'
import type { LocationScope } from '../auth/location-scope'
import type { Queryable } from '../tenancy/transaction'

export type ExportValue = string | number | boolean | null
export type ExportRow = Record<string, ExportValue>
export type ExportFormat = 'csv' | 'ndjson'

export interface ExportQuery {
  /** Records from this instant (inclusive) to `to` (exclusive), by the family's own time. */
  from?: string
  to?: string
  locations: LocationScope
  /** Where the previous page stopped (the page's `next`); null for the first page. */
  after: string | null
  limit: number
}

export interface ExportPage {
  rows: ExportRow[]
  /** The cursor of the next page; null after the last. */
  next: string | null
}

/** What a family exports: its columns, in order, and its pages. */
export interface ExportSource {
  columns: readonly string[]
  page(db: Queryable, query: ExportQuery): ExportPage
}

/** The cursor after a row of a page ordered by (time, id). */
const keysetCursor = (time: string, id: string): string => JSON.stringify([time, id])

/** The cursor after a page read in (time, id) order when it came full (`limit` rows), else null: the last page. */
export function nextCursor<Row extends { id: string }>(
  rows: readonly Row[],
  limit: number,
  timeOf: (row: Row) => string,
): string | null {
  const last = rows.at(-1)
  return rows.length === limit && last ? keysetCursor(timeOf(last), last.id) : null
}

/** The exported row of a stored one: these of its columns, as they are. */
const pickColumns =
  <Row extends Record<string, unknown>>(columns: readonly (keyof Row & string)[]) =>
  (row: Row): ExportRow =>
    Object.fromEntries(columns.map((column) => [column, row[column]])) as ExportRow

/** The rows after the cursor's, in (time, id) order; no condition for the first page. */
export function keysetAfter(time: SQLiteColumn, id: SQLiteColumn, after: string | null): SQL | undefined {
  if (after === null) return undefined
  const [at, key] = JSON.parse(after) as [string, string]
  return or(gt(time, at), and(eq(time, at), gt(id, key)))
}

/**
 * The rows of a page over records ordered by (time, id): in the query's span by `time`, kept by
 * `within` (the caller's locations), after the cursor.
 */
export const pageCondition = (
  query: ExportQuery,
  time: SQLiteColumn,
  id: SQLiteColumn,
  within?: SQL,
): SQL | undefined =>
  and(
    query.from === undefined ? undefined : gte(time, query.from),
    query.to === undefined ? undefined : lt(time, query.to),
    within,
    keysetAfter(time, id, query.after),
  )

/**
 * The export of one table's rows as they are: `columns` of each, in (`time`, id) order, within
 * the query's span and what `within` keeps of the caller's locations.
 */
export function tableExport<T extends SQLiteTable & { id: SQLiteColumn }>(
  table: T,
  time: keyof T['$inferSelect'] & keyof T & string,
  columns: readonly (keyof T['$inferSelect'] & string)[],
  within: (locations: LocationScope) => SQL | undefined,
): ExportSource {
  type Row = T['$inferSelect'] & { id: string }
  const timeColumn = table[time] as SQLiteColumn
  return {
    columns,
    page(db, query) {
      const rows = db
        .select()
        .from(table as SQLiteTable)
        .where(pageCondition(query, timeColumn, table.id, within(query.locations)))
        .orderBy(asc(timeColumn), asc(table.id))
        .limit(query.limit)
        .all() as Row[]
      return {
        rows: rows.map(pickColumns<Row>(columns)),
        next: nextCursor(rows, query.limit, (row) => row[time] as string),
      }
    },
  }
}

/** Rows per page: a page is read at once, between two sends to the client. */
export const EXPORT_PAGE_ROWS = 500

/**
 * How far the heap may grow while an export runs before a page first collects it; the first page
 * collects too, so the export starts from a heap without the garbage of earlier work. Each page's
 * rows and text die at once, but the runtime lets a heap of this size grow by about its own size
 * before collecting: an export of 100,000 orders took the process up 58–92 MB (bench/README.md,
 * issue 40). A full collection costs some tens of ms, once per this much garbage.
 */
const EXPORT_HEAP_GROWTH_BYTES = 16 * 1024 * 1024

/**
 * A spreadsheet runs a cell that starts with = + - @ (or a tab or carriage return) as a formula:
 * such text gets a leading apostrophe (OWASP's CSV injection advice). Numbers stay numbers.
 */
const defused = (value: ExportValue): ExportValue =>
  typeof value === 'string' && /^[=+\-@\t\r]/.test(value) ? `'${value}` : value

function encode(
  rows: ExportRow[],
  columns: readonly string[],
  format: ExportFormat,
  header: boolean,
): string {
  if (format === 'ndjson') return rows.map((row) => `${JSON.stringify(row)}\n`).join('')
  const records = rows.map((row) => columns.map((column) => defused(row[column] ?? null)))
  return stringify(header ? [columns as string[], ...records] : records, {
    cast: { boolean: (value) => (value ? 'true' : 'false') },
  })
}

/**
 * The export as a byte stream: `read` answers a page (the family's, on a connection held for the
 * stream); `done` runs once when the stream ends or the client goes away.
 */
export function exportStream(
  source: ExportSource,
  format: ExportFormat,
  read: (after: string | null) => ExportPage,
  done: () => void,
): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder()
  let after: string | null = null
  let first = true
  let heapFloor = Number.NEGATIVE_INFINITY // the first page collects
  let finished = false
  const finish = () => {
    if (finished) return
    finished = true
    done()
  }
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        try {
          if (heapSize() - heapFloor > EXPORT_HEAP_GROWTH_BYTES) {
            Bun.gc(true)
            heapFloor = heapSize()
          }
          const page = read(after)
          const text = encode(page.rows, source.columns, format, first)
          first = false
          if (text) controller.enqueue(bytes.encode(text))
          after = page.next
          if (page.next === null) {
            controller.close()
            finish()
          }
        } catch (error) {
          finish()
          controller.error(error)
        }
      },
      cancel: finish,
    },
    { highWaterMark: 1 },
  )
}
