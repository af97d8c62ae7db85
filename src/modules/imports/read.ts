// The rows of an import file: CSV (RFC 4180, a header row, a BOM accepted) through csv-parse, or
// NDJSON (one JSON object of plain values per line). Both are read as a stream from the stored
// bytes, so a large file is never held as rows; each row carries its line and the byte it ends at.
import { Readable } from 'node:stream'
import { CsvError, parse } from 'csv-parse'
import { parse as parseSync } from 'csv-parse/sync'
import { invalid } from '../../platform/foundation/problem'
import type { ImportFormat } from './schema'

/** Longest record (CSV) or line (NDJSON), in characters: a runaway quote cannot swallow the file. */
export const MAX_RECORD_CHARS = 65_536
/** Most columns a header (or NDJSON keys an object) may hold. */
export const MAX_COLUMNS = 200
const CHUNK_BYTES = 64 * 1024

/** A row's values by its column (CSV header) or key (NDJSON). */
export type SourceValues = Record<string, string | number | boolean | null>

export type SourceRow =
  | { line: number; endByte: number; values: SourceValues }
  /** A row that cannot be read: failed on its own, the rows after it still are. */
  | { line: number; endByte: number; error: { field: string | null; reason: string } }
  /** The file cannot be read on from here (a quote never closed): the import stops. */
  | { line: number; endByte: number; fatal: string }

/** Refuses bytes that are not UTF-8 (400 naming the file), before anything is stored. */
export function assertUtf8(bytes: Uint8Array): void {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    throw invalid('body/file', 'the file is not valid UTF-8')
  }
}

/** The CSV header's columns, read from the start of the file (400 when it has none or too many). */
export function csvHeader(bytes: Uint8Array): string[] {
  const end = bytes.indexOf(0x0a)
  const first = Buffer.from(bytes.subarray(0, end === -1 ? bytes.length : end)).toString('utf8')
  let records: string[][]
  try {
    records = parseSync(first, { bom: true, max_record_size: MAX_RECORD_CHARS, relax_quotes: false })
  } catch (error) {
    throw invalid('body/file', `the header row cannot be read: ${csvReason(error)}`)
  }
  const header = (records[0] ?? []).map((column) => column.trim())
  if (header.length === 0 || header.every((column) => column === ''))
    throw invalid('body/file', 'the file has no header row')
  if (header.length > MAX_COLUMNS)
    throw invalid('body/file', `the header has more than ${MAX_COLUMNS} columns`)
  return header
}

const csvReasons: Record<string, string> = {
  CSV_QUOTE_NOT_CLOSED: 'a quoted field is never closed',
  CSV_INVALID_CLOSING_QUOTE: 'a quote closes a field but is followed by more characters',
  CSV_INVALID_OPENING_QUOTE: 'a quote appears inside an unquoted field',
  CSV_MAX_RECORD_SIZE: `a record is longer than ${MAX_RECORD_CHARS} characters`,
}

const csvReason = (error: unknown): string =>
  (error instanceof CsvError && csvReasons[error.code]) || 'malformed CSV'

function chunks(bytes: Uint8Array): Readable {
  return Readable.from(
    (function* () {
      for (let at = 0; at < bytes.length; at += CHUNK_BYTES)
        yield Buffer.from(bytes.subarray(at, at + CHUNK_BYTES))
    })(),
  )
}

async function* csvRows(bytes: Uint8Array): AsyncGenerator<SourceRow> {
  const skipped: { line: number; reason: string }[] = []
  const parser = chunks(bytes).pipe(
    parse({
      bom: true,
      info: true,
      relax_column_count: true,
      max_record_size: MAX_RECORD_CHARS,
      skip_records_with_error: true,
      on_skip: (error) => {
        if (error)
          skipped.push({
            line: (error as CsvError & { lines?: number }).lines ?? 0,
            reason: csvReason(error),
          })
      },
    }),
  )
  let header: string[] | null = null
  let previousEnd = 0
  try {
    for await (const { record, info } of parser as AsyncIterable<{
      record: string[]
      info: { lines: number; bytes: number }
    }>) {
      const line = previousEnd + 1
      previousEnd = info.lines
      // The parser runs ahead of the rows taken: its skipped records come out in their place.
      while (skipped[0] && skipped[0].line < line) {
        const skip = skipped.shift()!
        yield { line: skip.line, endByte: info.bytes, error: { field: null, reason: skip.reason } }
      }
      if (!header) {
        header = record.map((column) => column.trim())
        continue
      }
      if (record.length === 1 && record[0] === '') continue
      if (record.length !== header.length) {
        yield {
          line,
          endByte: info.bytes,
          error: { field: null, reason: `has ${record.length} columns; the header has ${header.length}` },
        }
        continue
      }
      const values: SourceValues = {}
      header.forEach((column, i) => {
        values[column] = record[i] ?? ''
      })
      yield { line, endByte: info.bytes, values }
    }
  } catch (error) {
    yield {
      line: previousEnd + 1,
      endByte: bytes.length,
      fatal: `line ${previousEnd + 1}: ${csvReason(error)}`,
    }
    return
  }
  for (const skip of skipped)
    yield { line: skip.line, endByte: bytes.length, error: { field: null, reason: skip.reason } }
}

