// The row of a table by its `id`, and a new row of a table, each through one prepared statement
// per table and connection. Building a query with drizzle costs ten to thirty times what SQLite
// takes to answer it; the by-id read is the commonest query of the API, and the audit entry and
// outbox row are inserted by every write.
import { Column, eq, getTableColumns, getTableName, sql } from 'drizzle-orm'
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core'
import { preparedOn } from './prepared'
import { type Queryable, sqliteOf } from './transaction'

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
  /** The columns named by the INSERT (all but an autoincrement key), by property name, in its order. */
  columns: [string, Column][]
  /** The autoincrement key's property, answered from the rowid. */
  rowidKey: string | undefined
  /** The INSERT, one positional parameter per column of `columns`. */
  sql: string
}

const insertShapes = new WeakMap<SQLiteTable, InsertShape>()

function insertShapeOf(table: SQLiteTable): InsertShape {
  let shape = insertShapes.get(table)
  if (!shape) {
    const entries = Object.entries(getTableColumns(table)) as [string, Column][]
    const isRowid = (column: Column) => (column as { autoIncrement?: boolean }).autoIncrement === true
    const columns = entries.filter(([, column]) => !isRowid(column))
    const names = columns.map(([, column]) => `"${column.name}"`).join(', ')
    shape = {
      columns,
      rowidKey: entries.find(([, column]) => isRowid(column))?.[0],
      sql: `INSERT INTO "${getTableName(table)}" (${names}) VALUES (${columns.map(() => '?').join(', ')})`,
    }
    insertShapes.set(table, shape)
  }
  return shape
}

const decodes = (column: Column) => column.mapFromDriverValue !== Column.prototype.mapFromDriverValue

/**
 * Inserts one row with every column given (pass null, not undefined: the statement names every
 * column, so schema defaults do not apply) except an autoincrement `seq`, and answers it as stored:
 * each value as a read of its column answers it (a JSON column's a copy parsed from the text bound,
 * a boolean's a boolean), encoded once for both. Without RETURNING: SQLite runs a RETURNING clause
 * as a trigger, and a statement with a trigger journals every page it touches for its own
 * rollback, in a group of writes each time (platform/tenancy/transaction.ts). That journal spilled
 * to a temporary file in every group: the audit entry and outbox row of every write cost a fifth of
 * a write's time (bench/README.md). From the connection's statement cache (`query`), which SQLite
 * finalizes when the connection closes.
 */
export function insertRow<T extends SQLiteTable>(
  tx: Queryable,
  table: T,
  values: Omit<T['$inferSelect'], 'seq'>,
): T['$inferSelect'] {
  const shape = insertShapeOf(table)
  const given = values as Record<string, unknown>
  // As drizzle binds them: every value through its column's encoder, null included.
  const bound = shape.columns.map(([key, column]) => column.mapToDriverValue(given[key]))
  const { lastInsertRowid } = sqliteOf(tx)
    .query(shape.sql)
    .run(...(bound as never[]))
  const row: Record<string, unknown> = {}
  if (shape.rowidKey) row[shape.rowidKey] = Number(lastInsertRowid)
  shape.columns.forEach(([key, column], i) => {
    const value = given[key]
    row[key] = value === null || !decodes(column) ? value : column.mapFromDriverValue(bound[i])
  })
  return row as T['$inferSelect']
}
