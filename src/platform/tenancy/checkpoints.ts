// WAL checkpoints of tenant databases, off the request path.
//
// SQLite checkpoints inside the commit that takes the WAL past `wal_autocheckpoint` pages (1,000
// by default): that one request copies the pages into the database file and waits for its fsync,
// 18-25 ms here, on about one create in forty-five, and 40% of a create's mean time in-process.
//
// Tenant connections leave that work to a worker thread (checkpoint-worker.ts). Each write
// transaction names its file here; every ROUND_MS the files written that are due (below) go to
// the worker, which copies their WAL into the database and fsyncs it on its own connection. The
// worker cannot finish the job under steady writes: SQLite starts the WAL over only when a write
// begins with every frame copied, and the request thread keeps adding frames while the worker
// copies (a pass of 20 ms against a commit every 2 ms at 500 writes a second). So a last step
// takes the file's write lock and copies the few frames written meanwhile (RESTART), after which
// the next write starts the WAL over. The worker takes it when no group of writes holds the lock,
// and the request thread goes on serving meanwhile (its writes wait as for another process's);
// otherwise the request thread takes it after its next commit (`finish`, `restartWal`): 2-4 ms
// with its event loop blocked, five times a second at 500 writes a second (bench/README.md,
// twentieth pass). SQLite's own checkpoint stays as a backstop, far later (BACKSTOP_PAGES).
//
// HTTP workers checkpoint nothing: each tells its primary the tenants it wrote
// (platform/primary-link.ts), and the primary checkpoints their files as it does its own, taking
// the last step in turn with them (`checkpointAfterWrites`). When each worker checkpointed the
// files it wrote, two workers writing one tenant took the last step twice as often as one
// process, each with its event loop blocked, and a checkpoint at least ~3% of the time held the
// lock (bench/README.md, fifteenth pass).
//
// A file still being written is checkpointed once its WAL reaches BUSY_WAL_BYTES; below that, once
// it has not been written for QUIET_MS. Checkpointing every written file every round cost each
// of sixteen tenants written together a worker pass, an fsync and a last step on the request
// thread ten times a second: a third of their write rate (bench/README.md, sixteenth pass). At the
// first round without a write (100 ms), writes spread over 256 tenants, each written a few times a
// second, still cost a checkpoint nearly each (twenty-second pass). The checkpoint is also when
// the WAL is synced with SQLITE_SYNCHRONOUS=NORMAL: a quiet tenant's last commits survive a power
// loss within about QUIET_MS (README).
import type { Database } from 'bun:sqlite'
import type { SqliteSynchronous } from '../../config'
import { withoutWaiting } from './busy-timeout'
import type { CheckpointDone, CheckpointRequest } from './checkpoint-worker'
import { afterEachCommit, inTurnWithOtherProcesses, writeLockFreed } from './transaction'
import { walLogReaches } from './wal-log'
import { restartWalIfFree } from './wal-restart'

const ROUND_MS = 100
/** A file not written for this long is checkpointed, whatever its WAL's length. */
const QUIET_MS = 1000
export const BACKSTOP_PAGES = 20_000
/** SQLite's own threshold (1,000 pages of 4 KB): a WAL log this long is copied even while written. */
const BUSY_WAL_BYTES = 4_096_000

/** Runs on the request thread once the worker has checkpointed the file: `restarted` when it took the last step too. */
type FinishCheckpoint = (restarted: boolean) => void

interface Written {
  synchronous: SqliteSynchronous
  finish: FinishCheckpoint
  /** When it was last written (performance.now()). */
  writtenAt: number
}

let worker: Worker | undefined
const written = new Map<string, Written>()
const atWorker = new Map<string, FinishCheckpoint>()
let round: ReturnType<typeof setTimeout> | undefined

/**
 * The last step on a connection outside any transaction (see above and wal-restart.ts). RESTART
 * holds the file's write lock while it copies, so no other connection (another HTTP worker's)
 * adds frames meanwhile, and leaves the WAL to be started over by the next write. A PASSIVE
 * checkpoint here, with a group of writes open at nearly every worker reply under load, let the
 * WAL grow to the backstop (35 MB on average, 80 MB at most, whether one process wrote or two),
 * and reads slowed with it (bench/README.md, thirteenth pass). Never waits (busy_timeout 0):
 * false when another connection held the lock or still read old frames, to be tried again.
 */
export function restartWal(sqlite: Database, busyTimeoutMs: number): boolean {
  return withoutWaiting(sqlite, busyTimeoutMs, () => restartWalIfFree(sqlite))
}

/** How long the primary of HTTP workers waits for its turn at a file's write lock for the last step. */
const TURN_TIMEOUT_MS = 50

