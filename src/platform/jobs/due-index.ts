// When each tenant next has work for each background job, kept in the control database
// (`tenant_due_work`), so that a start and each sweep open only the tenants with work due.
// Opening a tenant costs a schema parse (~2 ms): the jobs' first sweep after a start visited every
// tenant, 76 s of a core over 10,000 tenants (bench/README.md).
//
// Each job names its answer (`DueWorkSource.nextWork`: when the tenant next has work without a
// write, null when only a write can bring some). The answers are stored
//   - after each write to the tenant commits, for every job: the connection's commit queues the
//     tenant, and the queue is computed within FLUSH_DELAY_MS, and before anything reads the index;
//     an HTTP worker's commits queue it in the primary's index instead (platform/primary-link.ts),
//     so that the computation runs off the workers' request threads;
//   - after each visit, for the job that visited.
// Each computation runs inside a control write transaction, so two processes writing one tenant
// (a server, the command line) store their answers in the order they computed them.
//
// What the commit hooks cannot see is found at the first sweep of a process, and at the first after
// an HTTP worker died (its last writes may not have reached the primary): a tenant whose file or
// WAL was modified after its answers were stored (written by a process that stopped before storing
// them, a restored file) has them dropped, and a tenant without an answer for a job (imported, a
// job added by an upgrade) is visited once by it. File times are coarse, so a file modified within
// SETTLE_MS before its answers counts as modified after them; a process that closes cleanly, once
// its connections are closed, marks the files it answered for as seen (`close`).
import { statSync } from 'node:fs'
import { and, asc, eq, isNotNull, isNull, or, sql } from 'drizzle-orm'
import type { Logger } from '../foundation/log'
import { tenantDueWork, tenants } from '../tenancy/control-schema'
import type { ControlDb, Db, TenantPool } from '../tenancy/databases'
import { preparedOn } from '../tenancy/prepared'
import { findTenantById, type Tenant } from '../tenancy/tenants'
import { inWriteTransaction, type Queryable } from '../tenancy/transaction'
import type { NextWork } from './next-work'

export interface DueWorkSource {
  /** The job's name (`gift-cards.deliver`). */
  job: string
  /** When the tenant next has work for the job without a write: epoch ms, or null. */
  nextWork(tenant: Tenant, db: Db): NextWork
}

/**
 * How long a written tenant waits before its answers are computed: writes close together share it.
 * Nothing waits for them meanwhile (every reader of the index computes what is pending first, a
 * trigger to the primary goes after a flush: primary-link.ts), and a process that dies first
 * leaves files newer than their answers, visited again (above). At 50 ms, sixteen tenants written
 * together each had their answers computed twenty times a second, a quarter of their write rate
 * (bench/README.md, sixteenth pass); at a second, 256 tenants written a few times a second each
 * took a third of the primary's thread, each tenant's queries reading pages its workers' writes
 * had made stale (twenty-second pass).
 */
const FLUSH_DELAY_MS = 5000
/** The longest a flush computes answers before it commits them (and, on the timer, serves requests). */
const SLICE_MS = 5
/**
 * File times have coarse ticks: a write this close before the answers were stored may carry a time
 * earlier than a write after them, so such a file is not trusted to have been seen.
 */
const SETTLE_MS = 1000
/** How long after a clean close the checkpoint worker (checkpoints.ts, rounds of 100 ms) may still write. */
const CLOSING_GRACE_MS = 2000
const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve))

export class DueIndex {
  private readonly sources = new Map<string, DueWorkSource>()
  private readonly written = new Set<string>()
  /** Tenants whose answers this process stored: their files' times since are its own. */
  private readonly answered = new Set<string>()
  private timer: ReturnType<typeof setTimeout> | null = null
  private checked: Promise<void> | null = null
  private closing = false

  constructor(
    private readonly control: ControlDb,
    private readonly pool: TenantPool,
    private readonly log: Logger,
  ) {}

  register(source: DueWorkSource): void {
    if (this.sources.has(source.job)) throw new Error(`due work of "${source.job}" is already registered`)
    this.sources.set(source.job, source)
  }

  /** A write to the tenant committed: its answers are computed soon. */
  committed(tenantId: string): void {
    this.written.add(tenantId)
    this.storeLater()
  }

