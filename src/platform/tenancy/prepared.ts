// Prepared drizzle statements, built once per database handle. Building a query with drizzle
// costs ten to thirty times what running it costs in SQLite, so the per-request lookups on the
// hot path (authentication, tenant and location resolution) reuse a prepared statement.
const statementsByHandle = new WeakMap<object, Map<string, unknown>>()

/** The statement `build` makes for this handle, made on first use. Keys are per call site. */
export function preparedOn<T>(handle: object, key: string, build: () => T): T {
  let statements = statementsByHandle.get(handle)
  if (!statements) {
    statements = new Map()
    statementsByHandle.set(handle, statements)
  }
  let statement = statements.get(key) as T | undefined
  if (statement === undefined) {
    statement = build()
    statements.set(key, statement)
  }
  return statement
}
