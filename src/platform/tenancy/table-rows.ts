// Rows of a drizzle table read with raw bun:sqlite statements and decoded column by column, for
// hot reads of many wide rows (an order page: fifty orders of fifty columns, their lines of
// forty-four). Measured on such a page: drizzle's mapping of the fifty orders took ~250 µs, about
// twice the 134 µs SQLite took to read them (bench/README.md, seventh pass, has the whole page).
// Rows come out as drizzle's select of the table gives them: camelCase keys, each value through
// its column's own decoder (JSON parsed, booleans as booleans), nulls as null.
import type { Database } from 'bun:sqlite'
import { Column, getTableColumns, getTableName } from 'drizzle-orm'
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core'
import { preparedOn } from './prepared'
import { type Queryable, sqliteOf } from './transaction'

interface TableReader {
  /** The select list, `"a", "b", ...`, in the order `decode` expects. */
  columns: string
  decode(values: unknown[]): Record<string, unknown>
}

const readers = new WeakMap<SQLiteTable, TableReader>()
const identity = Column.prototype.mapFromDriverValue

function readerOf(table: SQLiteTable): TableReader {
  const known = readers.get(table)
  if (known) return known
  const columns = Object.entries(getTableColumns(table)) as [string, SQLiteColumn][]
  const keys = columns.map(([key]) => key)
  // Only the columns whose driver value is not already what drizzle presents get a decoder.
  const decoders = columns.map(([, column]) =>
    column.mapFromDriverValue === identity ? null : (value: unknown) => column.mapFromDriverValue(value),
  )
  const reader: TableReader = {
    columns: columns.map(([, column]) => `"${column.name}"`).join(', '),
    decode(values) {
      const row: Record<string, unknown> = {}
      for (let i = 0; i < keys.length; i++) {
        const value = values[i]
        const decode = decoders[i]
        row[keys[i]!] = value === null || !decode ? value : decode(value)
      }
      return row
    },
  }
  readers.set(table, reader)
  return reader
}

/**
 * The rows of `table` whose `column` is one of `values`, ordered by `orderBy` (ascending), with
 * one statement per connection whatever the number of values (they travel as one JSON array).
 */
export function rowsWhereIn<Row>(
  db: Queryable,
  table: SQLiteTable,
  column: SQLiteColumn,
  values: readonly string[],
  orderBy: readonly SQLiteColumn[] = [],
): Row[] {
  if (values.length === 0) return []
  const reader = readerOf(table)
  const order = orderBy.map((c) => `"${c.name}"`).join(', ')
  const statement = preparedOn(db, `rows-where-in:${getTableName(table)}:${column.name}:${order}`, () =>
    (sqliteOf(db) as Database).query(
      `SELECT ${reader.columns} FROM "${getTableName(table)}" WHERE "${column.name}" IN (SELECT value FROM json_each(?1))${order ? ` ORDER BY ${order}` : ''}`,
    ),
  )
  return statement.values(JSON.stringify(values)).map((values) => reader.decode(values) as Row)
}

/** `rows` grouped by `key`, each group in the order of `rows`. */
export function groupBy<Row, K>(rows: readonly Row[], key: (row: Row) => K): Map<K, Row[]> {
  const groups = new Map<K, Row[]>()
  for (const row of rows) {
    const k = key(row)
    const group = groups.get(k)
    if (group) group.push(row)
    else groups.set(k, [row])
  }
  return groups
}
