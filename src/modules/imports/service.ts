// Bulk imports: a request stores the file and its settings (queued); the `imports.run` job works
// it in batches, each batch one transaction in which every row has a savepoint of its own, so a
// row is applied whole or not at all, and the batch's counts and failed rows commit with its rows.
// One process works an import at a time, under a lease it renews with each batch. A stopped
// process leaves the import running at its last committed line: once its lease runs out (at once
// when it stopped cleanly), the next run resumes after that line (rows are upserts, so a row
// worked twice would change nothing the second time anyway).
import { and, count, desc, eq, getTableColumns, inArray, isNull, lt, or, sql } from 'drizzle-orm'
import { recordWrite } from '../../platform/audit/record-write'
import { type Actor, systemActor } from '../../platform/foundation/actor'
import { newId, nowIso } from '../../platform/foundation/ids'
import { offsetOf, type PageRequest } from '../../platform/foundation/paging'
import { ApiError, notFound } from '../../platform/foundation/problem'
import type { Db } from '../../platform/tenancy/databases'
import { preparedOn } from '../../platform/tenancy/prepared'
import { inWriteTransaction, type Queryable, sqliteOf } from '../../platform/tenancy/transaction'
import { columnFields, fieldAt, requiredFields } from './fields'
import {
  type GroupedWork,
  type LineFailure,
  type RecordFailure,
  recordIdentity,
  recordsOf,
  rememberRecord,
} from './groups'
import { kindSpecs } from './kinds'
import type { DataImportView, ImportFormInput } from './model'
import { assertUtf8, csvHeader, readRows, type SourceRow } from './read'
import {
  type DataImportRow,
  dataImportErrors,
  dataImportFiles,
  dataImports,
  type ImportFormat,
} from './schema'

/**
 * How long one batch (one transaction, worked without yielding) may hold the event loop: requests
 * wait at most about this long for an import. The rows per batch follow from the last batch's
 * time per row, between MIN_BATCH_ROWS and MAX_BATCH_ROWS.
 */
const BATCH_MS = 5
const MIN_BATCH_ROWS = 10
const MAX_BATCH_ROWS = 500
const FIRST_BATCH_ROWS = 50
/** How long a worker holds an import without renewing (a batch takes well under a second). */
const LEASE_MS = 60_000

const listedColumns = getTableColumns(dataImports)
type ListedImport = DataImportRow

function viewOf(row: ListedImport): DataImportView {
  const { linesDone: _lines, bytesDone, leaseUntil: _lease, ...rest } = row
  const finished = row.state === 'succeeded' || row.state === 'failed'
  return {
    ...rest,
    progress: finished || row.fileBytes === 0 ? 1 : Math.min(1, bytesDone / row.fileBytes),
  }
}

const findImport = (db: Queryable, id: string) =>
  db.select(listedColumns).from(dataImports).where(eq(dataImports.id, id)).get()

export function getImport(db: Queryable, id: string): DataImportView {
  const row = findImport(db, id)
  if (!row) throw notFound('import', id)
  return viewOf(row)
}

export function listImports(db: Queryable, page: PageRequest) {
  const total = db.select({ n: count() }).from(dataImports).get()?.n ?? 0
  const rows = db
    .select(listedColumns)
    .from(dataImports)
    .orderBy(desc(dataImports.createdAt), desc(dataImports.id))
    .limit(page.limit)
    .offset(offsetOf(page))
    .all()
  return { imports: rows.map(viewOf), page: { total, page: page.page, limit: page.limit } }
}

export function listImportErrors(db: Queryable, id: string, page: PageRequest) {
  getImport(db, id)
  const where = eq(dataImportErrors.importId, id)
  const total = db.select({ n: count() }).from(dataImportErrors).where(where).get()?.n ?? 0
  const errors = db
    .select({ line: dataImportErrors.line, field: dataImportErrors.field, reason: dataImportErrors.reason })
    .from(dataImportErrors)
    .where(where)
    .orderBy(dataImportErrors.line)
    .limit(page.limit)
    .offset(offsetOf(page))
    .all()
  return { errors, page: { total, page: page.page, limit: page.limit } }
}