  /**
   * Computes now the answers of every tenant written since the last flush; those of a slice the
   * control database refused wait for the next try.
   */
  flush(): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    while (this.written.size > 0 && this.storeSlice()) {
      // A slice at a time, each its own control write.
    }
  }

  private storeLater(): void {
    if (this.closing || this.timer) return
    this.timer = setTimeout(() => {
      this.timer = null
      void this.storeWritten()
    }, FLUSH_DELAY_MS)
  }

  /**
   * Computes the pending answers a slice at a time, the event loop served between slices, so that
   * the tenants a host's traffic wrote do not stall its requests (or, in the primary, its workers'
   * messages and the checkpoints) for the whole computation. Each slice stores what it took before
   * it yields: once this resolves, every answer pending when it was called is stored, unless the
   * control database refused the write.
   */
  private async storeWritten(): Promise<void> {
    while (this.written.size > 0) {
      if (!this.storeSlice()) return
      if (this.written.size > 0) await yieldToEventLoop()
    }
  }

  /**
   * Stores the answers of written tenants for up to SLICE_MS, in one control write: one commit for
   * many tenants (a commit per tenant was a third of the work), the control database's write lock
   * held no longer than a slice (an HTTP worker's rate limits write it too). False when the control
   * database refused the write (busy past its timeout): the slice's tenants wait for the next try.
   */
  private storeSlice(): boolean {
    const sources = [...this.sources.values()]
    const taken: string[] = []
    const stored: string[] = []
    const failed: { tenantId: string; error: unknown }[] = []
    const started = performance.now()
    try {
      inWriteTransaction(this.control, (tx) => {
        for (const tenantId of this.written) {
          this.written.delete(tenantId)
          taken.push(tenantId)
          try {
            const answers = this.answersOf(tenantId, sources)
            for (const [job, dueAt] of answers) this.upsert(tx, tenantId, job, dueAt)
            stored.push(tenantId)
          } catch (error) {
            failed.push({ tenantId, error })
          }
          if (performance.now() - started >= SLICE_MS) break
        }
      })
    } catch (error) {
      for (const tenantId of taken) this.written.add(tenantId)
      this.log.warn('due work not stored: the control database refused the write; tried again later', {
        tenants: this.written.size,
        error: error instanceof Error ? error.message : String(error),
      })
      this.storeLater()
      return false
    }
    for (const tenantId of stored) this.answered.add(tenantId)
    for (const { tenantId, error } of failed) {
      this.log.warn('due work not computed after a write: the tenant is visited by every job', {
        tenantId,
        error: error instanceof Error ? error.message : String(error),
      })
      try {
        this.forget(tenantId)
      } catch {
        // The control database is gone too (closed): the next process finds the file newer.
      }
    }
    return true
  }

  /** The next read of the index checks every tenant's files again (see above). */
  checkFilesAgain(): void {
    this.checked = null
  }

  /** After a visit by `job`: its answer for the tenant, computed on `db`. */
  visited(tenant: Tenant, db: Db, job: string): void {
    const source = this.sources.get(job)
    if (!source) throw new Error(`no due work registered for "${job}"`)
    inWriteTransaction(this.control, (tx) => this.upsert(tx, tenant.id, job, source.nextWork(tenant, db)))
    this.answered.add(tenant.id)
  }

  /** Drops the tenant's answers: every job visits it once (its file was replaced, or it is gone). */
  forget(tenantId: string): void {
    this.control.delete(tenantDueWork).where(eq(tenantDueWork.tenantId, tenantId)).run()
  }

  /**
   * The active tenants `job` must visit now: their answer is due, or they have none. Computes the
   * pending answers first, and on a process's first call checks every tenant's files.
   */
  async due(job: string): Promise<Tenant[]> {
    // After the flush: an answer it stored as "now" is due.
    const scheduled = await this.scheduled(job)
    const now = Date.now()
    return scheduled.filter((entry) => entry.dueAt <= now).map((entry) => entry.tenant)
  }

  /**
   * Every active tenant with work for `job` at some time, and when (0: it has no answer yet, visit
   * it now): for a worker that keeps its own timetable (webhook delivery).
   */
  async scheduled(job: string): Promise<{ tenant: Tenant; dueAt: number }[]> {
    this.checked ??= this.checkFiles()
    await this.checked
    await this.storeWritten()
    return this.control
      .select({ tenant: tenants, dueAt: sql<number>`coalesce(${tenantDueWork.dueAt}, 0)` })
      .from(tenants)
      .leftJoin(tenantDueWork, and(eq(tenantDueWork.tenantId, tenants.id), eq(tenantDueWork.job, job)))
      .where(
        and(eq(tenants.status, 'active'), or(isNull(tenantDueWork.tenantId), isNotNull(tenantDueWork.dueAt))),
      )
      .orderBy(asc(tenants.id))
      .all()
  }

  /** When `job` next has work for the tenant, as stored; undefined when not known. */
  answer(tenantId: string, job: string): NextWork | undefined {
    const row = this.control
      .select({ dueAt: tenantDueWork.dueAt })
      .from(tenantDueWork)
      .where(and(eq(tenantDueWork.tenantId, tenantId), eq(tenantDueWork.job, job)))
      .get()
    return row ? row.dueAt : undefined
  }

  /** Stores the pending answers; the connections stay open (`close` follows theirs). */
  beginClose(): void {
    // Closing first: a control write refused now is not tried again later.
    this.closing = true
    this.flush()
  }

  /**
   * Once every connection is closed (closing one checkpoints its WAL into the file): the files of
   * the tenants this process answered for are marked as seen until a little after now, so the
   * next process does not take this one's writes and checkpoints for someone else's. (Their files
   * are this process's to write while it serves: a restore in place refuses to run beside it. The
   * checkpoint worker may finish a last round on them after this: CLOSING_GRACE_MS.) A tenant
   * written after `beginClose` keeps its older answers: the next process visits it.
   */
  close(): void {
    const seenUntil = Date.now() + CLOSING_GRACE_MS + SETTLE_MS
    for (const tenantId of this.answered) {
      if (this.written.has(tenantId)) continue
      this.control
        .update(tenantDueWork)
        .set({ indexedAt: sql`max(${tenantDueWork.indexedAt}, ${seenUntil})` })
        .where(eq(tenantDueWork.tenantId, tenantId))
        .run()
    }
  }

  /** Every job's answer for the tenant, all computed before any is stored; none for a tenant gone. */
  private answersOf(tenantId: string, sources: DueWorkSource[]): [string, NextWork][] {
    // On the control connection, inside the slice's write transaction.
    const tenant = findTenantById(this.control, tenantId)
    if (!tenant) return []
    const handle = this.pool.hold(tenantId)
    try {
      return sources.map((source) => [source.job, source.nextWork(tenant, handle.db)])
    } finally {
      this.pool.release(handle)
    }
  }

  private upsert(tx: Queryable, tenantId: string, job: string, dueAt: NextWork) {
    preparedOn(tx, 'due-index-upsert', () =>
      tx
        .insert(tenantDueWork)
        .values({
          tenantId: sql.placeholder('tenantId'),
          job: sql.placeholder('job'),
          dueAt: sql.placeholder('dueAt'),
          indexedAt: sql.placeholder('indexedAt'),
        })
        .onConflictDoUpdate({
          target: [tenantDueWork.tenantId, tenantDueWork.job],
          set: { dueAt: sql`excluded.due_at`, indexedAt: sql`excluded.indexed_at` },
        })
        .prepare(),
    ).run({ tenantId, job, dueAt, indexedAt: Date.now() })
  }

  /** Drops the answers of every tenant whose files were modified after they were stored. */
  private async checkFiles(): Promise<void> {
    const rows = this.control
      .select({ tenantId: tenantDueWork.tenantId, indexedAt: sql<number>`min(${tenantDueWork.indexedAt})` })
      .from(tenantDueWork)
      .groupBy(tenantDueWork.tenantId)
      .all()
    const stale: string[] = []
    for (const [i, { tenantId, indexedAt }] of rows.entries()) {
      if (i % 500 === 499) await yieldToEventLoop()
      const modifiedAt = newestModification(this.pool.databasePath(tenantId))
      if (modifiedAt !== null && modifiedAt > indexedAt - SETTLE_MS) stale.push(tenantId)
    }
    for (const tenantId of stale) this.forget(tenantId)
    if (stale.length > 0)
      this.log.info('due work of tenants written elsewhere: visited again', { tenants: stale.length })
  }
}

/**
 * When the database file, or its WAL if it has frames, was last modified (epoch ms); null when the
 * file is gone. An empty WAL is what opening a connection leaves (SQLite creates one), not a write.
 */
function newestModification(path: string): number | null {
  const database = statSync(path, { throwIfNoEntry: false })
  if (!database) return null
  const wal = statSync(`${path}-wal`, { throwIfNoEntry: false })
  return Math.max(database.mtimeMs, wal && wal.size > 0 ? wal.mtimeMs : 0)
}
