// Which process waits for a tenant's write lock: a table every process on one data directory maps
// into memory (`write-waits` in DATA_DIR). A group of writes holds a tenant's lock until the end of
// its process's turn of the event loop; when another process waits, it commits as soon as its
// writes are done, lets the waiter go first, and wakes it with a signal, where the waiter would
// otherwise notice only at its next try (platform/tenancy/transaction.ts, `writeTurn`).
//
// A slot, by the tenant's hash, holds the waiting process's id and when it last tried. A waiter
// tries at least every millisecond; a slot not tried for WAIT_FRESH_MS is stale (its process took
// the lock, gave up or died), so no signal goes to a process id that may have been reused since.
// Tenants sharing a slot share its waits: a holder may commit early, nothing worse.
import { fnv1a, mapSharedFile, sharedClockMs } from '../foundation/shared-memory'
import type { LockWaiters } from './transaction'

const SLOTS = 4096
const WAIT_FRESH_MS = 3
const WAKE_SIGNAL = 'SIGUSR2'

let listening = false

export class WriteWaits {
  private readonly triedAt: Float64Array
  private readonly waiter: Int32Array

  /**
   * `dataDir` null: this process alone (tests). `onWake` runs when another process signals that a
   * lock this one waits for is free: one handler per process, the first platform's.
   */
  constructor(dataDir: string | null, onWake: () => void) {
    const { buffer, byteOffset } = mapSharedFile(dataDir, 'write-waits', SLOTS * 12)
    this.triedAt = new Float64Array(buffer, byteOffset, SLOTS)
    this.waiter = new Int32Array(buffer, byteOffset + SLOTS * 8, SLOTS)
    if (dataDir !== null && !listening) {
      listening = true
      process.on(WAKE_SIGNAL, onWake)
    }
  }

  of(tenantId: string): LockWaiters {
    const slot = fnv1a(tenantId) % SLOTS
    const triedAt = this.triedAt
    const waiter = this.waiter
    const self = process.pid
    const waiting = () => {
      const pid = Atomics.load(waiter, slot)
      return pid !== 0 && pid !== self && sharedClockMs() - triedAt[slot]! < WAIT_FRESH_MS ? pid : 0
    }
    return {
      wanted: () => waiting() !== 0,
      want() {
        triedAt[slot] = sharedClockMs()
        Atomics.store(waiter, slot, self)
      },
      stopWanting() {
        Atomics.compareExchange(waiter, slot, self, 0)
      },
      wake() {
        const pid = waiting()
        try {
          if (pid !== 0) process.kill(pid, WAKE_SIGNAL)
        } catch {
          // Gone since it last tried.
        }
      },
    }
  }
}
