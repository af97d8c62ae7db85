// The one in-process scheduler. Every background job of the service (webhook delivery, gift card
// deliveries, snapshots, snooze expiry, idempotency-key purge...) registers here:
//
//   platform.jobs.register({ name: 'gift-cards.deliver', intervalMs: 60_000, run: async (signal) => ... })
//
// Rules: a job never overlaps itself (the next run is timed from the end of the previous one, and
// `trigger` during a run queues exactly one more run); a failing run is logged and recorded, and
// the job keeps its schedule; `status()` reports each job's last run and last failure (for
// /health/ready); `stop()` stops scheduling, aborts the signal runs receive and waits for running
// jobs to finish, which is how graceful shutdown flushes the delivery worker.
// Jobs are registered when the platform is built (openPlatform or buildApp) and run only once
// `start()` is called: `serve` starts them; tests start them or call `runNow` themselves.
import type { Logger } from '../foundation/log'
import { commitsPending } from '../tenancy/transaction'

export interface JobDefinition {
  /** Unique, dotted by family: `webhooks.deliver`, `idempotency.purge`. */
  name: string
  /** Pause between the end of one run and the start of the next. */
  intervalMs: number
  /** Run once as soon as the scheduler starts (default true), rather than after the first interval. */
  runAtStart?: boolean
  /** The work. `signal` aborts when the scheduler stops: finish or checkpoint promptly. */
  run: (signal: AbortSignal) => Promise<void> | void
}

export interface JobStatus {
  name: string
  intervalMs: number
  running: boolean
  runs: number
  failures: number
  consecutiveFailures: number
  lastStartedAt: string | null
  lastFinishedAt: string | null
  lastSuccessAt: string | null
  lastError: string | null
  lastErrorAt: string | null
  /** When the next run is planned; null while one runs, or when the scheduler is stopped. */
  nextRunAt: string | null
}

interface Job {
  definition: JobDefinition
  status: JobStatus
  timer: ReturnType<typeof setTimeout> | null
  current: Promise<void> | null
  rerun: boolean
}

/** Where the jobs run when not here: the primary, seen from an HTTP worker (src/platform/primary-link.ts). */
export interface JobsElsewhere {
  trigger(name: string): void
  status(): { jobs: JobStatus[] }
}

export class Scheduler {
  private readonly jobs = new Map<string, Job>()
  private started = false
  private stopping = false
  private abort = new AbortController()

  /**
   * `primary`: in an HTTP worker (WORKERS > 1) the jobs run in the primary: the worker's scheduler
   * is never started, passes its triggers on and shows the primary's jobs.
   */
  constructor(
    private readonly log: Logger,
    private readonly primary: JobsElsewhere | null = null,
  ) {}

  /** Adds a job; it starts with the scheduler (or at once when the scheduler already runs). */
  register(definition: JobDefinition): void {
    if (this.jobs.has(definition.name)) throw new Error(`job "${definition.name}" is already registered`)
    if (!(definition.intervalMs > 0)) throw new Error(`job "${definition.name}" needs a positive interval`)
    const job: Job = {
      definition,
      timer: null,
      current: null,
      rerun: false,
      status: {
        name: definition.name,
        intervalMs: definition.intervalMs,
        running: false,
        runs: 0,
        failures: 0,
        consecutiveFailures: 0,
        lastStartedAt: null,
        lastFinishedAt: null,
        lastSuccessAt: null,
        lastError: null,
        lastErrorAt: null,
        nextRunAt: null,
      },
    }
    this.jobs.set(definition.name, job)
    if (this.started) this.plan(job, definition.runAtStart === false ? definition.intervalMs : 0)
  }

  get isRunning(): boolean {
    return this.started
  }

