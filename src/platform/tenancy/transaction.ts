import type { Database, Statement } from 'bun:sqlite'
import type { BaseSQLiteDatabase } from 'drizzle-orm/sqlite-core'
import { withoutWaiting } from './busy-timeout'
import type { Db } from './sqlite'

/** A tenant database or a transaction on it: what services query through. */
export type Queryable = BaseSQLiteDatabase<'sync', void>

/**
 * Something a connection's write transactions are watched for: `read` is called at the start and
 * at the end of each transaction (inside it), and `changed` after a commit that moved the value.
 * The auth version uses it to tell other requests and processes that cached principals are stale.
 */
export interface CommitWatch {
  read(): number
  changed(): void
}

const watches = new WeakMap<Database, CommitWatch>()
const gates = new WeakMap<Database, () => void>()
const commitListeners = new WeakMap<Database, (() => void)[]>()
const commitWork = new WeakMap<Database, CommitWork>()

/** The SQLite connection under a database or transaction handle. */
export const sqliteOf = (handle: Queryable): Database =>
  (handle as unknown as { session: { client: Database } }).session.client

export function watchCommits(sqlite: Database, watch: CommitWatch): void {
  watches.set(sqlite, watch)
}

/**
 * `listener` runs after each write transaction of the connection commits (checkpoints.ts, the due
 * work of jobs: platform/jobs/due-index.ts).
 */
export function afterEachCommit(sqlite: Database, listener: () => void): void {
  const listeners = commitListeners.get(sqlite)
  if (listeners) listeners.push(listener)
  else commitListeners.set(sqlite, [listener])
}

function committed(sqlite: Database): void {
  for (const listener of commitListeners.get(sqlite) ?? []) listener()
}

interface CommitWork {
  db: Db
  work: (tx: Queryable) => void
  failed: (error: unknown) => void
}

/**
 * `work` runs inside each write transaction of `db`'s connection (each group's, when it groups
 * commits) just before it commits, in a savepoint of its own: when it throws, its writes are
 * rolled back, `failed` is told, and the transaction commits without them (webhook fan-out:
 * platform/events/delivery.ts).
 */
export function beforeEachCommit(
  db: Db,
  work: (tx: Queryable) => void,
  failed: (error: unknown) => void,
): void {
  commitWork.set(db.$client, { db, work, failed })
}

function runBeforeCommit(sqlite: Database): void {
  const registered = commitWork.get(sqlite)
  if (!registered) return
  // From the connection's statement cache: this runs at every commit.
  sqlite.query('SAVEPOINT before_commit').run()
  try {
    registered.work(registered.db)
    sqlite.query('RELEASE before_commit').run()
  } catch (error) {
    if (sqlite.inTransaction) sqlite.exec('ROLLBACK TO before_commit; RELEASE before_commit')
    registered.failed(error)
  }
}

/**
 * `gate` runs before each write transaction on the connection and throws to refuse it: a cluster
 * node refuses writes to a tenant it cannot prove it owns (platform/cluster/node.ts).
 */
export function gateWrites(sqlite: Database, gate: () => void): void {
  gates.set(sqlite, gate)
}

// Group commit (GROUP_COMMIT, servers only). A commit's cost is mostly writing the pages it
// dirtied to the WAL; writes that arrive together dirty many of the same pages (the ends of the
// audit chain, the outbox, each table's newest rows). On a connection that groups commits, the
// write transactions of one turn of the event loop run as savepoints of one BEGIN IMMEDIATE
// transaction, committed once the turn is over. Each keeps its own all-or-nothing: a failing one
// rolls back to its savepoint. Nothing is acknowledged before the commit: every response waits
// for `commitsPending()` (platform/http/conventions.ts), and a failed commit fails every request
// of the group. Connections close only after committing (`commitNow`).

interface CommitGroup {
  sqlite: Database
  /** Requests that took a turn at writing in this group (`writeTurn`) and have not finished their handler. */
  holders: number
  done: Promise<void>
  resolve: () => void
  reject: (error: unknown) => void
  /** Whether a write of the group moved the watched value (the auth version): signal again after the commit. */
  moved: boolean
}

interface UnitStatements {
  begin: Statement
  savepoint: Statement
  release: Statement
  rollbackTo: Statement
  commit: Statement
  /** The connection's busy_timeout, restored after a BEGIN that may not wait. */
  busyTimeoutMs: number
  waiters: LockWaiters
  /** Each unit of write work commits at its end instead of with its turn's group (`groupCommits`). */
  atOnce: boolean
}