const isPlain = (value: unknown): value is string | number | boolean | null =>
  value === null || ['string', 'number', 'boolean'].includes(typeof value)

/**
 * The lists an NDJSON record may nest (an order's `lineItems` and `payments`), by key: each
 * element an object of plain values whose keys are read as columns under `prefix(i)`; `perRow`
 * puts element i in the record's row i (one row per line, as a CSV has it), otherwise every
 * element goes in its first row.
 */
export type NestedLists = Readonly<
  Record<string, { prefix: (i: number) => string; perRow: boolean; max: number }>
>

/** An NDJSON record as rows: its plain values, with its nested lists' elements spread (NestedLists). */
function spread(
  values: Record<string, unknown>,
  nested: NestedLists,
): SourceValues[] | { field: string; reason: string } {
  const rows: SourceValues[] = [{}]
  for (const [key, value] of Object.entries(values)) {
    const list = nested[key]
    if (!list) {
      if (!isPlain(value)) return { field: key, reason: 'must be a string, number, boolean or null' }
      rows[0]![key] = value
      continue
    }
    if (value === null) continue
    if (!Array.isArray(value) || value.length > list.max)
      return { field: key, reason: `must be a list of at most ${list.max} objects` }
    for (const [i, element] of value.entries()) {
      if (typeof element !== 'object' || element === null || Array.isArray(element))
        return { field: `${key}.${i}`, reason: 'must be an object' }
      if (list.perRow) rows[i] ??= {}
      const row = list.perRow ? rows[i]! : rows[0]!
      for (const [name, inner] of Object.entries(element)) {
        if (!isPlain(inner))
          return { field: `${key}.${i}.${name}`, reason: 'must be a string, number, boolean or null' }
        row[`${list.prefix(i)}${name}`] = inner
      }
    }
  }
  return rows
}

async function* ndjsonRows(bytes: Uint8Array, nested: NestedLists): AsyncGenerator<SourceRow> {
  const decoder = new TextDecoder('utf-8')
  let start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0
  let line = 0
  while (start < bytes.length) {
    line++
    const newline = bytes.indexOf(0x0a, start)
    const end = newline === -1 ? bytes.length : newline
    const text = end - start > MAX_RECORD_CHARS * 4 ? null : decoder.decode(bytes.subarray(start, end)).trim()
    start = end + 1
    if (text === '') continue
    const rows = (values: unknown): SourceRow[] => {
      if (text === null || text.length > MAX_RECORD_CHARS)
        return [
          {
            line,
            endByte: end,
            error: { field: null, reason: `is longer than ${MAX_RECORD_CHARS} characters` },
          },
        ]
      if (typeof values !== 'object' || values === null || Array.isArray(values))
        return [{ line, endByte: end, error: { field: null, reason: 'is not a JSON object' } }]
      if (Object.keys(values).length > MAX_COLUMNS)
        return [{ line, endByte: end, error: { field: null, reason: `holds more than ${MAX_COLUMNS} keys` } }]
      const rows = spread(values as Record<string, unknown>, nested)
      if (!Array.isArray(rows)) return [{ line, endByte: end, error: rows }]
      return rows.map((row) => ({ line, endByte: end, values: row }))
    }
    let parsed: unknown
    try {
      parsed = text === null ? null : JSON.parse(text)
    } catch {
      yield { line, endByte: end, error: { field: null, reason: 'is not valid JSON' } }
      continue
    }
    yield* rows(parsed)
  }
}

/**
 * The file's rows after its header, each with its line (the header is line 1 of a CSV); an
 * NDJSON record nesting lists (`nested`) is as many rows as NestedLists spreads it into.
 */
export const readRows = (
  bytes: Uint8Array,
  format: ImportFormat,
  nested: NestedLists = {},
): AsyncGenerator<SourceRow> => (format === 'csv' ? csvRows(bytes) : ndjsonRows(bytes, nested))
