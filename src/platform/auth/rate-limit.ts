// The per-credential rate limit: a fixed one-minute window per key, started by the key's first
// request, counted in a table every process on the data directory maps into memory (`rate-limits`
// in DATA_DIR), so that 60 a minute is 60 across the HTTP workers of one `serve`
// (src/cli/workers.ts). Answers the IETF RateLimit header fields for every decision.
//
// A key has a slot, found by hash and claimed by its fingerprint (compare-and-swap, probing the
// next slots on a collision); the slot holds the window's start and its count in one 64-bit word
// that every take replaces by compare-and-swap, so concurrent requests in several processes
// neither lose a count nor start two windows. A slot whose window ended a window ago is free for
// another key. Two keys sharing a slot (a fingerprint collision, or a slot taken over while its
// key is counted) count together: a key may be refused early, never let through beyond its limit.
import { fnv1a, mapSharedFile } from '../foundation/shared-memory'

const SLOTS = 1 << 16
/** Probed slots per key: beyond, the key is counted in this process only (65,536 keys active at once). */
const PROBES = 32
const COUNT_BITS = 20n
const COUNT_MASK = (1n << COUNT_BITS) - 1n
/** The count saturates here: refused requests still count, and a flood must not wrap it. */
const MAX_COUNT = Number(COUNT_MASK)
const FINGERPRINT_BYTES = SLOTS * 4
const BYTES = FINGERPRINT_BYTES + SLOTS * 8

export interface RateDecision {
  allowed: boolean
  limit: number
  remaining: number
  /** Seconds until the window resets (at least 1). */
  resetSeconds: number
}

export class SharedWindowLimiter {
  private readonly fingerprints: Int32Array
  /** Per slot: the window's start (epoch ms) above COUNT_BITS, its count below. */
  private readonly windows: BigInt64Array
  /** Keys that found no free slot. */
  private readonly overflow = new Map<string, bigint>()

  /** `dataDir` null: windows within this process only (tests). `file`: the table's, one per kind of limit. */
  constructor(
    dataDir: string | null,
    private readonly windowMs = 60_000,
    private readonly now: () => number = Date.now,
    file = 'rate-limits',
  ) {
    const { buffer, byteOffset } = mapSharedFile(dataDir, file, BYTES)
    this.fingerprints = new Int32Array(buffer, byteOffset, SLOTS)
    this.windows = new BigInt64Array(buffer, byteOffset + FINGERPRINT_BYTES, SLOTS)
  }

  /** Counts one request against `key`; refused requests count too, so hammering does not help. */
  take(key: string, limit: number): RateDecision {
    const now = this.now()
    const slot = this.slotOf(key, now)
    let startedAt: number
    let count: number
    for (;;) {
      const seen = slot === null ? (this.overflow.get(key) ?? 0n) : Atomics.load(this.windows, slot)
      startedAt = Number(seen >> COUNT_BITS)
      count = Number(seen & COUNT_MASK)
      if (now - startedAt >= this.windowMs || now < startedAt) {
        startedAt = now
        count = 0
      }
      count = Math.min(MAX_COUNT, count + 1)
      const next = (BigInt(startedAt) << COUNT_BITS) | BigInt(count)
      if (slot === null) {
        this.keepOverflow(key, next, now)
        break
      }
      if (Atomics.compareExchange(this.windows, slot, seen, next) === seen) break
    }
    const resetSeconds = Math.max(1, Math.ceil((startedAt + this.windowMs - now) / 1000))
    return { allowed: count <= limit, limit, remaining: Math.max(0, limit - count), resetSeconds }
  }

  /** What `key` has taken in its window running now, without taking: 0 when none runs. */
  peek(key: string): { count: number; resetSeconds: number } {
    const now = this.now()
    const slot = this.slotOf(key, now, false)
    const seen = slot === null ? (this.overflow.get(key) ?? 0n) : Atomics.load(this.windows, slot)
    const startedAt = Number(seen >> COUNT_BITS)
    if (now - startedAt >= this.windowMs || now < startedAt) return { count: 0, resetSeconds: 0 }
    const resetSeconds = Math.max(1, Math.ceil((startedAt + this.windowMs - now) / 1000))
    return { count: Number(seen & COUNT_MASK), resetSeconds }
  }

  private keepOverflow(key: string, window: bigint, now: number): void {
    // Only keys whose window runs are kept: the map follows the keys active now.
    if (this.overflow.size >= SLOTS)
      for (const [other, held] of this.overflow)
        if (now - Number(held >> COUNT_BITS) >= this.windowMs) this.overflow.delete(other)
    this.overflow.set(key, window)
  }

  /**
   * The key's slot: its own, a free one it claims (unless `claim` is false), or null when every
   * probed slot is another key's (or, not claiming, when it holds none).
   */
  private slotOf(key: string, now: number, claim = true): number | null {
    // Never 0, which marks a free slot.
    const fingerprint = fnv1a(key) | 1
    const first = fnv1a(key, 0x01000193) % SLOTS
    for (let probe = 0; probe < PROBES; probe++) {
      const slot = (first + probe) % SLOTS
      const held = Atomics.load(this.fingerprints, slot)
      if (held === fingerprint) return slot
      if (!claim) continue
      const idle =
        held === 0 || now - Number(Atomics.load(this.windows, slot) >> COUNT_BITS) >= 2 * this.windowMs
      if (!idle) continue
      const before = Atomics.compareExchange(this.fingerprints, slot, held, fingerprint)
      if (before === held || before === fingerprint) return slot
    }
    return null
  }
}

/**
 * The IETF RateLimit fields (draft-ietf-httpapi-ratelimit-headers-07): the combined `RateLimit`
 * and `RateLimit-Policy`, and the separate `RateLimit-Limit`, `-Remaining` and `-Reset` that
 * clients of earlier drafts read.
 */
export function rateLimitHeaders(decision: RateDecision, windowSeconds = 60): Record<string, string> {
  const headers: Record<string, string> = {
    ratelimit: `limit=${decision.limit}, remaining=${decision.remaining}, reset=${decision.resetSeconds}`,
    'ratelimit-limit': String(decision.limit),
    'ratelimit-remaining': String(decision.remaining),
    'ratelimit-reset': String(decision.resetSeconds),
    'ratelimit-policy': `${decision.limit};w=${windowSeconds}`,
  }
  if (!decision.allowed) headers['retry-after'] = String(decision.resetSeconds)
  return headers
}
