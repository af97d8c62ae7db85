// The row of a table by its `id`, through one prepared statement per table and connection.
// Building a query with drizzle costs ten to thirty times what SQLite takes to answer it, and the
// by-id read is the commonest query of the API, so every family reads its records through this.
import { eq, getTableName, sql } from 'drizzle-orm'
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
