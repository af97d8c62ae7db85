// From a source row (columns or keys, mapped to fields) to the typed record a kind applies: values
// trimmed and converted by the field's type, empty cells left out, the record checked against the
// owning family's schema, and any value that looks like a card number refused without a trace.
import type { TSchema } from '@sinclair/typebox'
import { invalid } from '../../platform/foundation/problem'
import { checkOf } from '../../platform/http/request-body'
import type { SourceValues } from './read'

export type FieldType = 'text' | 'boolean' | 'list' | 'integer'

/** A field of a kind: where it goes in the record (`addresses.0.city`), its type, and usual column names. */
export interface FieldSpec {
  path: string
  type: FieldType
  aliases: readonly string[]
  /**
   * Its values may be long digit strings that pass the Luhn check without being card numbers (a
   * gift card's code): the card-number check leaves this field alone.
   */
  digitsAllowed?: boolean
}

/** A text field at `path`, answering to its own name and these usual column names (normalized). */
export const textField = (path: string, ...aliases: string[]): FieldSpec => ({ path, type: 'text', aliases })
export const integerField = (path: string, ...aliases: string[]): FieldSpec => ({
  path,
  type: 'integer',
  aliases,
})

/**
 * The fields a file must give a column for: the kind's schema's required properties, and those a
 * list's items require (`variants.#.sku`) when the list is required.
 */
export function requiredFields(fields: Readonly<Record<string, FieldSpec>>, schema: TSchema): string[] {
  const required = new Set<string>()
  const walk = (object: TSchema, prefix: string) => {
    for (const name of (object.required as string[] | undefined) ?? []) {
      const property = object.properties?.[name] as TSchema | undefined
      if (property?.type === 'array' && property.items?.type === 'object')
        walk(property.items, `${prefix}${name}.#.`)
      else required.add(`${prefix}${name}`)
    }
  }
  walk(schema, '')
  return Object.entries(fields)
    .filter(([, spec]) => required.has(spec.path))
    .map(([name]) => name)
}

export interface RowFailure {
  field: string | null
  reason: string
}

/** A column's name as the defaults compare it: lower case, letters and digits only. */
export const normalized = (column: string) => column.toLowerCase().replace(/[^a-z0-9]/g, '')

/**
 * Source column → field for a file's columns: the mapping's entries first (400 for a field the
 * kind does not have, or a column the file lacks when its columns are known), then each field's
 * own name and usual names. Columns that map to no field are ignored.
 */
export function columnFields(
  fields: Readonly<Record<string, FieldSpec>>,
  mapping: Readonly<Record<string, string>>,
  columns: readonly string[] | null,
): Map<string, string> {
  const result = new Map<string, string>()
  for (const [column, field] of Object.entries(mapping)) {
    if (!Object.hasOwn(fields, field))
      throw invalid(
        `body/mapping/${column}`,
        `"${field}" is not a field of this kind; fields: ${Object.keys(fields).join(', ')}`,
      )
    if (columns && !columns.includes(column))
      throw invalid(`body/mapping/${column}`, 'the file has no such column')
    result.set(column, field)
  }
  const mapped = new Set(result.values())
  for (const column of columns ?? []) {
    if (result.has(column)) continue
    const key = normalized(column)
    const field = Object.entries(fields).find(
      ([name, spec]) => !mapped.has(name) && (normalized(name) === key || spec.aliases.includes(key)),
    )?.[0]
    if (field) {
      result.set(column, field)
      mapped.add(field)
    }
  }
  return result
}

/** Digits that pass the Luhn check, 13 to 19 of them, with spaces or dashes between. */
export function looksLikeCardNumber(value: string): boolean {
  if (!/^[\d -]+$/.test(value)) return false
  const digits = value.replace(/[ -]/g, '')
  if (digits.length < 13 || digits.length > 19) return false
  let sum = 0
  for (let i = 0; i < digits.length; i++) {
    let digit = digits.charCodeAt(digits.length - 1 - i) - 48
    if (i % 2 === 1) {
      digit *= 2
      if (digit > 9) digit -= 9
    }
    sum += digit
  }
  return sum % 10 === 0
}

const TRUE = new Set(['true', 'yes', 'y', '1'])
const FALSE = new Set(['false', 'no', 'n', '0'])

function converted(spec: FieldSpec, value: string | number | boolean): unknown {
  if (spec.type === 'boolean') {
    if (typeof value === 'boolean') return value
    const word = String(value).trim().toLowerCase()
    if (TRUE.has(word)) return true
    if (FALSE.has(word)) return false
    throw new Error('expected true or false')
  }
  if (spec.type === 'integer') {
    if (typeof value === 'number' && Number.isSafeInteger(value)) return value
    if (typeof value === 'string' && /^-?\d{1,15}$/.test(value.trim())) return Number(value.trim())
    throw new Error('expected a whole number (money in minor units: cents)')
  }
  if (spec.type === 'list')
    return String(value)
      .split(/[;,]/)
      .map((item) => item.trim())
      .filter((item) => item !== '')
  return String(value).trim()
}