export interface ImportFile {
  bytes: Uint8Array
  name: string | null
  format: ImportFormat
}

/**
 * Stores a file to import and queues it. 400 before anything is stored for a file that is not
 * UTF-8, a CSV without a readable header, a mapping naming a field the kind lacks (or a column
 * the CSV lacks), or a CSV no column of which gives a required field.
 */
export function createImport(db: Db, actor: Actor, form: ImportFormInput, file: ImportFile): DataImportView {
  assertUtf8(file.bytes)
  const spec = kindSpecs[form.kind]
  const mapping = form.mapping ?? {}
  if (file.format === 'csv') {
    const columns = columnFields(spec.fields, mapping, csvHeader(file.bytes))
    const given = new Set(columns.values())
    const missing = requiredFields(spec.fields, spec.schema).find((field) => !given.has(field))
    if (missing)
      throw new ApiError('validation_failed', `no column of the file gives the required field "${missing}"`, {
        errors: [{ path: 'body/mapping', message: `no column gives "${missing}": name one in the mapping` }],
      })
  } else columnFields(spec.fields, mapping, null)
  return inWriteTransaction(db, (tx) => {
    const row = tx
      .insert(dataImports)
      .values({
        id: newId(),
        kind: form.kind,
        format: file.format,
        mode: form.mode ?? 'validate',
        emitEvents: form.emitEvents ?? false,
        mapping,
        fileName: file.name,
        fileBytes: file.bytes.byteLength,
        state: 'queued',
        linesDone: 0,
        bytesDone: 0,
        rowsRead: 0,
        rowsApplied: 0,
        rowsUnchanged: 0,
        rowsFailed: 0,
        error: null,
        locationId: actor.locationId,
        createdByStaffUserId: actor.staffUserId,
        createdAt: nowIso(),
        startedAt: null,
        finishedAt: null,
      })
      .returning(listedColumns)
      .get()
    tx.insert(dataImportFiles)
      .values({ importId: row.id, bytes: Buffer.from(file.bytes) })
      .run()
    const view = viewOf(row)
    recordWrite(tx, actor, {
      action: 'data_import.create',
      entityType: 'data_import',
      entityId: row.id,
      metadata: { import: view },
    })
    return view
  })
}

/**
 * When the tenant next has an import to work (the job's due-work answer): now for one queued or
 * free, else when the earliest lease runs out; null with none pending.
 */
export function nextImportWork(db: Queryable): number | null {
  const leases = preparedOn(db, 'imports-leases', () =>
    db
      .select({ leaseUntil: dataImports.leaseUntil })
      .from(dataImports)
      .where(inArray(dataImports.state, ['queued', 'running']))
      .prepare(),
  ).all()
  if (leases.length === 0) return null
  return Math.min(
    ...leases.map(({ leaseUntil }) => (leaseUntil === null ? Date.now() : Date.parse(leaseUntil))),
  )
}

/** Works the tenant's queued and running imports no one else holds, oldest first, until done or `signal` aborts. */
export async function workPendingImports(db: Db, tenantId: string, signal: AbortSignal): Promise<void> {
  const pending = db
    .select({ id: dataImports.id })
    .from(dataImports)
    .where(inArray(dataImports.state, ['queued', 'running']))
    .orderBy(dataImports.createdAt, dataImports.id)
    .all()
  for (const { id } of pending) {
    if (signal.aborted) return
    await workImport(db, tenantId, id, { signal })
  }
}

const leaseFromNow = () => new Date(Date.now() + LEASE_MS).toISOString()