/** Other processes' waits for a connection's write lock (platform/tenancy/write-waits.ts). */
export interface LockWaiters {
  /** Whether another process waits for the lock now. */
  wanted(): boolean
  /** This process waits for it. */
  want(): void
  /** This process took it, or gave up. */
  stopWanting(): void
  /** The lock is free: the process waiting for it, if any, tries now. */
  wake(): void
}

const noWaiters: LockWaiters = { wanted: () => false, want() {}, stopWanting() {}, wake() {} }

/** Connections that group their commits, with their busy_timeout and the waits for their lock. */
const grouping = new WeakMap<Database, { busyTimeoutMs: number; waiters: LockWaiters; atOnce: boolean }>()
/** Their statements for groups, made on first use. */
const unitStatements = new WeakMap<Database, UnitStatements>()
const openGroups = new Map<Database, CommitGroup>()
/** Connections running a unit of write work now: a nested call joins it. */
const inUnit = new WeakSet<Database>()

/**
 * Makes the connection group its write transactions (see above); `busyTimeoutMs` is its
 * busy_timeout, `waiters` the other processes' waits for its file's write lock. `atOnce`: each
 * unit of write work commits at its end, as without groups, but takes the lock as a group does,
 * in turn with the other processes (the primary of HTTP workers: its jobs' writes waited on
 * SQLite's own busy handler, which sleeps up to 100 ms between tries, and two workers handing the
 * lock to each other starved them for seconds: webhook fan-out failed with "database is locked").
 */
export function groupCommits(
  sqlite: Database,
  busyTimeoutMs: number,
  waiters: LockWaiters = noWaiters,
  atOnce = false,
): void {
  grouping.set(sqlite, { busyTimeoutMs, waiters, atOnce })
}

/**
 * The connection's statements for groups, from its own statement cache (`query`): SQLite finalizes
 * those when the connection closes. A `prepare`d statement left unfinalized keeps a closed
 * connection's memory (its schema and page cache, ~400 KB) until the statement is collected: the
 * pool's evictions grew the process by hundreds of MB.
 */
function statementsOf(sqlite: Database): UnitStatements | undefined {
  let statements = unitStatements.get(sqlite)
  if (!statements) {
    const settings = grouping.get(sqlite)
    if (!settings) return undefined
    statements = {
      begin: sqlite.query('BEGIN IMMEDIATE'),
      savepoint: sqlite.query('SAVEPOINT write_unit'),
      release: sqlite.query('RELEASE write_unit'),
      rollbackTo: sqlite.query('ROLLBACK TO write_unit'),
      commit: sqlite.query('COMMIT'),
      ...settings,
    }
    unitStatements.set(sqlite, statements)
  }
  return statements
}

/** Settles once every group of writes open now has committed (rejects if one failed), or undefined when none is open. */
export function commitsPending(): Promise<void> | undefined {
  if (openGroups.size === 0) return undefined
  const groups = [...openGroups.values()]
  return groups.length === 1 ? groups[0]!.done : Promise.all(groups.map((group) => group.done)).then(() => {})
}

/**
 * Settles once no group of writes is open on `db`'s connection, so that what it reads next is all
 * committed (a group that fails to commit is not this caller's failure).
 */
export async function outsideOpenGroups(db: Db): Promise<void> {
  for (let group = openGroups.get(db.$client); group; group = openGroups.get(db.$client))
    await group.done.catch(() => {})
}

/**
 * Commits the connection's open group now (before it closes; harmless when none is open). Returns
 * the error of a commit that failed, which also rejects the group.
 */
export function commitNow(sqlite: Database): unknown {
  const group = openGroups.get(sqlite)
  if (!group) return undefined
  openGroups.delete(sqlite)
  try {
    runBeforeCommit(sqlite)
    unitStatements.get(sqlite)!.commit.run()
  } catch (error) {
    if (sqlite.inTransaction) sqlite.exec('ROLLBACK')
    group.reject(error)
    return error
  }
  // The listeners first: a checkpoint's last step takes the lock just released (checkpoints.ts).
  committed(sqlite)
  unitStatements.get(sqlite)!.waiters.wake()
  if (group.moved) watches.get(sqlite)?.changed()
  group.resolve()
  return undefined
}

const isBusy = (error: unknown) =>
  typeof (error as { code?: unknown }).code === 'string' &&
  (error as { code: string }).code.startsWith('SQLITE_BUSY')

