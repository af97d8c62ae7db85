// Child rows as one JSON value inside the parent's own statement, so a view with children (a
// customer with addresses, an order with lines) is read with one statement instead of one per
// child table. The objects are keyed and typed as drizzle's select of the table would be:
// camelCase keys, JSON columns as JSON, booleans as booleans.
//
// Columns are written out qualified by their table here: inside a select's fields drizzle
// renders a column bare, which in a correlated subquery would bind to the inner table.
import { getTableColumns, getTableName, type SQL, sql } from 'drizzle-orm'
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core'

/** `"table"."column"`, whatever context the fragment ends up in. */
export const qualified = (column: SQLiteColumn): SQL =>
  sql`${sql.identifier(getTableName(column.table))}.${sql.identifier(column.name)}`

function jsonValue(column: SQLiteColumn): SQL {
  const name = qualified(column)
  if (column.columnType === 'SQLiteTextJson' || column.columnType === 'SQLiteBlobJson')
    return sql`json(${name})`
  if (column.columnType === 'SQLiteBoolean')
    return sql`CASE WHEN ${name} IS NULL THEN NULL WHEN ${name} THEN json('true') ELSE json('false') END`
  return name
}

/** A key of the schema's own (never input) as an SQL string literal. */
const literal = (key: string) => sql.raw(`'${key.replaceAll("'", "''")}'`)

/**
 * `json_object(...)` of a row of `table`, as drizzle would present it. Its keys are literals, not
 * bound parameters: SQLite builds an object five times slower when its keys are parameters.
 */
export function jsonObjectOf(table: SQLiteTable): SQL {
  const pairs = Object.entries(getTableColumns(table)).map(
    ([key, column]) => sql`${literal(key)}, ${jsonValue(column as SQLiteColumn)}`,
  )
  return sql`json_object(${sql.join(pairs, sql`, `)})`
}

/**
 * A scalar subquery answering, as JSON array text ('[]' when none), the rows of `table` whose
 * `foreignKey` equals the outer query's `parentKey`, ordered by `orderBy`. Parse it with
 * `parseJsonRows`.
 */
export function jsonRows(
  table: SQLiteTable,
  foreignKey: SQLiteColumn,
  parentKey: SQLiteColumn,
  orderBy: SQLiteColumn[],
): SQL<string> {
  const order = sql.join(orderBy.map(qualified), sql`, `)
  return sql<string>`(SELECT coalesce(json_group_array(${jsonObjectOf(table)} ORDER BY ${order}), '[]') FROM ${sql.identifier(getTableName(table))} WHERE ${qualified(foreignKey)} = ${qualified(parentKey)})`
}

export const parseJsonRows = <T>(text: string): T[] => JSON.parse(text) as T[]
