// Even shares of the client connections between HTTP workers (src/cli/workers.ts). The kernel
// spreads a port's new connections between its listeners by a hash of their addresses
// (SO_REUSEPORT), and a keep-alive connection stays with the worker that took it: wrk's 32
// connections split 21/11 as easily as 16/16, and a load balancer's four pooled connections all
// land on one worker one time in eight. The worker with more serves each of them more slowly: two
// workers' read p99 was 1.16-1.20x one process's with splits of 19/13 to 21/11, and 0.91-1.13x
// once evened out (bench/README.md, fourteenth pass).
//
// So each worker counts the client connections that sent it a request in the last window and
// publishes the count in a table the workers share (`worker-connections` in DATA_DIR). A busy
// worker (BUSY_REQUESTS in the window) holding more than its fair share (the mean over the workers
// that published lately) by MIN_EXCESS or more ends that many connections: their next responses
// say `Connection: close`, the client opens a new connection, and the kernel places it afresh (a
// client sees an ordinary keep-alive close, after a complete response). The closed connections
// spread over every worker, so the excess halves each window (with two) and closing stops once
// the shares are within the margin: connections that stay do not churn. A quiet worker closes
// nothing: its connections cost it little wherever they are, and a client that keeps a few
// connections (a test's, pinned to one worker) keeps them.
import { MAX_WORKERS } from '../../config'
import { mapSharedFile, sharedClockMs } from '../foundation/shared-memory'

/** How often each worker counts and publishes its connections. */
const WINDOW_MS = 250
/** A worker that has not published for this long is gone (or stopped serving): not counted. */
const FRESH_MS = 3 * WINDOW_MS
/**
 * How far above the fair share a worker must be before it closes connections: a whole connection,
 * or an eighth of the share for many connections, so that an odd count's closest split (2/1) and
 * the counts' own noise never churn.
 */
const MIN_EXCESS = 1
const MIN_EXCESS_SHARE = 1 / 8
/** Requests in a window (400 a second) below which a worker closes nothing. */
const BUSY_REQUESTS = 100
/** A slot per worker id (1 to MAX_WORKERS). */
const SLOTS = MAX_WORKERS + 1

export class ConnectionBalance {
  private readonly published: Float64Array
  private readonly counts: Int32Array
  private seen = new Set<string>()
  private requests = 0
  /** Connections still to close in this window. */
  private toClose = 0
  private timer: ReturnType<typeof setInterval> | undefined

  /** `dataDir` null: this process alone. `clock`: milliseconds since the epoch (tests move it). */
  constructor(
    dataDir: string | null,
    private readonly workerId: number,
    private readonly clock: () => number = sharedClockMs,
  ) {
    const { buffer, byteOffset } = mapSharedFile(dataDir, 'worker-connections', SLOTS * 12)
    this.published = new Float64Array(buffer, byteOffset, SLOTS)
    this.counts = new Int32Array(buffer, byteOffset + SLOTS * 8, SLOTS)
  }

  /** Ends a window every WINDOW_MS from now on (tests end them themselves). */
  start(): this {
    this.timer = setInterval(() => this.endWindow(), WINDOW_MS)
    this.timer.unref()
    return this
  }

  /**
   * A request arrived on the client connection from `address`:`port`: whether its response
   * closes the connection.
   */
  closesConnection(address: string, port: number): boolean {
    this.requests++
    const connection = `${address}:${port}`
    if (this.toClose > 0 && !this.seen.has(connection)) {
      // The connection's first request of this window: it closes, so it is not counted.
      this.toClose--
      return true
    }
    this.seen.add(connection)
    return false
  }

  /** Publishes this window's count and decides how many connections the next one closes. */
  endWindow(): void {
    const at = this.clock()
    const mine = this.seen.size
    const busy = this.requests >= BUSY_REQUESTS
    this.seen = new Set()
    this.requests = 0
    Atomics.store(this.counts, this.workerId, mine)
    this.published[this.workerId] = at
    let workers = 0
    let total = 0
    for (let id = 1; id < SLOTS; id++) {
      if (at - this.published[id]! >= FRESH_MS) continue
      workers++
      total += Atomics.load(this.counts, id)
    }
    const fair = total / Math.max(1, workers)
    const excess = mine - fair
    this.toClose = busy && excess >= Math.max(MIN_EXCESS, fair * MIN_EXCESS_SHARE) ? Math.floor(excess) : 0
  }

  /** This worker stops serving: it is no longer counted in the others' fair share. */
  stop(): void {
    clearInterval(this.timer)
    this.published[this.workerId] = 0
  }
}
