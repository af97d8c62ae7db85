// The row of a table by its `id`, and a new row of a table, each through one prepared statement
// per table and connection. Building a query with drizzle costs ten to thirty times what SQLite
// takes to answer it; the by-id read is the commonest query of the API, and the audit entry and
// outbox row are inserted by every write.
import { eq, getTableColumns, getTableName, sql } from 'drizzle-orm'
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

/**
 * Inserts one row with every column given (pass null, not undefined: the prepared statement names
 * every column, so schema defaults do not apply) except an autoincrement `seq`, and answers it as
 * stored.
 */
export function insertRow<T extends SQLiteTable>(
  tx: Queryable,
  table: T,
  values: Omit<T['$inferSelect'], 'seq'>,
): T['$inferSelect'] {
  return preparedOn(tx, `insert-row:${getTableName(table)}`, () => {
    const columns = Object.entries(getTableColumns(table))
      .filter(([, column]) => !(column as { autoIncrement?: boolean }).autoIncrement)
      .map(([key]) => [key, sql.placeholder(key)])
    return tx
      .insert(table)
      .values(Object.fromEntries(columns) as never)
      .returning()
      .prepare()
  }).get(values as Record<string, unknown>) as T['$inferSelect']
}
