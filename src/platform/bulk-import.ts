// What an owning family's upsert of one bulk-import row (the imports family's kinds) is told and
// answers: the same for every kind.
import type { DomainEvent } from './audit/outbox'
import { invalid } from './foundation/problem'

export type ImportOutcome = 'created' | 'updated' | 'unchanged'

/** Which import and line a row comes from, and whether it announces its changes as events. */
export interface ImportedRow {
  importId: string
  line: number
  emitEvents: boolean
}

/** A record upserted by `id`, else `externalRef`, needs one of them: without, a second import would duplicate it. */
export function assertImportKey(input: { id?: string; externalRef?: string }): void {
  if (input.id === undefined && input.externalRef === undefined)
    throw invalid('externalRef', 'give externalRef (or id) so that importing the file again changes nothing')
}

/**
 * The event an applied record announces (its family's `create`, or `update`), only when the import
 * asks for events: a migration must not flood webhooks. `payload` is read only then.
 */
export function importEvents(
  row: ImportedRow,
  event: { object: string; created: boolean; aggregateId: string; payload: () => object },
): DomainEvent[] {
  if (!row.emitEvents) return []
  const { object, created, aggregateId, payload } = event
  return [
    {
      object,
      action: created ? 'create' : 'update',
      aggregateId,
      payload: payload() as Record<string, unknown>,
    },
  ]
}