/** Takes the import for this worker: false when it is finished or another worker holds it. */
function claim(db: Db, id: string): boolean {
  return inWriteTransaction(db, (tx) => {
    const now = nowIso()
    const claimed = tx
      .update(dataImports)
      .set({
        state: 'running',
        leaseUntil: leaseFromNow(),
        startedAt: sql`coalesce(${dataImports.startedAt}, ${now})`,
      })
      .where(
        and(
          eq(dataImports.id, id),
          inArray(dataImports.state, ['queued', 'running']),
          or(isNull(dataImports.leaseUntil), lt(dataImports.leaseUntil, now)),
        ),
      )
      .returning({ id: dataImports.id })
      .get()
    return claimed !== undefined
  })
}

const importActor = (row: DataImportRow, tenantId: string): Actor => ({
  ...systemActor(tenantId, `import:${row.id}`, row.createdByStaffUserId),
  locationId: row.locationId,
})

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve))

export interface WorkOptions {
  signal: AbortSignal
  /** Told after each batch (the command line's progress bar). */
  progress?(view: DataImportView): void
}

/**
 * Works one import to its end (or until `signal` aborts: the lease is let go, and the next run
 * resumes after the last committed batch). Does nothing when another worker holds it.
 */
export async function workImport(db: Db, tenantId: string, id: string, options: WorkOptions): Promise<void> {
  if (!claim(db, id)) return
  const row = db.select().from(dataImports).where(eq(dataImports.id, id)).get()
  const file = db.select().from(dataImportFiles).where(eq(dataImportFiles.importId, id)).get()?.bytes
  if (!row || !file) return
  const actor = importActor(row, tenantId)
  const spec = kindSpecs[row.kind]
  const csvColumns = row.format === 'csv' ? columnFields(spec.fields, row.mapping, csvHeader(file)) : null
  const ndjsonColumns = new Map<string, Map<string, string>>()
  const columnsOf = (keys: string[]) => {
    if (csvColumns) return csvColumns
    const signature = keys.join('\u0000')
    let columns = ndjsonColumns.get(signature)
    if (!columns) {
      const present = Object.fromEntries(Object.entries(row.mapping).filter(([key]) => keys.includes(key)))
      columns = columnFields(spec.fields, present, keys)
      if (ndjsonColumns.size < 1000) ndjsonColumns.set(signature, columns)
    }
    return columns
  }
  const work: Work = { db, row, spec, actor, columnsOf, format: row.format, seen: new Map() }
  let batchRows = FIRST_BATCH_ROWS
  const batchDone = (batch: SourceRow[]) => {
    const started = performance.now()
    applyBatch(work, batch)
    const msPerRow = (performance.now() - started) / Math.max(1, batch.length)
    batchRows = Math.round(
      Math.min(MAX_BATCH_ROWS, Math.max(MIN_BATCH_ROWS, BATCH_MS / Math.max(msPerRow, 0.001))),
    )
    options.progress?.(getImport(db, id))
  }

  // A batch ends between two records (a record of several rows is never split), or, should rows
  // name no record for that long, at a bound.
  const recordEnds = (last: SourceRow, next: SourceRow) => {
    const [a, b] = [recordIdentity(work, last), recordIdentity(work, next)]
    return (a !== null && b !== null && a !== b) || batch.length >= batchRows + MAX_BATCH_ROWS
  }
  let batch: SourceRow[] = []
  for await (const source of readRows(file, row.format, spec.grouping?.nested)) {
    if (source.line <= row.linesDone) {
      rememberRecord(work, source)
      continue
    }
    if ('fatal' in source) {
      batchDone(batch)
      finish(work, 'failed', source.fatal)
      return
    }
    if (batch.length >= batchRows && recordEnds(batch[batch.length - 1]!, source)) {
      batchDone(batch)
      batch = []
      await yieldToEventLoop()
      if (options.signal.aborted) {
        inWriteTransaction(db, (tx) =>
          tx.update(dataImports).set({ leaseUntil: null }).where(eq(dataImports.id, id)).run(),
        )
        return
      }
    }
    batch.push(source)
  }
  batchDone(batch)
  finish(work, 'succeeded', null)
}

