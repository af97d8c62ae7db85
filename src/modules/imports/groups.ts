// The records of a batch of rows: one per row, or, for a kind whose record spans rows (Grouping:
// an order and its lines), one per run of rows naming the same record. A record that cannot be
// made fails on every line it spans, so none of it is ever applied: a row that cannot be read (or
// names no record) fails the records either side of it too, since it may have been one of theirs.
import { checkedRecord, fieldAt, type RowFailure, recordOf, rowValues } from './fields'
import type { Grouping, KindSpec } from './kind-spec'
import type { SourceRow, SourceValues } from './read'
import type { ImportFormat } from './schema'

export interface LineFailure {
  line: number
  failure: RowFailure
}

/** A failure naming a field, and for a record of several rows the row (its place) it lies in. */
export type RecordFailure = RowFailure & { item?: number }

export interface RecordToApply {
  record: never
  /** The lines of the file the record spans, first first. */
  lines: number[]
  /** The failures to list when applying it failed: its rows each, the one at fault named. */
  failed(failure: RecordFailure): LineFailure[]
}

export type Worked = RecordToApply | { failures: LineFailure[] }

/** Records remembered for the same-record check: beyond, a file's later records go unchecked. */
const MAX_SEEN = 1_000_000

export interface GroupedWork {
  spec: KindSpec<never>
  format: ImportFormat
  columnsOf(keys: string[]): Map<string, string>
  /** The records named so far in this run, by key, with the line naming each first. */
  seen: Map<string, number>
}

/** The value of the first of the grouping's key fields a row gives, or null. */
function keyOf(grouping: Grouping, columns: Map<string, string>, values: SourceValues): string | null {
  for (const field of grouping.key)
    for (const [column, mapped] of columns) {
      if (mapped !== field) continue
      const value = values[column]
      if (value !== null && value !== undefined && String(value).trim() !== '') return String(value).trim()
    }
  return null
}

/**
 * Which record a row belongs to, or null for a row that names none: batches are cut only between
 * two rows of different records. An NDJSON record is its line; a CSV row's record is its key.
 */
export function recordIdentity(work: GroupedWork, source: SourceRow): string | null {
  const grouping = work.spec.grouping
  if (!grouping) return String(source.line)
  if (!('values' in source)) return null
  if (work.format === 'ndjson') return `line:${source.line}`
  const key = keyOf(grouping, work.columnsOf(Object.keys(source.values)), source.values)
  return key === null ? null : `key:${key}`
}

/**
 * A row of an earlier run of the import (before a stop), passed over on resuming: the record it
 * names counts as named at its line, so a record named again after the stop is still "the same
 * record" (the check spans the file, not the run).
 */
export function rememberRecord(work: GroupedWork, source: SourceRow): void {
  const grouping = work.spec.grouping
  if (!grouping || !('values' in source)) return
  const key = keyOf(grouping, work.columnsOf(Object.keys(source.values)), source.values)
  if (key !== null && !work.seen.has(key) && work.seen.size < MAX_SEEN) work.seen.set(key, source.line)
}

/** Merges `from` into `into`; answers the path of the first value they disagree on, if any. */
function mergeInto(into: Record<string, unknown>, from: Record<string, unknown>, path = ''): string | null {
  for (const [key, value] of Object.entries(from)) {
    const at = path ? `${path}.${key}` : key
    const held = into[key]
    if (held === undefined) into[key] = value
    else if (typeof held === 'object' && held !== null && typeof value === 'object' && value !== null) {
      const differs = mergeInto(held as Record<string, unknown>, value as Record<string, unknown>, at)
      if (differs) return differs
    } else if (held !== value) return at
  }
  return null
}

/** Every line of a record failing: the one at fault with its reason, the others for its sake. */
function spread(lines: number[], line: number, failure: RowFailure): LineFailure[] {
  return lines.map((other) =>
    other === line
      ? { line, failure }
      : { line: other, failure: { field: null, reason: `not applied: its record failed at line ${line}` } },
  )
}

interface Run {
  identity: string
  rows: { line: number; values: SourceValues }[]
  /** A line next to the run that could not be read, and may have been one of its rows. */
  unreadNextTo: number | null
}

