import { blob, index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core'

export const importKinds = ['customers', 'gift-cards', 'club-memberships', 'products', 'orders'] as const
export const importFormats = ['csv', 'ndjson'] as const
export const importModes = ['validate', 'apply'] as const
export const importStates = ['queued', 'running', 'succeeded', 'failed'] as const

export type ImportKind = (typeof importKinds)[number]
export type ImportFormat = (typeof importFormats)[number]
export type ImportMode = (typeof importModes)[number]

/**
 * A bulk import: its settings and counts; its file is in `data_import_files` until it finishes (so
 * a stopped process resumes it at `linesDone`). Worked in the background by the `imports.run` job (jobs.ts).
 */
export const dataImports = sqliteTable(
  'data_imports',
  {
    id: text('id').primaryKey(),
    kind: text('kind', { enum: importKinds }).notNull(),
    format: text('format', { enum: importFormats }).notNull(),
    mode: text('mode', { enum: importModes }).notNull(),
    emitEvents: integer('emit_events', { mode: 'boolean' }).notNull(),
    /** Source column (or NDJSON key) → field, as sent; the defaults fill the rest. */
    mapping: text('mapping', { mode: 'json' }).$type<Record<string, string>>().notNull(),
    fileName: text('file_name'),
    fileBytes: integer('file_bytes').notNull(),
    state: text('state', { enum: importStates }).notNull(),
    /** The last line of the file worked (applied, failed or found unchanged): a restart resumes after it. */
    linesDone: integer('lines_done').notNull(),
    /** The bytes of the file worked, for progress. */
    bytesDone: integer('bytes_done').notNull(),
    rowsRead: integer('rows_read').notNull(),
    rowsApplied: integer('rows_applied').notNull(),
    rowsUnchanged: integer('rows_unchanged').notNull(),
    rowsFailed: integer('rows_failed').notNull(),
    /**
     * Until when the process working the import holds it (renewed with each batch): no other
     * process (a server's job, the command line) works it meanwhile, and a stopped one's lease runs out.
     */
    leaseUntil: text('lease_until'),
    /** Why the whole import failed (a file that cannot be read on), when it did. */
    error: text('error'),
    /** The location the import's records are created at (the request's x-location-id), if any. */
    locationId: text('location_id'),
    createdByStaffUserId: text('created_by_staff_user_id'),
    createdAt: text('created_at').notNull(),
    startedAt: text('started_at'),
    finishedAt: text('finished_at'),
  },
  (table) => [index('data_imports_state').on(table.state, table.createdAt)],
)

/**
 * The file of an import not finished yet. A table of its own: SQLite rewrites a whole row on any
 * update, and the import's counts change with every batch (a 10 MB file in the counts' row was
 * rewritten 10,000 times over a 100,000-row import: bench/README.md, issue 40).
 */
export const dataImportFiles = sqliteTable('data_import_files', {
  importId: text('import_id')
    .primaryKey()
    .references(() => dataImports.id, { onDelete: 'cascade' }),
  bytes: blob('bytes', { mode: 'buffer' }).notNull(),
})

/** A failed row of an import: where, which field and why, never the value. */
export const dataImportErrors = sqliteTable(
  'data_import_errors',
  {
    importId: text('import_id')
      .notNull()
      .references(() => dataImports.id, { onDelete: 'cascade' }),
    line: integer('line').notNull(),
    field: text('field'),
    reason: text('reason').notNull(),
  },
  (table) => [primaryKey({ columns: [table.importId, table.line] })],
)

export type DataImportRow = typeof dataImports.$inferSelect