/**
 * BEGIN IMMEDIATE, with the transaction's savepoint journal in memory. Each unit of a group is a
 * savepoint, and SQLite keeps the pages a savepoint changed, to roll back to it, in a journal that
 * moves to a temporary file past 64 KB: a unit writing one record with its audit entry and event
 * changes some sixteen pages, so every group opened a file and wrote each unit's pages to it
 * again, a fifth of the units' time (bench/README.md). SQLite places that journal when the
 * transaction begins; the setting goes back at once, so that a large sort in the group still
 * spills to disk rather than grow in memory. The journal holds at most a unit's changed pages.
 * Executed, not prepared once: SQLite applies temp_store when it compiles the pragma.
 */
function beginImmediate(sqlite: Database, statements: UnitStatements): void {
  sqlite.exec('PRAGMA temp_store = MEMORY')
  try {
    statements.begin.run()
  } finally {
    sqlite.exec('PRAGMA temp_store = DEFAULT')
  }
}

/**
 * BEGIN IMMEDIATE if the file's write lock is free now: undefined once begun, or SQLite's busy
 * error when another connection holds the lock.
 */
function tryBegin(sqlite: Database, statements: UnitStatements): unknown {
  return withoutWaiting(sqlite, statements.busyTimeoutMs, () => {
    try {
      beginImmediate(sqlite, statements)
      return undefined
    } catch (error) {
      if (!isBusy(error)) throw error
      return error
    }
  })
}

/**
 * BEGIN IMMEDIATE, never waiting for the lock while this process holds another: waiting blocks
 * the event loop, so this process's open groups could not commit, and the holder may be waiting
 * for one of them (another process writing two tenants in the other order, or another
 * connection of this process to the same file). When the lock is taken, they commit first.
 */
function beginGroup(sqlite: Database, statements: UnitStatements): void {
  if (openGroups.size > 0) {
    if (tryBegin(sqlite, statements) === undefined) return
    for (const held of [...openGroups.keys()]) commitNow(held)
  }
  beginWaiting(sqlite, statements)
}

/** What a blocked BEGIN sleeps between tries: short, as the holder commits within its turn. */
const FIRST_PAUSE_MS = 0.05
const LONGEST_PAUSE_MS = 1
const pauses = new Int32Array(new SharedArrayBuffer(4))

/**
 * BEGIN IMMEDIATE, waiting up to the connection's busy_timeout for another process (an HTTP worker
 * of the same `serve`, the command line) to commit. SQLite's own wait sleeps 1, 2, 5, 10, 15, 20,
 * 25 ms and on between tries, long beside a group that commits within one turn of its process's
 * event loop: two workers writing one tenant lost most of their time asleep (a write p99 of
 * 870 ms in the bench, bench/README.md). This one tries again after 50 µs, doubling up to 1 ms,
 * and says it waits (`LockWaiters.want`), so that a holder commits as soon as it can and does
 * not take the lock again before this process.
 */
function beginWaiting(sqlite: Database, statements: UnitStatements): void {
  withoutWaiting(sqlite, statements.busyTimeoutMs, () => {
    let busy: unknown
    const begun = inTurnWithOtherProcesses(
      sqlite,
      () => {
        try {
          beginImmediate(sqlite, statements)
          return true
        } catch (error) {
          if (!isBusy(error)) throw error
          busy = error
          return false
        }
      },
      statements.busyTimeoutMs,
    )
    if (!begun) throw busy
  })
}

/**
 * Runs `step`, which takes the file's write lock (BEGIN IMMEDIATE, a WAL checkpoint's RESTART)
 * and says whether it had it, until it has or `timeoutMs` passed: again after 50 µs, doubling up
 * to 1 ms, saying meanwhile that this process waits for the lock (`LockWaiters.want`), so that
 * other processes' groups commit as soon as they can and let it go first. Blocks the event loop
 * while it waits.
 */
export function inTurnWithOtherProcesses(sqlite: Database, step: () => boolean, timeoutMs: number): boolean {
  const waiters = grouping.get(sqlite)?.waiters ?? noWaiters
  const deadline = performance.now() + timeoutMs
  try {
    for (let pause = FIRST_PAUSE_MS; ; pause = Math.min(LONGEST_PAUSE_MS, pause * 2)) {
      if (step()) return true
      if (performance.now() >= deadline) return false
      waiters.want()
      Atomics.wait(pauses, 0, 0, pause)
    }
  } finally {
    waiters.stopWanting()
  }
}

/** The group of a connection whose BEGIN IMMEDIATE just succeeded, committed once the turn is over. */
function startGroup(sqlite: Database): CommitGroup {
  let resolve!: () => void
  let reject!: (error: unknown) => void
  const done = new Promise<void>((res, rej) => {
    resolve = res
    reject = rej
  })
  // Awaited by the requests of the group; a failure with nobody waiting (a job's write) is not unhandled.
  done.catch(() => {})
  const group = { sqlite, holders: 0, done, resolve, reject, moved: false }
  openGroups.set(sqlite, group)
  setImmediate(() => commitNow(sqlite))
  return group
}

