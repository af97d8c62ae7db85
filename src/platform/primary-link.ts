// A worker's line to its primary (WORKERS > 1: src/cli/workers.ts). The primary runs what must
// run once per data directory (the jobs, webhook delivery, Litestream); a worker serves HTTP and
// tells the primary what its writes ask of that work, over the IPC channel Bun.spawn opened:
//   - the tenants written, whose due work the primary's index then stores (jobs/due-index.ts):
//     computing it took the worker's request thread 5-10 ms a written tenant each second, the
//     longest stall in its write tail (bench/README.md, twentieth pass);
//   - a job asked to run soon (`Scheduler.trigger`, e.g. a club release's processing);
//   - a tenant with events to deliver (the outbox's append hint);
//   - the databases written, for Litestream's lag when it replicates.
// They go in one message once the writes that asked for them have committed, so that the primary's run
// finds them, and the tenants written go first: the run a trigger asks for finds them due (an
// import's, which would otherwise wait for the job's 30 s interval). The primary sends back, every
// second and on each change, what /health shows: its jobs, the workers, the start-up work still to
// do and Litestream's state.
import type { JobStatus } from './jobs/scheduler'
import { commitsPending } from './tenancy/transaction'

/** The shortest time between two messages of a worker's commits (see `flushSoon`). */
const FLUSH_MS = 20

export interface WorkerState {
  id: number
  pid: number
  state: 'starting' | 'serving' | 'stopping' | 'dead'
  startedAt: string
  /** Times the primary started it again after it died. */
  restarts: number
}

export interface PrimaryStatus {
  jobs: JobStatus[]
  workers: WorkerState[]
  startupWork: string[]
  replication: string | null
}

/** What this worker's commits since the last message ask of the primary, in the order it takes them. */
export interface AfterCommits {
  type: 'after-commits'
  /** Tenants written: their due work. */
  written: string[]
  /** Jobs asked to run soon. */
  triggers: string[]
  /** Tenants with events to deliver. */
  wakes: string[]
  /** Database files written, for Litestream's lag. */
  paths: string[]
}

export type ToPrimary = { type: 'listening'; port: number } | AfterCommits

export type ToWorker = { type: 'status'; status: PrimaryStatus }

export class PrimaryLink {
  private latest: PrimaryStatus = { jobs: [], workers: [], startupWork: [], replication: null }
  private readonly written = new Set<string>()
  private readonly triggers = new Set<string>()
  private readonly wakes = new Set<string>()
  private readonly paths = new Set<string>()
  private flushing = false
  private lastFlushAt = -Infinity
  /** Called with each status the primary sends. */
  onStatus: (status: PrimaryStatus) => void = () => {}

  constructor(
    readonly workerId: number,
    private readonly send: (message: ToPrimary) => void,
  ) {}

  received(message: ToWorker): void {
    if (message.type !== 'status') return
    this.latest = message.status
    this.onStatus(message.status)
  }

  status(): PrimaryStatus {
    return this.latest
  }

  listening(port: number): void {
    this.send({ type: 'listening', port })
  }

  /** A write to the tenant committed (or created it): the primary stores its due work. */
  tenantWritten(tenantId: string): void {
    this.written.add(tenantId)
    this.flushSoon()
  }

  trigger(job: string): void {
    this.triggers.add(job)
    this.flushSoon()
  }

  wake(tenantId: string): void {
    this.wakes.add(tenantId)
    this.flushSoon()
  }

  committed(path: string): void {
    this.paths.add(path)
    this.flushSoon()
  }

  /**
   * Once this turn's group has committed (what the primary then reads is on disk), and at most
   * every FLUSH_MS: one message for all. A message a kind after each commit cost a worker writing
   * one tenant 3% of its time in `send`, ~60 µs a call (bench/README.md, twenty-first pass); what
   * the primary does with them waits a second or more anyway, a delivery's wake aside.
   */
  private flushSoon(): void {
    if (this.flushing) return
    this.flushing = true
    const wait = Math.max(0, this.lastFlushAt + FLUSH_MS - performance.now())
    const flush = async () => {
      const message: AfterCommits = {
        type: 'after-commits',
        written: [...this.written],
        triggers: [...this.triggers],
        wakes: [...this.wakes],
        paths: [...this.paths],
      }
      this.written.clear()
      this.triggers.clear()
      this.wakes.clear()
      this.paths.clear()
      this.flushing = false
      this.lastFlushAt = performance.now()
      await commitsPending()?.catch(() => {})
      this.send(message)
    }
    if (wait === 0) setImmediate(flush)
    else setTimeout(flush, wait)
  }
}
