// Every event stream this process serves: the limits on opening one, a feed per tenant with
// streams open, and the upkeep of open streams (a heartbeat every 15 s; access checked again every
// 2 s, so a revoked credential's stream ends within 5 s; a tenant this node stops serving, in a
// cluster, ends its streams with a reconnect hint, and the owner's routing serves the reconnect).

import { lastEventSeq, onEventAppended, resumableAfter } from '../../platform/audit/outbox'
import type { Authenticated } from '../../platform/auth/authenticate'
import { ApiError, unavailable } from '../../platform/foundation/problem'
import type { Platform } from '../../platform/platform'
import { TenantFeed } from './feed'
import type { StreamFilter } from './filter'
import { StreamHolders } from './holders'
import { EventStream } from './stream'

const HEARTBEAT_MS = 15_000
const RECHECK_MS = 2_000
const UPKEEP_MS = 1_000

/** Problem codes of a recheck that mean the caller lost its access (anything else may pass: an unreachable JWKS). */
const lostAccess = new Set([
  'unauthenticated',
  'forbidden',
  'tenant_suspended',
  'tenant_not_found',
  'not_found',
])

export interface OpenStream {
  auth: Authenticated
  filter: StreamFilter
  /** Resume after this position (`Last-Event-ID`, else `since`); null: from now. */
  since: number | null
  /** false: send what is there (after `since`) and end. */
  follow: boolean
}

export class StreamHub {
  private readonly feeds = new Map<string, TenantFeed>()
  private readonly holders: StreamHolders
  private readonly lastChecked = new WeakMap<EventStream, number>()
  private count = 0
  private stopped = false
  private pollTimer: Timer | null = null
  private upkeepTimer: Timer | null = null
  private checking = false
  private readonly unsubscribe: () => void

  constructor(private readonly platform: Platform) {
    this.holders = new StreamHolders(platform.config.dataDir, platform.config.workerId)
    this.unsubscribe = onEventAppended((tenantId) => this.feeds.get(tenantId)?.wake())
    platform.onStop(() => this.stop())
  }

  /** Open streams, for the bench and the health of a process. */
  get size(): number {
    return this.count
  }

  open(request: OpenStream): Response {
    const { config } = this.platform
    const { auth } = request
    if (this.stopped) throw unavailable('The server is stopping')
    if (this.count >= config.eventStreamMaxStreams)
      throw tooMany(`This server holds its limit of ${config.eventStreamMaxStreams} event streams`)
    const tenantId = auth.tenant.id
    // Counted across the workers (holders.ts) before anything is read, so that a credential at its
    // limit costs no reads; given back if a read fails, and at the stream's end otherwise.
    const holder = `${tenantId} ${auth.actor.subject}`
    if (!this.holders.take(holder, config.eventStreamMaxPerCredential))
      throw tooMany(`This credential holds its limit of ${config.eventStreamMaxPerCredential} event streams`)
    const since = request.since
    let feed: TenantFeed
    let start: StreamStart
    try {
      // A new feed reads where the outbox ends.
      feed =
        this.feeds.get(tenantId) ??
        new TenantFeed(tenantId, () => this.platform.pool.get(tenantId).db, this.platform.log)
      start = startOf(auth, feed, since, config.eventStreamRetentionMs)
    } catch (error) {
      this.holders.release(holder)
      throw error
    }
    const { newest, resumable } = start
    const stream = new EventStream({
      tenantId,
      holder,
      auth,
      filter: request.filter,
      position: resumable === true ? since! : newest,
      bufferBytes: config.eventStreamBufferBytes,
      onRoom: (s) => this.feeds.get(s.tenantId)?.catchUp(s),
      onClosed: (s) => this.closed(s),
    })
    this.feeds.set(tenantId, feed)
    this.count++
    this.lastChecked.set(stream, Date.now())
    if (resumable !== null && resumable !== true) stream.reset(resumable, since!)
    feed.add(stream, request.follow ? undefined : newest)
    this.startTimers()
    return new Response(stream.body, {
      headers: {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        // Proxies (nginx) would otherwise hold the events back to fill their buffers.
        'x-accel-buffering': 'no',
      },
    })
  }

