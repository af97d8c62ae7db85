// Rows that are parts of one record (a kind's `group`: a product's variants, one row each). Rows
// one after another with the same values in the group's fields are one group: the worker applies
// a group in one savepoint, all or none, and never cuts a batch (a transaction, the point a
// stopped import resumes from) inside one. A row that cannot be read at all (the wrong number of
// columns) names no record, so it is in no group: it fails alone.
import type { KindSpec } from './kinds'
import type { SourceRow } from './read'

/** Most rows of one group (the API takes at most 100 variants a product): a longer run is cut there. */
export const MAX_GROUP_ROWS = 500

/** A row read, with the group it belongs to (a number shared by the rows of one group). */
export interface GroupedRow {
  source: SourceRow
  group: number
}

/** The values a row gives to its kind's group fields, as one key; null when the row is in no group. */
function groupKeyOf(
  spec: KindSpec<never>,
  columnsOf: (keys: string[]) => ReadonlyMap<string, string>,
  source: SourceRow,
): string | null {
  if (!spec.group || !('values' in source)) return null
  const byField = new Map<string, string>()
  for (const [column, field] of columnsOf(Object.keys(source.values))) {
    const value = source.values[column]
    if (value !== null && value !== undefined) byField.set(field, String(value).trim().toLowerCase())
  }
  const parts = spec.group.fields.map((field) => byField.get(field) ?? '')
  return parts.every((part) => part === '') ? null : parts.join('\u0000')
}

/** Gives each row read its group: the group of the row before when it continues it, else a new one. */
export function grouper(spec: KindSpec<never>, columnsOf: (keys: string[]) => ReadonlyMap<string, string>) {
  let previous: { key: string | null; group: number; rows: number } = { key: null, group: 0, rows: 0 }
  return (source: SourceRow): GroupedRow & { continues: boolean } => {
    const key = groupKeyOf(spec, columnsOf, source)
    const continues = key !== null && key === previous.key && previous.rows < MAX_GROUP_ROWS
    previous = continues
      ? { ...previous, rows: previous.rows + 1 }
      : { key, group: previous.group + 1, rows: 1 }
    return { source, group: previous.group, continues }
  }
}

/** A batch's rows in their groups, in file order. */
export function groupsOf(batch: readonly GroupedRow[]): SourceRow[][] {
  const groups: SourceRow[][] = []
  let current: number | null = null
  for (const { source, group } of batch) {
    if (group !== current) groups.push([])
    groups.at(-1)!.push(source)
    current = group
  }
  return groups
}