function recordOfRun(work: GroupedWork, grouping: Grouping, run: Run): Worked {
  const { spec } = work
  const lines = [...new Set(run.rows.map((row) => row.line))]
  const first = lines[0]!
  const all = (failure: RowFailure) => ({ failures: lines.map((line) => ({ line, failure })) })
  if (run.unreadNextTo !== null)
    return all({
      field: null,
      reason: `not applied: line ${run.unreadNextTo} beside its rows could not be read and may have been one of them`,
    })
  const firstValues = run.rows[0]!.values
  const key = keyOf(grouping, work.columnsOf(Object.keys(firstValues)), firstValues)
  if (key !== null) {
    const named = work.seen.get(key)
    if (named !== undefined && named !== first)
      return all({
        field: grouping.key[0]!,
        reason: `line ${named} names the same record: a record's rows come together, once in the file`,
      })
    if (work.seen.size < MAX_SEEN) work.seen.set(key, first)
  }
  if (run.rows.length > grouping.maxRows)
    return all({ field: null, reason: `the record spans more than ${grouping.maxRows} rows` })

  const record: Record<string, unknown> = {}
  for (const [item, row] of run.rows.entries()) {
    const placed = rowValues(row.values, work.columnsOf(Object.keys(row.values)), spec.fields, item)
    if ('failure' in placed) return { failures: spread(lines, row.line, placed.failure) }
    const differs = mergeInto(record, placed.record)
    if (differs)
      return {
        failures: spread(lines, row.line, {
          field: fieldAt(spec.fields, differs).field,
          reason: 'differs from an earlier row of the same record',
        }),
      }
  }
  const lineOf = (failure: RecordFailure) => run.rows[failure.item ?? 0]?.line ?? first
  const checked = checkedRecord<never>(record, spec.fields, spec.schema, spec.complete)
  if ('failure' in checked) {
    const { item: _item, ...failure } = checked.failure
    return { failures: spread(lines, lineOf(checked.failure), failure) }
  }
  return {
    record: checked.record,
    lines,
    failed: (failure) => {
      const { item: _item, ...named } = failure
      return spread(lines, lineOf(failure), named)
    },
  }
}

/** The batch's records, in the file's order. */
export function recordsOf(work: GroupedWork, batch: SourceRow[]): Worked[] {
  const { spec } = work
  const grouping = spec.grouping
  if (!grouping)
    return batch.flatMap((source): Worked[] => {
      if ('error' in source) return [{ failures: [{ line: source.line, failure: source.error }] }]
      if (!('values' in source)) return []
      const parsed = recordOf<never>(
        source.values,
        work.columnsOf(Object.keys(source.values)),
        spec.fields,
        spec.schema,
        spec.complete,
      )
      if ('failure' in parsed) return [{ failures: [{ line: source.line, failure: parsed.failure }] }]
      return [
        {
          record: parsed.record,
          lines: [source.line],
          failed: (failure) => spread([source.line], source.line, failure),
        },
      ]
    })

  const worked: Worked[] = []
  let run: Run | null = null
  let unread: number | null = null
  const close = () => {
    if (run) worked.push(recordOfRun(work, grouping, run))
    run = null
  }
  for (const source of batch) {
    const identity = recordIdentity(work, source)
    if (identity === null || !('values' in source)) {
      const failure =
        'error' in source
          ? source.error
          : { field: grouping.key[0]!, reason: 'is required on every row: it ties a record’s rows together' }
      worked.push({ failures: [{ line: source.line, failure }] })
      // In a CSV the row may have been one of the records either side of it (an NDJSON record is one line).
      if (work.format === 'csv') {
        if (run) (run as Run).unreadNextTo ??= source.line
        unread = source.line
      }
      continue
    }
    if (run && (run as Run).identity === identity)
      (run as Run).rows.push({ line: source.line, values: source.values })
    else {
      close()
      run = { identity, rows: [{ line: source.line, values: source.values }], unreadNextTo: unread }
    }
    unread = null
  }
  close()
  return worked
}
