// The primary's HTTP workers (WORKERS > 1). `serve` runs as a primary that holds what must be single
// per data directory (the scheduler and its jobs, webhook delivery, Litestream, the serve lock) and
// starts WORKERS processes of the same command that serve HTTP on one port (SO_REUSEPORT: the
// kernel spreads connections between them). What they share lives in the data directory: the
// databases, the principals' change signals (auth-signals.ts) and the rate-limit windows
// (rate-limit.ts). What a worker's writes ask of the primary goes over the IPC channel
// (platform/primary-link.ts).
//
// A worker that dies is started again. A worker goes when its primary does: the channel closes when
// the primary exits, even by kill -9, and the worker exits at once, so no orphan keeps the port.
// SIGTERM drains every worker before the primary stops its jobs.
import type { Subprocess } from 'bun'
import { type Config, WORKER_ID_VARIABLE } from '../config'
import type { Platform } from '../platform/platform'
import type { PrimaryStatus, ToPrimary, ToWorker, WorkerState } from '../platform/primary-link'

/** How often the primary tells its workers its status (/health's jobs and workers). */
const STATUS_INTERVAL_MS = 1000
/** A worker that dies this soon after it started is started again after a growing pause. */
const QUICK_DEATH_MS = 5000
const MAX_RESTART_DELAY_MS = 5000

/**
 * The primary's share of the pool when there are workers: its jobs visit only the tenants due, one
 * after another (~340 connections of the 4 GiB default). At an eighth, each of two workers held
 * 4,880 connections where its 5,000 tenants of 10,000 did not fit (bench/README.md, eleventh pass).
 */
const PRIMARY_POOL_SHARE = 1 / 32

/**
 * A process's share of the pool: TENANT_POOL_MEMORY (and TENANT_POOL_SIZE) less a share for the
 * primary, whose jobs open the tenants they visit, split evenly between the workers, each of which
 * holds its share of the tenants (platform/http/worker-affinity.ts). Split evenly with the primary,
 * two workers held 3,728 connections each where they could hold 5,461 (bench/README.md, tenth pass).
 */
export function poolShare(config: Config, role: 'primary' | 'worker'): Config {
  if (config.workers <= 1) return config
  const share = role === 'primary' ? PRIMARY_POOL_SHARE : (1 - PRIMARY_POOL_SHARE) / config.workers
  return {
    ...config,
    tenantPoolMemory: Math.floor(config.tenantPoolMemory * share),
    tenantPoolSize:
      config.tenantPoolSize === undefined ? undefined : Math.max(1, Math.ceil(config.tenantPoolSize * share)),
  }
}

/** The command that started this process: the source under Bun, or the compiled binary. */
function serveCommand(): string[] {
  const compiled = Bun.main.startsWith('/$bunfs/')
  return compiled ? [process.execPath, 'serve'] : [process.execPath, Bun.main, 'serve']
}

interface Worker {
  state: WorkerState
  process: Subprocess
  listening: PromiseWithResolvers<number>
  /** Restarts one after another that died soon after starting. */
  quickDeaths: number
}

export class WorkerProcesses {
  private readonly workers = new Map<number, Worker>()
  private port = 0
  private stopping = false
  private readonly timer: ReturnType<typeof setInterval>

  constructor(
    private readonly platform: Platform,
    private readonly count: number,
  ) {
    this.timer = setInterval(() => this.tell(), STATUS_INTERVAL_MS)
  }

  /** Starts every worker on `port`, the primary's; resolves once all listen. */
  async start(port: number): Promise<void> {
    this.port = port
    await Promise.all(Array.from({ length: this.count }, (_, i) => this.spawn(i + 1, 0, port)))
  }

  status(): WorkerState[] {
    return [...this.workers.values()].map((worker) => ({ ...worker.state }))
  }

