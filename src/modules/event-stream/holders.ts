// How many event streams each credential holds, across the HTTP workers of one `serve`
// (src/cli/workers.ts), so that EVENT_STREAM_MAX_PER_CREDENTIAL is a limit per credential, not per
// worker. A table every process on the data directory maps into memory (`event-stream-holders` in
// DATA_DIR): a row per worker (row 0 for a single process), a slot per credential by hash, each
// slot the streams that worker holds for the credentials hashed there. A worker counts only in its
// own row, which it empties as it starts (its streams died with the process it replaces), and
// stamps while it holds streams; a row not stamped for STALE_MS (a worker killed and not yet
// restarted, a run with more workers) is left out. Two credentials sharing a slot count together:
// one may be refused early, none let through beyond its limit.
import { MAX_WORKERS } from '../../config'
import { fnv1a, mapSharedFile, sharedClockMs } from '../../platform/foundation/shared-memory'

/** A row per worker id (1 to MAX_WORKERS); row 0 is a process that is not a worker. */
const ROWS = MAX_WORKERS + 1
const SLOTS = 1024
/** Rows stamped longer ago than this are a gone worker's. The hub stamps each second (hub.ts). */
const STALE_MS = 5_000

export class StreamHolders {
  private readonly stamps: Float64Array
  private readonly counts: Int32Array
  private readonly own: number

  /** `dataDir` null: this process alone (tests). `clock`: milliseconds since the epoch (tests move it). */
  constructor(
    dataDir: string | null,
    workerId: number | undefined,
    private readonly clock: () => number = sharedClockMs,
  ) {
    const { buffer, byteOffset } = mapSharedFile(dataDir, 'event-stream-holders', ROWS * 8 + ROWS * SLOTS * 4)
    this.stamps = new Float64Array(buffer, byteOffset, ROWS)
    this.counts = new Int32Array(buffer, byteOffset + ROWS * 8, ROWS * SLOTS)
    this.own = workerId ?? 0
    for (let slot = 0; slot < SLOTS; slot++) Atomics.store(this.counts, this.own * SLOTS + slot, 0)
    this.stamp()
  }

  /** Counts a stream for `holder` unless every worker together already holds `limit`; false when refused. */
  take(holder: string, limit: number): boolean {
    const slot = fnv1a(holder) % SLOTS
    this.stamp()
    // Counted first, then the total read: two workers taking the last place at once both see the
    // other's and both refuse, rather than both admit.
    Atomics.add(this.counts, this.own * SLOTS + slot, 1)
    if (this.held(slot) <= limit) return true
    this.release(holder)
    return false
  }

  /** A stream of `holder` ended here (or was refused after being counted). */
  release(holder: string): void {
    const index = this.own * SLOTS + (fnv1a(holder) % SLOTS)
    if (Atomics.sub(this.counts, index, 1) <= 0) Atomics.store(this.counts, index, 0)
  }

  /** This process still holds its streams (the hub's upkeep, while any is open). */
  stamp(): void {
    this.stamps[this.own] = this.clock()
  }

  private held(slot: number): number {
    const freshSince = this.clock() - STALE_MS
    let total = 0
    for (let row = 0; row < ROWS; row++) {
      if (row !== this.own && !(this.stamps[row]! > freshSince)) continue
      total += Atomics.load(this.counts, row * SLOTS + slot)
    }
    return total
  }
}