/**
 * Checkpoints the file of `sqlite`, at `path`, after each write of the connection, and after each
 * call of the function returned (another process's write: `forWorkers`, the primary of HTTP
 * workers). The last step (above) runs on the worker thread when the lock is free then; otherwise
 * here, between requests, right after the connection's next commit when a group of writes holds
 * the lock (the moment it is most likely free, before the process waiting for it is woken:
 * transaction.ts). The primary, which serves no request, waits for its turn at the lock instead,
 * so that its workers never take the step and their event loops never block on it; a turn not
 * had within TURN_TIMEOUT_MS is tried again at a later round. `isOpen`: false once the connection
 * was closed (evicted, deleted), which checkpointed it.
 */
export function checkpointAfterWrites(
  sqlite: Database,
  path: string,
  options: { synchronous: SqliteSynchronous; busyTimeoutMs: number; forWorkers: boolean },
  isOpen: () => boolean,
): () => void {
  const { synchronous, busyTimeoutMs, forWorkers } = options
  let finishAfterCommit = false
  const lastStep = () => {
    if (!forWorkers) return restartWal(sqlite, busyTimeoutMs)
    const restarted = inTurnWithOtherProcesses(
      sqlite,
      () => restartWal(sqlite, busyTimeoutMs),
      TURN_TIMEOUT_MS,
    )
    if (restarted) writeLockFreed(sqlite)
    return restarted
  }
  const finish = (restarted: boolean) => {
    if (!isOpen()) return
    if (restarted) {
      finishAfterCommit = false
      writeLockFreed(sqlite)
      return
    }
    finishAfterCommit = sqlite.inTransaction || !lastStep()
    // Not after the primary's own next commit, which may be long in coming: at a later round.
    if (finishAfterCommit && forWorkers) schedule()
  }
  const schedule = () => checkpointSoon(path, synchronous, finish)
  afterEachCommit(sqlite, () => {
    if (finishAfterCommit) finishAfterCommit = !restartWal(sqlite, busyTimeoutMs)
    schedule()
  })
  return schedule
}

/** The database file at `path` was written: checkpointed at a round once it is quiet or its WAL long (above). */
function checkpointSoon(path: string, synchronous: SqliteSynchronous, finish: FinishCheckpoint): void {
  written.set(path, { synchronous, finish, writtenAt: performance.now() })
  if (round) return
  round = setTimeout(sendRound, ROUND_MS)
  round.unref()
}

/** No checkpoint waits for its round or for the worker (tests wait for files to settle). */
export const checkpointsIdle = (): boolean => written.size === 0 && atWorker.size === 0

/**
 * The worker's entry point. In the compiled binary (`npm run build` names it as a second entry
 * point) files live under /$bunfs/root/ by their path below src/, and `import.meta.url` is the
 * binary's own.
 */
const workerUrl = () =>
  import.meta.url.startsWith('file:///$bunfs/')
    ? new URL('./platform/tenancy/checkpoint-worker.ts', import.meta.url)
    : new URL('./checkpoint-worker.ts', import.meta.url)

/** A checkpoint that fails leaves the frames for the next write's round: never worth a crash. */
function finishSafely(finish: FinishCheckpoint, restarted = false): void {
  try {
    finish(restarted)
  } catch (error) {
    console.error(`WAL checkpoint failed: ${error instanceof Error ? error.message : String(error)}`)
  }
}

/** Set when the worker could not start: rounds then checkpoint on the request thread. */
let workerFailed = false

function startWorker(): Worker {
  // One worker per process, whatever the number of platforms (tests open many); it never keeps
  // the process alive.
  const started = new Worker(workerUrl())
  started.unref()
  started.onmessage = ({ data: { path, restarted } }: MessageEvent<CheckpointDone>) => {
    const finish = atWorker.get(path)
    atWorker.delete(path)
    if (finish) finishSafely(finish, restarted)
  }
  started.onerror = (event) => {
    workerFailed = true
    console.error(`background WAL checkpoints unavailable, checkpointing between requests: ${event.message}`)
    for (const finish of atWorker.values()) finishSafely(finish)
    atWorker.clear()
  }
  return started
}

function sendRound(): void {
  round = undefined
  if (workerFailed) {
    for (const { finish } of written.values()) finishSafely(finish)
    written.clear()
    return
  }
  worker ??= startWorker()
  for (const [path, entry] of written) {
    // A file still at the worker is sent again in a later round.
    if (atWorker.has(path)) continue
    if (performance.now() - entry.writtenAt < QUIET_MS && !walLogReaches(path, BUSY_WAL_BYTES)) continue
    const { synchronous, finish } = entry
    written.delete(path)
    atWorker.set(path, finish)
    worker.postMessage({ path, synchronous } satisfies CheckpointRequest)
  }
  if (written.size > 0 && !round) {
    round = setTimeout(sendRound, ROUND_MS)
    round.unref()
  }
}