function place(record: Record<string, unknown>, path: string, value: unknown) {
  const keys = path.split('.')
  let node: Record<string, unknown> | unknown[] = record
  keys.forEach((key, i) => {
    const last = i === keys.length - 1
    const at = node as Record<string, unknown>
    if (last) at[key] = value
    else {
      at[key] ??= /^\d+$/.test(keys[i + 1] ?? '') ? [] : {}
      node = at[key] as Record<string, unknown>
    }
  })
}

/**
 * A row's values placed at their fields' paths, or why the row fails. `#` in a path stands for
 * `item`: the row's place among the rows of one record (an order's lines). Every cell is looked
 * at for a card number, mapped or not: such a row fails naming its column, and the number goes
 * nowhere.
 */
export function rowValues(
  values: SourceValues,
  columns: ReadonlyMap<string, string>,
  fields: Readonly<Record<string, FieldSpec>>,
  item = 0,
): { record: Record<string, unknown> } | { failure: RowFailure } {
  const record: Record<string, unknown> = {}
  for (const [column, value] of Object.entries(values)) {
    const field = columns.get(column)
    const digitsAllowed = field !== undefined && fields[field]?.digitsAllowed === true
    // NDJSON may carry the number as a JSON number: checked as its digits.
    const cell = typeof value === 'string' || typeof value === 'number' ? String(value).trim() : ''
    if (!digitsAllowed && looksLikeCardNumber(cell))
      return {
        failure: {
          field: columns.get(column) ?? column,
          reason:
            'looks like a card number: send saved cards as provider references (customer and payment-method ids), never card numbers',
        },
      }
    if (!field || value === null || value === '') continue
    const spec = fields[field]!
    try {
      const typed = converted(spec, value)
      if (typed === '' || (Array.isArray(typed) && typed.length === 0)) continue
      place(record, spec.path.replace('#', String(item)), typed)
    } catch (error) {
      return { failure: { field, reason: (error as Error).message } }
    }
  }
  return { record }
}

/**
 * The field at a record's path (`lineItems.2.quantity` → `line.quantity`, item 2), for naming
 * what failed: a field whose path is exactly it, else one whose `#` stands for its first index.
 */
export function fieldAt(
  fields: Readonly<Record<string, FieldSpec>>,
  path: string,
): { field: string | null; item?: number } {
  if (path === '') return { field: null }
  const exact = Object.entries(fields).find(([, spec]) => spec.path === path)?.[0]
  if (exact) return { field: exact }
  const index = /\.(\d+)(\.|$)/.exec(path)
  if (index) {
    const general = path.replace(`.${index[1]}`, '.#')
    const field = Object.entries(fields).find(([, spec]) => spec.path === general)?.[0]
    if (field) return { field, item: Number(index[1]) }
  }
  return { field: path.replace(/\.\d+\./g, '.') }
}

/** The record checked against the kind's schema (after `complete`), or its first failure. */
export function checkedRecord<T>(
  record: Record<string, unknown>,
  fields: Readonly<Record<string, FieldSpec>>,
  schema: TSchema,
  complete: (record: Record<string, unknown>) => void = () => {},
): { record: T } | { failure: RowFailure & { item?: number } } {
  complete(record)
  const check = checkOf(schema)
  if (check.Check(record)) return { record: record as T }
  const first = check.Errors(record).First()
  const at = fieldAt(fields, first?.path.replace(/^\//, '').replaceAll('/', '.') ?? '')
  const missing = first && first.value === undefined
  return {
    failure: {
      ...at,
      reason: missing ? 'is required' : (first?.message ?? 'is not valid').slice(0, 200),
    },
  }
}

/** The record of one row, or why the row fails (rowValues, then checkedRecord). */
export function recordOf<T>(
  values: SourceValues,
  columns: ReadonlyMap<string, string>,
  fields: Readonly<Record<string, FieldSpec>>,
  schema: TSchema,
  complete?: (record: Record<string, unknown>) => void,
): { record: T } | { failure: RowFailure } {
  const placed = rowValues(values, columns, fields)
  if ('failure' in placed) return placed
  const checked = checkedRecord<T>(placed.record, fields, schema, complete)
  if ('record' in checked) return checked
  return { failure: { field: checked.failure.field, reason: checked.failure.reason } }
}