function openGroup(sqlite: Database, statements: UnitStatements): CommitGroup {
  beginGroup(sqlite, statements)
  return startGroup(sqlite)
}

// Waiting for the write lock off the event loop. While another process (an HTTP worker of the
// same `serve`, the command line) holds a file's write lock, a BEGIN that waits for it blocks this
// process: its reads and the requests of other tenants wait too, and two workers writing one
// tenant took turns being asleep (bench/README.md, ninth pass). So a request that may write (any
// method but GET and HEAD, once authenticated: platform/auth/plugin.ts) first takes a turn,
// `writeTurn`: a free lock opens the turn's group at once; a held one is tried again while the
// event loop serves other work, and the requests that arrive meanwhile wait with it, to write
// together in the group that finally begins.
//
// A group holds the lock until the end of its turn of the event loop, which batches the most
// writes when nobody else wants it. When another process waits (`LockWaiters`), the group commits
// as soon as the last request holding a turn in it has finished its handler (`leaveWriteTurn`),
// the waiter is woken, and it takes the lock before this process takes it again: the processes
// take turns, each writing the batch that arrived while it waited.

interface LockWait {
  promise: Promise<void>
  resolve: () => void
  reject: (error: unknown) => void
  deadline: number
  holders: object[]
  timer?: ReturnType<typeof setTimeout>
}

const lockWaits = new Map<Database, LockWait>()
/** The group each request holding a turn is in. */
const turnHolders = new WeakMap<object, CommitGroup>()
/** A waiter tries again this often, or at once when the holder signals (write-waits.ts). */
const LOCK_POLL_MS = 1
/** Another process waits for the lock, since before this one: it goes first. */
const BEHIND_ANOTHER = Symbol('behind another waiter')

function hold(group: CommitGroup, holder: object): void {
  group.holders++
  turnHolders.set(holder, group)
}

/**
 * `holder` (a request) is about to write through `db`: undefined when it may now (its group is
 * open, or the connection does not group commits), else a promise that settles once it may,
 * rejected with SQLite's busy error after the connection's busy_timeout. The holder leaves its
 * turn with `leaveWriteTurn` once its handler is done.
 */
export function writeTurn(db: Db, holder: object): Promise<void> | undefined {
  const sqlite = db.$client
  const statements = statementsOf(sqlite)
  if (!statements) return undefined
  const group = openGroups.get(sqlite)
  if (group) {
    hold(group, holder)
    return undefined
  }
  let waiting = lockWaits.get(sqlite)
  if (!waiting) {
    // Another process waits: it takes the lock before this one takes it again.
    if (!statements.waiters.wanted() && tryBegin(sqlite, statements) === undefined) {
      hold(startGroup(sqlite), holder)
      return undefined
    }
    waiting = waitForLock(sqlite, statements)
  }
  waiting.holders.push(holder)
  return waiting.promise
}

/** `holder`'s handler is done: the last to leave commits its group now if another process waits. */
export function leaveWriteTurn(holder: object): void {
  const group = turnHolders.get(holder)
  if (!group) return
  turnHolders.delete(holder)
  if (--group.holders > 0 || openGroups.get(group.sqlite) !== group) return
  if (unitStatements.get(group.sqlite)!.waiters.wanted()) commitNow(group.sqlite)
}

function waitForLock(sqlite: Database, statements: UnitStatements): LockWait {
  let resolve!: () => void
  let reject!: (error: unknown) => void
  const promise = new Promise<void>((res, rej) => {
    resolve = res
    reject = rej
  })
  const waiting: LockWait = {
    promise,
    resolve,
    reject,
    deadline: performance.now() + statements.busyTimeoutMs,
    holders: [],
  }
  lockWaits.set(sqlite, waiting)
  nextPoll(sqlite, statements, waiting)
  return waiting
}

function nextPoll(sqlite: Database, statements: UnitStatements, waiting: LockWait): void {
  clearTimeout(waiting.timer)
  waiting.timer = setTimeout(() => pollLock(sqlite, statements), LOCK_POLL_MS)
}

/**
 * A checkpoint's last step let the file's write lock go (checkpoints.ts: the worker thread's, or
 * the primary's taken in turn): the process waiting for it, if another, and this one's wait try now.
 */
export function writeLockFreed(sqlite: Database): void {
  const statements = statementsOf(sqlite)
  if (!statements) return
  statements.waiters.wake()
  pollLock(sqlite, statements)
}