  private closed(stream: EventStream): void {
    this.count--
    this.holders.release(stream.holder)
    const feed = this.feeds.get(stream.tenantId)
    feed?.streams.delete(stream)
    if (feed && feed.streams.size === 0) this.feeds.delete(stream.tenantId)
    if (this.count === 0) this.stopTimers()
  }

  private startTimers(): void {
    if (this.pollTimer) return
    this.pollTimer = setInterval(() => {
      for (const feed of this.feeds.values()) feed.poll()
    }, this.platform.config.eventStreamPollIntervalMs)
    this.upkeepTimer = setInterval(() => void this.upkeep(), UPKEEP_MS)
  }

  private stopTimers(): void {
    if (this.pollTimer) clearInterval(this.pollTimer)
    if (this.upkeepTimer) clearInterval(this.upkeepTimer)
    this.pollTimer = this.upkeepTimer = null
  }

  private async upkeep(): Promise<void> {
    this.holders.stamp()
    if (this.checking) return
    this.checking = true
    try {
      for (const feed of [...this.feeds.values()]) {
        if (!this.platform.pool.isServed(feed.tenantId)) {
          for (const stream of [...feed.streams])
            stream.end('tenant_moved', 'Another node serves this tenant now; reconnect with Last-Event-ID')
          continue
        }
        for (const stream of [...feed.streams]) await this.keep(stream)
      }
    } finally {
      this.checking = false
    }
  }

  private async keep(stream: EventStream): Promise<void> {
    const now = Date.now()
    if (stream.isOpen && now - (this.lastChecked.get(stream) ?? 0) >= RECHECK_MS) {
      this.lastChecked.set(stream, now)
      try {
        stream.reauthenticated(await stream.authentication.recheck())
      } catch (error) {
        if (error instanceof ApiError && lostAccess.has(error.code))
          stream.end('access_revoked', error.detail)
        else
          this.platform.log.warn('event stream: access could not be checked again', { error: String(error) })
      }
    }
    if (!stream.isOpen || now - stream.lastWriteAt < HEARTBEAT_MS) return
    if (stream.room <= 0)
      stream.end(
        'slow_client',
        'The client has not read its stream for a while; reconnect with Last-Event-ID',
      )
    else stream.heartbeat()
  }

  /** Ends every stream with a reconnect hint: the server is stopping. */
  stop(): void {
    this.stopped = true
    this.unsubscribe()
    for (const feed of [...this.feeds.values()])
      for (const stream of [...feed.streams])
        stream.end('server_stopping', 'The server is stopping; reconnect with Last-Event-ID')
    this.stopTimers()
  }
}

interface StreamStart {
  /** The outbox's last committed position: "now". */
  newest: number
  /** Whether `since` can be resumed from: null when none was given. */
  resumable: true | 'unknown' | 'expired' | null
}

/**
 * Where a stream starts. The feed reads another process's commits (another worker's) at its next
 * poll, so the outbox may hold events past its cursor. "Now" is the outbox's last event, not the
 * cursor: a stream from now starts there (from the cursor, it was sent the other worker's events
 * committed before it opened), an id past the cursor is unknown only if the outbox lacks it too,
 * and a stream that does not follow ends there.
 */
function startOf(
  auth: Authenticated,
  feed: TenantFeed,
  since: number | null,
  retentionMs: number,
): StreamStart {
  const cutoff = new Date(Date.now() - retentionMs).toISOString()
  const newest = lastCommittedSeq(auth, feed)
  if (newest > feed.cursor) feed.wake()
  const resumable =
    since === null
      ? null
      : since > newest
        ? 'unknown'
        : resumableAfter(auth.db, since, cutoff)
          ? true
          : 'expired'
  return { newest, resumable }
}

/**
 * The outbox's last committed position: past the feed's cursor when another process committed
 * since its last poll. Streams open outside any group of writes (service.ts); should one be open
 * on the connection, what it reads includes rows not committed yet: the cursor then.
 */
function lastCommittedSeq(auth: Authenticated, feed: TenantFeed): number {
  if (auth.db.$client.inTransaction) return feed.cursor
  return Math.max(feed.cursor, lastEventSeq(auth.db))
}

const tooMany = (detail: string) =>
  new ApiError('rate_limited', detail, {
    headers: { 'retry-after': '5' },
    extensions: { retryAfterSeconds: 5 },
  })
