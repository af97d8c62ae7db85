// Prepared drizzle statements, built once per database handle. Building a query with drizzle
// costs ten to thirty times what running it costs in SQLite, so the per-request lookups on the
// hot path (authentication, tenant and location resolution) reuse a prepared statement.
//
// The SQL of a key is the same on every connection (all tenant files share one schema), so
// drizzle builds it once per process: a connection opened later (a tenant reopened after the
// pool evicted it) gets a copy of the first prepared query with its own compiled statement.
// Building the customer view with drizzle took ~0.3 ms, an eighth of what a pool miss cost.
//
// drizzle's prepared query also checks the class of each parameter and each selected field on every
// call (`fillPlaceholders`, `mapResultRow`): ~10 µs a query, three times what SQLite took to find
// the audit chain's last hash, and a write runs eight such queries (bench/README.md). So each query
// kept here runs on its compiled statement with the binding and the row mapping worked out once
// (`runDirectly`), for the shapes that covers; others keep drizzle's methods.
import type { Database, Statement } from 'bun:sqlite'
import { Column, is, Param, Placeholder, SQL, Subquery } from 'drizzle-orm'

const statementsByHandle = new WeakMap<object, Map<string, unknown>>()
const firstBuiltByKey = new Map<string, PreparedQueryShape>()

/** What this module relies on of drizzle's bun-sqlite prepared query (drizzle-orm 0.45). */
interface PreparedQueryShape {
  stmt: Statement
  query: { sql: string; params: unknown[] }
  /** The selected fields in column order; absent for a query without (a raw `sql` query, an insert). */
  fields?: { path: string[]; field: unknown }[]
  /** Set for relational queries, which map their rows themselves. */
  customResultMapper?: unknown
}

const isPreparedQuery = (value: unknown): value is PreparedQueryShape =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as Partial<PreparedQueryShape>).query?.sql === 'string' &&
  typeof (value as { stmt?: { run?: unknown } }).stmt?.run === 'function'

/** The first prepared query of the key, with its statement compiled on `client` instead. */
function copyFor(first: PreparedQueryShape, client: Database): PreparedQueryShape {
  const copy = Object.create(Object.getPrototypeOf(first)) as PreparedQueryShape
  return Object.assign(copy, first, { stmt: client.prepare(first.query.sql) })
}

/**
 * The statement `build` makes for this handle, made on first use. Keys are per call site, and a
 * key names one SQL text. A drizzle database and its transactions share one session (one SQLite
 * connection), so statements are kept per session: one prepared outside a transaction serves
 * inside one.
 */
export function preparedOn<T>(handle: object, key: string, build: () => T): T {
  const session = (handle as { session?: { client?: Database } }).session
  const owner = session ?? handle
  let statements = statementsByHandle.get(owner)
  if (!statements) {
    statements = new Map()
    statementsByHandle.set(owner, statements)
  }
  let statement = statements.get(key) as T | undefined
  if (statement === undefined) {
    const first = firstBuiltByKey.get(key)
    if (first && session?.client) {
      statement = copyFor(first, session.client) as T
    } else {
      statement = build()
      if (isPreparedQuery(statement)) {
        runDirectly(statement)
        firstBuiltByKey.set(key, statement)
      }
    }
    statements.set(key, statement)
  }
  return statement
}

type Values = Record<string, unknown>
type Encoder = { mapToDriverValue(value: unknown): unknown }
type Decoder = { mapFromDriverValue(value: unknown): unknown }

/**
 * The statement's parameters from a query's placeholder values, as drizzle's `fillPlaceholders`
 * makes them: a placeholder's value (encoded by its column in an insert or update), else the
 * value built into the query.
 */
function binderOf(params: unknown[]): (values: Values) => unknown[] {
  const parts = params.map((param) => {
    if (is(param, Placeholder)) return { name: param.name, encoder: undefined, value: undefined }
    if (is(param, Param) && is(param.value, Placeholder))
      return { name: param.value.name, encoder: param.encoder as Encoder, value: undefined }
    return { name: undefined, encoder: undefined, value: param }
  })
  return (values) =>
    parts.map(({ name, encoder, value }) => {
      if (name === undefined) return value
      if (!(name in values)) throw new Error(`No value for placeholder "${name}" was provided`)
      return encoder ? encoder.mapToDriverValue(values[name]) : values[name]
    })
}

/** A selected field's decoder, as drizzle's `mapResultRow` picks it. */
function decoderOf(field: unknown): Decoder {
  // `decoder` is internal to drizzle's SQL: not in its types.
  type Decoded = { decoder: Decoder }
  if (is(field, Column)) return field
  if (is(field, SQL)) return (field as unknown as Decoded).decoder
  if (is(field, Subquery)) return (field as unknown as { _: { sql: Decoded } })._.sql.decoder
  return (field as { sql: Decoded }).sql.decoder
}

/**
 * Gives a prepared query `run`, `get` and `all` that bind and map with what was worked out here
 * once. Rows are mapped directly only when every field is a top-level key (no joined tables
 * nested under their names): the shape of the queries kept here. Installed on the query object,
 * so a copy for another connection (`copyFor`) has them, over its own `stmt`.
 */
function runDirectly(prepared: PreparedQueryShape): void {
  const bind = binderOf(prepared.query.params)
  const direct = prepared as unknown as {
    run(values?: Values): unknown
    get(values?: Values): unknown
    all(values?: Values): unknown[]
  }
  direct.run = function (this: PreparedQueryShape, values = {}) {
    return this.stmt.run(...(bind(values) as never[]))
  }
  const { fields } = prepared
  if (!fields || prepared.customResultMapper || fields.some(({ path }) => path.length !== 1)) return
  const keys = fields.map(({ path }) => path[0]!)
  const decoders = fields.map(({ field }) => decoderOf(field))
  const mapRow = (row: unknown[]) => {
    const mapped: Values = {}
    for (let i = 0; i < keys.length; i++) {
      const raw = row[i]
      mapped[keys[i]!] = raw === null ? null : decoders[i]!.mapFromDriverValue(raw)
    }
    return mapped
  }
  direct.get = function (this: PreparedQueryShape, values = {}) {
    const row = this.stmt.values(...(bind(values) as never[]))[0]
    return row === undefined ? undefined : mapRow(row as unknown[])
  }
  direct.all = function (this: PreparedQueryShape, values = {}) {
    return this.stmt.values(...(bind(values) as never[])).map((row) => mapRow(row as unknown[]))
  }
}
