// The row of a table by its `id`, and a new row of a table, each through one prepared statement
// per table and connection. Building a query with drizzle costs ten to thirty times what SQLite
// takes to answer it; the by-id read is the commonest query of the API, and the audit entry and
// outbox row are inserted by every write.
import type { Changes } from 'bun:sqlite'
import { Column, eq, getTableColumns, getTableName, sql } from 'drizzle-orm'
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core'
import { preparedOn } from './prepared'
import type { Queryable } from './transaction'

type TableWithId = SQLiteTable & { id: SQLiteColumn }

export function rowById<T extends TableWithId>(
  db: Queryable,
  table: T,
  id: string,
): T['$inferSelect'] | undefined {
  return preparedOn(db, `row-by-id:${getTableName(table)}`, () =>
    db
      .select()
      .from(table as SQLiteTable)
      .where(eq(table.id, sql.placeholder('id')))
      .prepare(),
  ).get({ id }) as T['$inferSelect'] | undefined
}

/** What `insertRow` needs of a table, worked out once. */
interface InsertShape {
  /** The columns named by the INSERT (all but an autoincrement key), by property name. */
  columns: [string, Column][]
  /** The autoincrement key's property, answered from the rowid. */
  rowidKey: string | undefined
}

const insertShapes = new WeakMap<SQLiteTable, InsertShape>()

function insertShapeOf(table: SQLiteTable): InsertShape {
  let shape = insertShapes.get(table)
  if (!shape) {
    const entries = Object.entries(getTableColumns(table)) as [string, Column][]
    const isRowid = (column: Column) => (column as { autoIncrement?: boolean }).autoIncrement === true
    shape = {
      columns: entries.filter(([, column]) => !isRowid(column)),
      rowidKey: entries.find(([, column]) => isRowid(column))?.[0],
    }
    insertShapes.set(table, shape)
  }
  return shape
}

/** A value as a read of its column answers it: a JSON column's a parsed copy, a boolean's a boolean. */
const asStored = (column: Column, value: unknown) =>
  value === null || column.mapFromDriverValue === Column.prototype.mapFromDriverValue
    ? value
    : column.mapFromDriverValue(column.mapToDriverValue(value))

/**
 * Inserts one row with every column given (pass null, not undefined: the prepared statement names
 * every column, so schema defaults do not apply) except an autoincrement `seq`, and answers it as
 * stored. Without RETURNING: SQLite runs a RETURNING clause as a trigger, and a statement with a
 * trigger journals every page it touches for its own rollback, in a group of writes each time
 * (platform/tenancy/transaction.ts). That journal spilled to a temporary file in every group: the
 * audit entry and outbox row of every write cost a fifth of a write's time (bench/README.md).
 */
export function insertRow<T extends SQLiteTable>(
  tx: Queryable,
  table: T,
  values: Omit<T['$inferSelect'], 'seq'>,
): T['$inferSelect'] {
  const shape = insertShapeOf(table)
  const given = values as Record<string, unknown>
  const { lastInsertRowid } = preparedOn(tx, `insert-row:${getTableName(table)}`, () =>
    tx
      .insert(table)
      .values(Object.fromEntries(shape.columns.map(([key]) => [key, sql.placeholder(key)])) as never)
      .prepare(),
  ).run(given) as unknown as Changes
  const row: Record<string, unknown> = {}
  if (shape.rowidKey) row[shape.rowidKey] = Number(lastInsertRowid)
  for (const [key, column] of shape.columns) row[key] = asStored(column, given[key])
  return row as T['$inferSelect']
}
