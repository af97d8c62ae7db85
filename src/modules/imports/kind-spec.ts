// What a kind of import is (kinds.ts lists them): its fields, the owning family's schema of one
// record and its upsert, and, for a record over several rows, how its rows are told together.
import type { TSchema } from '@sinclair/typebox'
import type { ImportedRow, ImportOutcome } from '../../platform/bulk-import'
import type { Actor } from '../../platform/foundation/actor'
import type { Db } from '../../platform/tenancy/databases'
import type { FieldSpec } from './fields'
import type { NestedLists } from './read'

/**
 * A kind whose record spans rows (an order and its lines): in a CSV, consecutive rows with the
 * same `key` value make one record; an NDJSON record nests its lists (`nested`) and is one line.
 * Each row's fields whose path holds `#` land at the row's place among its record's rows.
 */
export interface Grouping {
  /** The fields that name a record, the first given on a row counting: `externalRef`, then `id`. */
  key: readonly string[]
  /** Most rows one record may span. */
  maxRows: number
  nested: NestedLists
}

export interface KindSpec<T> {
  fields: Readonly<Record<string, FieldSpec>>
  schema: TSchema
  /** Fills what a row leaves to be derived (an address's addressee from the customer's name). */
  complete?(record: Record<string, unknown>): void
  apply(db: Db, actor: Actor, record: T, row: ImportedRow): ImportOutcome
  grouping?: Grouping
}