interface Work extends GroupedWork {
  db: Db
  row: DataImportRow
  actor: Actor
}

/** What applying a record failed on: the field (and row) its ApiError names, else the error's message. */
function failureOf({ spec }: Work, error: unknown): RecordFailure {
  if (!(error instanceof ApiError))
    return { field: null, reason: `could not be applied: ${(error as Error).message}`.slice(0, 500) }
  const path = error.options.errors?.[0]?.path
  const named = path
    ? fieldAt(spec.fields, path.replace(/^body\//, '').replaceAll('/', '.'))
    : { field: null }
  return { ...named, reason: error.detail.slice(0, 500) }
}

/**
 * One batch in one transaction: each record (a row, or the rows of one order) in a savepoint;
 * the counts, by line, and the failures with them.
 */
function applyBatch(work: Work, batch: SourceRow[]): void {
  const { db, row, spec, actor } = work
  if (batch.length === 0) return
  inWriteTransaction(db, (tx) => {
    const sqlite = sqliteOf(tx)
    const counts = { applied: 0, unchanged: 0 }
    const failures: LineFailure[] = []
    for (const worked of recordsOf(work, batch)) {
      if ('failures' in worked) {
        failures.push(...worked.failures)
        continue
      }
      sqlite.run('SAVEPOINT import_row')
      try {
        const outcome = spec.apply(db, actor, worked.record, {
          importId: row.id,
          line: worked.lines[0]!,
          emitEvents: row.emitEvents,
        })
        // A dry run does all the work and keeps none of it.
        if (row.mode === 'validate') sqlite.run('ROLLBACK TO import_row')
        if (outcome === 'unchanged') counts.unchanged += worked.lines.length
        else counts.applied += worked.lines.length
      } catch (error) {
        sqlite.run('ROLLBACK TO import_row')
        failures.push(...worked.failed(failureOf(work, error)))
      } finally {
        sqlite.run('RELEASE import_row')
      }
    }
    for (const { line, failure } of failures)
      tx.insert(dataImportErrors)
        .values({ importId: row.id, line, field: failure.field, reason: failure.reason })
        .onConflictDoNothing()
        .run()
    const last = batch[batch.length - 1]!
    const current = tx.select(listedColumns).from(dataImports).where(eq(dataImports.id, row.id)).get()!
    tx.update(dataImports)
      .set({
        linesDone: last.line,
        bytesDone: Math.max(current.bytesDone, last.endByte),
        rowsRead: current.rowsRead + new Set(batch.map((source) => source.line)).size,
        rowsApplied: current.rowsApplied + counts.applied,
        rowsUnchanged: current.rowsUnchanged + counts.unchanged,
        rowsFailed: current.rowsFailed + failures.length,
        leaseUntil: leaseFromNow(),
      })
      .where(eq(dataImports.id, row.id))
      .run()
  })
}

function finish({ db, row, actor }: Work, state: 'succeeded' | 'failed', error: string | null): void {
  inWriteTransaction(db, (tx) => {
    const done = tx
      .update(dataImports)
      .set({ state, error, finishedAt: nowIso(), bytesDone: row.fileBytes, leaseUntil: null })
      .where(eq(dataImports.id, row.id))
      .returning(listedColumns)
      .get()
    tx.delete(dataImportFiles).where(eq(dataImportFiles.importId, row.id)).run()
    const view = viewOf(done)
    recordWrite(tx, actor, {
      action: 'data_import.finish',
      entityType: 'data_import',
      entityId: row.id,
      metadata: {
        state,
        error,
        rowsRead: view.rowsRead,
        rowsApplied: view.rowsApplied,
        rowsUnchanged: view.rowsUnchanged,
        rowsFailed: view.rowsFailed,
      },
    })
  })
}
