// Commerce7-style date filters on list routes: `updatedAt=gt:2024-01-01`, `gte:`, `lt:`, `lte:`,
// `btw:A|B` (inclusive), or a bare value (equality). Values are ISO 8601 dates (`YYYY-MM-DD`) or
// date-times with a zone (`2024-01-01T10:00:00Z`, `...+02:00`). A bare date stands for the whole
// UTC day, so `lte:2024-01-31` includes everything on the 31st and `2024-01-31` matches that day.
import { type AnyColumn, and, gte, lt, type SQL } from 'drizzle-orm'
import { t } from 'elysia'
import { invalid } from '../foundation/problem'

const datePattern = /^\d{4}-\d{2}-\d{2}$/
const dateTimePattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i

/** A half-open UTC range [from, to); either end may be open. ISO strings, comparable as text. */
export interface DateRange {
  from?: string
  to?: string
}

interface Instant {
  /** The first millisecond the value covers. */
  start: number
  /** The first millisecond after it: the next day for a date, start + 1 ms for a date-time. */
  end: number
}

function parseInstant(value: string, path: string): Instant {
  const text = value.trim()
  if (datePattern.test(text)) {
    const start = Date.parse(`${text}T00:00:00.000Z`)
    if (Number.isNaN(start) || new Date(start).toISOString().slice(0, 10) !== text)
      throw invalid(path, `"${text}" is not a calendar date`)
    return { start, end: start + 86_400_000 }
  }
  if (dateTimePattern.test(text)) {
    const start = Date.parse(text)
    if (!Number.isNaN(start)) return { start, end: start + 1 }
  }
  throw invalid(path, `"${text}" is not an ISO 8601 date (YYYY-MM-DD) or date-time with a time zone`)
}

const iso = (ms: number) => new Date(ms).toISOString()

/** Parses a filter value into a range; throws 400 `validation_failed` naming `path` on garbage. */
export function parseDateFilter(raw: string, path: string): DateRange {
  const match = /^(gt|gte|lt|lte|btw):(.*)$/i.exec(raw.trim())
  if (!match) {
    const at = parseInstant(raw, path)
    return { from: iso(at.start), to: iso(at.end) }
  }
  const op = match[1]!.toLowerCase()
  const operand = match[2]!
  if (op === 'btw') {
    const parts = operand.split('|')
    if (parts.length !== 2) throw invalid(path, 'btw: takes two values separated by "|", as btw:A|B')
    const from = parseInstant(parts[0]!, path)
    const to = parseInstant(parts[1]!, path)
    if (from.start >= to.end) throw invalid(path, 'btw:A|B needs A on or before B')
    return { from: iso(from.start), to: iso(to.end) }
  }
  const at = parseInstant(operand, path)
  switch (op) {
    case 'gt':
      return { from: iso(at.end) }
    case 'gte':
      return { from: iso(at.start) }
    case 'lt':
      return { to: iso(at.start) }
    default:
      return { to: iso(at.end) }
  }
}

/** The SQL condition of a range on an ISO-timestamp text column. */
export function dateRangeCondition(column: AnyColumn, range: DateRange | undefined): SQL | undefined {
  if (!range) return undefined
  return and(
    range.from === undefined ? undefined : gte(column, range.from),
    range.to === undefined ? undefined : lt(column, range.to),
  )
}

/** The query schema of such a filter, for OpenAPI. Validation happens in parseDateFilter. */
export const dateFilterQuery = (field: string) =>
  t.Optional(
    t.String({
      minLength: 1,
      maxLength: 80,
      description:
        `Filter on ${field}: \`gt:\`, \`gte:\`, \`lt:\`, \`lte:\` followed by a date or date-time, ` +
        '`btw:A|B` (inclusive), or a bare value (that instant, or that whole UTC day for a date). ' +
        'Values are ISO 8601: `2024-01-31` or `2024-01-31T10:00:00Z`. Anything else is 400.',
      examples: ['gte:2024-01-01', 'btw:2024-01-01|2024-01-31'],
    }),
  )