  /**
   * Drains every worker (each stops as a single `serve` does on SIGTERM) and waits for them: true
   * when every one stopped cleanly.
   */
  async stop(): Promise<boolean> {
    this.stopping = true
    clearInterval(this.timer)
    const exits = [...this.workers.values()].map((worker) => {
      worker.state.state = 'stopping'
      worker.process.kill('SIGTERM')
      return worker.process.exited
    })
    return (await Promise.all(exits)).every((code) => code === 0)
  }

  /** At once, at the end of a shutdown that took too long. */
  kill(): void {
    this.stopping = true
    for (const worker of this.workers.values()) worker.process.kill('SIGKILL')
  }

  private spawn(id: number, restarts: number, port: number): Promise<number> {
    const { config, log } = this.platform
    const listening = Promise.withResolvers<number>()
    const child = Bun.spawn(serveCommand(), {
      env: { ...process.env, [WORKER_ID_VARIABLE]: String(id), PORT: String(port) },
      stdio: ['ignore', 'inherit', 'inherit'],
      ipc: (message: ToPrimary) => this.received(worker, message),
    })
    const worker: Worker = {
      state: { id, pid: child.pid, state: 'starting', startedAt: new Date().toISOString(), restarts },
      process: child,
      listening,
      quickDeaths: this.workers.get(id)?.quickDeaths ?? 0,
    }
    this.workers.set(id, worker)
    void child.exited.then((code) => this.exited(worker, code))
    log.info('worker started', { worker: id, pid: child.pid, port: port || config.port })
    return listening.promise
  }

  private received(worker: Worker, message: ToPrimary): void {
    const { jobs, webhooks, replication, dueIndex, pool } = this.platform
    switch (message.type) {
      case 'listening':
        worker.state.state = 'serving'
        worker.listening.resolve(message.port)
        this.tell()
        return
      case 'after-commits':
        for (const tenantId of message.written) {
          dueIndex.committed(tenantId)
          pool.writtenElsewhere(tenantId)
        }
        for (const job of message.triggers) jobs.trigger(job)
        for (const tenantId of message.wakes) webhooks.wake(tenantId)
        for (const path of message.paths) replication?.noteWrite(path)
    }
  }

  private exited(worker: Worker, code: number): void {
    const { log } = this.platform
    if (this.workers.get(worker.state.id) !== worker) return
    const listened = worker.state.state !== 'starting'
    worker.state.state = 'dead'
    if (this.stopping) return
    // A first start that never listened takes `serve` down: its port or its settings are wrong.
    if (!listened && worker.state.restarts === 0) {
      worker.listening.reject(
        new Error(`worker ${worker.state.id} exited with code ${code} before listening`),
      )
      return
    }
    const lived = Date.now() - Date.parse(worker.state.startedAt)
    worker.quickDeaths = lived < QUICK_DEATH_MS ? worker.quickDeaths + 1 : 0
    const delay = worker.quickDeaths === 0 ? 0 : Math.min(MAX_RESTART_DELAY_MS, 100 * 2 ** worker.quickDeaths)
    log.error('worker died: starting it again', { worker: worker.state.id, code, delayMs: delay })
    // Its last writes may not have been told: the tenants whose files changed since are visited.
    this.platform.dueIndex.checkFilesAgain()
    this.tell()
    setTimeout(() => {
      if (this.stopping) return
      this.spawn(worker.state.id, worker.state.restarts + 1, this.port).catch((error) =>
        log.error('worker could not start again', { worker: worker.state.id, error: String(error) }),
      )
    }, delay)
  }

  /** Sends the workers what /health shows. */
  private tell(): void {
    const { jobs, startupWork, replication } = this.platform
    const status: PrimaryStatus = {
      jobs: jobs.status(),
      workers: this.status(),
      startupWork: [...startupWork],
      replication: replication?.status().state ?? null,
    }
    const message: ToWorker = { type: 'status', status }
    for (const worker of this.workers.values()) {
      if (worker.state.state !== 'serving') continue
      try {
        worker.process.send(message)
      } catch {
        // It is exiting: `exited` follows.
      }
    }
  }
}
