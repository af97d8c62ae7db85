// Prepared drizzle statements, built once per database handle. Building a query with drizzle
// costs ten to thirty times what running it costs in SQLite, so the per-request lookups on the
// hot path (authentication, tenant and location resolution) reuse a prepared statement.
const statementsByHandle = new WeakMap<object, Map<string, unknown>>()

/**
 * The statement `build` makes for this handle, made on first use. Keys are per call site.
 * A drizzle database and its transactions share one session (one SQLite connection), so
 * statements are kept per session: a statement prepared outside a transaction serves inside one.
 */
export function preparedOn<T>(handle: object, key: string, build: () => T): T {
  const owner = (handle as { session?: object }).session ?? handle
  let statements = statementsByHandle.get(owner)
  if (!statements) {
    statements = new Map()
    statementsByHandle.set(owner, statements)
  }
  let statement = statements.get(key) as T | undefined
  if (statement === undefined) {
    statement = build()
    statements.set(key, statement)
  }
  return statement
}