  start(): void {
    if (this.started || this.primary) return
    this.started = true
    this.stopping = false
    this.abort = new AbortController()
    const firstRuns: Job[] = []
    for (const job of this.jobs.values()) {
      if (job.definition.runAtStart === false) this.plan(job, job.definition.intervalMs)
      else firstRuns.push(job)
    }
    this.planOneAfterAnother(firstRuns)
  }

  /**
   * Plans the first runs one turn of the event loop apart, so that requests are answered between
   * them: all in one turn, a dozen jobs' first passes (their code and statements compiled on first
   * use) held a starting `serve` up for 50-70 ms here, a good part of /health/live's 100 ms
   * (tests/e2e/first-start.test.ts).
   */
  private planOneAfterAnother(jobs: Job[]): void {
    const job = jobs.shift()
    if (!job || !this.started) return
    this.plan(job, 0)
    setImmediate(() => this.planOneAfterAnother(jobs))
  }

  /** Stops scheduling and waits for running jobs to finish. */
  async stop(): Promise<void> {
    this.stopping = true
    this.started = false
    this.abort.abort()
    const running: Promise<void>[] = []
    for (const job of this.jobs.values()) {
      if (job.timer) clearTimeout(job.timer)
      job.timer = null
      job.rerun = false
      job.status.nextRunAt = null
      if (job.current) running.push(job.current)
    }
    await Promise.all(running)
  }

  /** Asks for a run soon: now if idle, right after the current run otherwise. No-op when stopped. */
  trigger(name: string): void {
    // Asked for beside a write whose group has not committed yet (a request's, whose group commits
    // after the handler's turn): a run before that commit would miss the work, since the due index
    // learns of a tenant's work only at its commit, and nothing would trigger again. The run (or
    // the message to the primary) waits for the commit.
    const pending = commitsPending()
    if (pending) {
      const again = () => this.trigger(name)
      pending.then(again, again)
      return
    }
    if (this.primary) {
      this.primary.trigger(name)
      return
    }
    const job = this.jobs.get(name)
    if (!job || !this.started) return
    if (job.current) {
      job.rerun = true
      return
    }
    this.plan(job, 0)
  }

  /** Runs a job now and waits for it (or waits for the run in progress and runs once more). */
  async runNow(name: string): Promise<void> {
    const job = this.jobs.get(name)
    if (!job) throw new Error(`no job "${name}"`)
    while (job.current) await job.current
    if (job.timer) clearTimeout(job.timer)
    job.timer = null
    await this.execute(job)
  }

  status(): JobStatus[] {
    if (this.primary) return this.primary.status().jobs
    return [...this.jobs.values()].map((job) => ({ ...job.status }))
  }

  private plan(job: Job, delayMs: number): void {
    if (this.stopping || !this.started) return
    if (job.timer) clearTimeout(job.timer)
    job.status.nextRunAt = new Date(Date.now() + delayMs).toISOString()
    job.timer = setTimeout(() => {
      job.timer = null
      if (!job.current) void this.execute(job)
    }, delayMs)
  }

  private execute(job: Job): Promise<void> {
    const { status } = job
    const signal = this.abort.signal
    const run = (async () => {
      status.running = true
      status.nextRunAt = null
      status.runs++
      status.lastStartedAt = new Date().toISOString()
      try {
        await job.definition.run(signal)
        status.consecutiveFailures = 0
        status.lastSuccessAt = new Date().toISOString()
      } catch (error) {
        status.failures++
        status.consecutiveFailures++
        status.lastError = error instanceof Error ? error.message : String(error)
        status.lastErrorAt = new Date().toISOString()
        this.log.error('job failed', {
          job: job.definition.name,
          error: error instanceof Error ? (error.stack ?? error.message) : String(error),
        })
      } finally {
        status.running = false
        status.lastFinishedAt = new Date().toISOString()
      }
    })()
    const settled = run.then(() => {
      job.current = null
      const again = job.rerun
      job.rerun = false
      this.plan(job, again ? 0 : job.definition.intervalMs)
    })
    job.current = settled
    return settled
  }
}
