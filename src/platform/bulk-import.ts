// What an owning family's upsert of one bulk-import row (the imports family's kinds) is told and
// answers: the same for every kind.

export type ImportOutcome = 'created' | 'updated' | 'unchanged'

/** Which import and line a row comes from, and whether it announces its changes as events. */
export interface ImportedRow {
  importId: string
  line: number
  emitEvents: boolean
}