/** Another process has committed: every wait for a lock tries now. */
export function pollWaitingLocks(): void {
  for (const sqlite of [...lockWaits.keys()]) pollLock(sqlite, statementsOf(sqlite)!)
}

function pollLock(sqlite: Database, statements: UnitStatements): void {
  const waiting = lockWaits.get(sqlite)
  if (!waiting) return
  const { waiters } = statements
  let busy: unknown
  try {
    // A write of this process (a job's) may have opened the group meanwhile, waiting as it does.
    if (openGroups.has(sqlite)) busy = undefined
    else if (waiters.wanted() && performance.now() < waiting.deadline) busy = BEHIND_ANOTHER
    else busy = tryBegin(sqlite, statements)
  } catch (error) {
    busy = error
  }
  const stillWaiting = busy !== undefined && (busy === BEHIND_ANOTHER || isBusy(busy))
  if (stillWaiting && performance.now() < waiting.deadline) {
    if (busy !== BEHIND_ANOTHER) waiters.want()
    nextPoll(sqlite, statements, waiting)
    return
  }
  clearTimeout(waiting.timer)
  lockWaits.delete(sqlite)
  waiters.stopWanting()
  if (busy !== undefined) {
    waiting.reject(busy)
    return
  }
  const group = openGroups.get(sqlite) ?? startGroup(sqlite)
  for (const holder of waiting.holders) hold(group, holder)
  waiting.resolve()
}

function inGroupedTransaction<T>(db: Db, statements: UnitStatements, work: (tx: Queryable) => T): T {
  const sqlite = db.$client
  gates.get(sqlite)?.()
  const group = openGroups.get(sqlite) ?? openGroup(sqlite, statements)
  const watch = watches.get(sqlite)
  const before = watch?.read()
  statements.savepoint.run()
  inUnit.add(sqlite)
  try {
    const value = work(db)
    const moved = watch !== undefined && watch.read() !== before
    statements.release.run()
    if (moved) {
      // Now, for the requests this process serves before the commit (they read through this
      // connection, so they see the change); again after the commit, for other processes.
      group.moved = true
      watch.changed()
    }
    return value
  } catch (error) {
    if (sqlite.inTransaction) {
      statements.rollbackTo.run()
      statements.release.run()
    } else {
      // SQLite rolled the whole transaction back itself (SQLITE_FULL, an I/O error): the group is lost.
      openGroups.delete(sqlite)
      group.reject(error)
    }
    throw error
  } finally {
    inUnit.delete(sqlite)
  }
}

/**
 * Runs `work` in one BEGIN IMMEDIATE transaction (or, on a connection that groups commits, one
 * savepoint of the turn's transaction). drizzle's bun-sqlite transactions are synchronous: an
 * async callback would commit at its first await, so the type refuses one. Called while the
 * connection is already in a unit of write work, `work` joins it, so an outer unit of work (an
 * idempotent request, a merge) can compose services that each write.
 */
export function inWriteTransaction<T>(
  db: Db,
  work: (tx: Queryable) => T extends Promise<unknown> ? never : T,
): T {
  const sqlite = db.$client
  if (inUnit.has(sqlite)) return work(db) as T
  const statements = statementsOf(sqlite)
  if (statements) {
    const value = inGroupedTransaction(db, statements, work as (tx: Queryable) => T)
    if (!statements.atOnce) return value
    const failed = commitNow(sqlite)
    if (failed !== undefined) throw failed
    return value
  }
  if (sqlite.inTransaction) return work(db) as T
  gates.get(sqlite)?.()
  const watch = watches.get(sqlite)
  let moved = false
  inUnit.add(sqlite)
  let result: T
  try {
    result = db.transaction(
      (tx) => {
        const before = watch?.read()
        const value = work(tx)
        moved = watch !== undefined && watch.read() !== before
        runBeforeCommit(sqlite)
        return value
      },
      { behavior: 'immediate' },
    ) as T
  } finally {
    inUnit.delete(sqlite)
  }
  committed(sqlite)
  if (moved) watch?.changed()
  return result
}

/** Whether `handle`'s connection is inside a unit of write work now (recordWrite's guard). */
export const inWriteWork = (handle: Queryable): boolean => {
  const sqlite = sqliteOf(handle)
  return inUnit.has(sqlite) || (sqlite.inTransaction && !openGroups.has(sqlite))
}

/**
 * Runs `work` on one consistent snapshot: a deferred read transaction, or, inside a transaction
 * already open on the connection (a group of writes), that transaction.
 */
export function inReadSnapshot<T>(db: Db, work: (tx: Queryable) => T): T {
  if (db.$client.inTransaction) return work(db)
  return db.transaction((tx) => work(tx), { behavior: 'deferred' }) as T
}
