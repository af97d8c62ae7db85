// The per-credential rate limit: a fixed one-minute window per key, held in memory (one process
// serves a data directory). Answers the IETF RateLimit header fields for every decision.

export interface RateDecision {
  allowed: boolean
  limit: number
  remaining: number
  /** Seconds until the window resets (at least 1). */
  resetSeconds: number
}

export class FixedWindowLimiter {
  private readonly windows = new Map<string, { startedAt: number; count: number }>()
  private lastSweep = 0

  constructor(
    private readonly windowMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts one request against `key`; refused requests count too, so hammering does not help. */
  take(key: string, limit: number): RateDecision {
    const now = this.now()
    this.sweep(now)
    let window = this.windows.get(key)
    if (!window || now - window.startedAt >= this.windowMs) {
      window = { startedAt: now, count: 0 }
      this.windows.set(key, window)
    }
    window.count++
    const resetSeconds = Math.max(1, Math.ceil((window.startedAt + this.windowMs - now) / 1000))
    return {
      allowed: window.count <= limit,
      limit,
      remaining: Math.max(0, limit - window.count),
      resetSeconds,
    }
  }

  /** Drops finished windows now and then, so the map holds only recently active keys. */
  private sweep(now: number) {
    if (now - this.lastSweep < this.windowMs) return
    this.lastSweep = now
    for (const [key, window] of this.windows) {
      if (now - window.startedAt >= this.windowMs) this.windows.delete(key)
    }
  }

  get size(): number {
    return this.windows.size
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
