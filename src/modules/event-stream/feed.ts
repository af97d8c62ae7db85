// One tenant's events, read once for every stream of the tenant this process serves. The feed
// reads only what is committed: after a commit of this process (the outbox's append hint, then
// the commit of the turn's group: platform/tenancy/transaction.ts), and every poll interval when
// another connection committed (SQLite's data_version: another worker process, the command line).
// A write's events get one position each in commit order, so reading past the last position
// read never skips one. A stream behind the feed (resuming, or one whose client was slow to read)
// catches up from the outbox itself, a page at a time as its client takes them.
import { eventsBetween, lastEventSeq } from '../../platform/audit/outbox'
import type { Logger } from '../../platform/foundation/log'
import type { Db } from '../../platform/tenancy/databases'
import { commitsPending } from '../../platform/tenancy/transaction'
import { type EventStream, FeedEvent } from './stream'

const PAGE = 200
/** Pages one catch-up reads before giving other work its turn. */
const PAGES_PER_TURN = 5

export class TenantFeed {
  readonly streams = new Set<EventStream>()
  /** The last position read: everything up to it is committed and was handed to the live streams. */
  cursor: number
  /** Streams that stop at a position (`follow=false`), by that position. */
  private readonly until = new WeakMap<EventStream, number>()
  private scheduled = false
  private dataVersion: { connection: Db; version: number } | null = null

  constructor(
    readonly tenantId: string,
    private readonly db: () => Db,
    private readonly log: Logger,
  ) {
    this.cursor = lastEventSeq(db())
  }

  /** Joins a stream; with `until`, it is sent what lies up to there and then ends. */
  add(stream: EventStream, until?: number): void {
    this.streams.add(stream)
    if (until !== undefined) this.until.set(stream, until)
    this.catchUp(stream)
  }

  /** An event was appended in this process: read once its commit is done. */
  wake(): void {
    if (this.scheduled) return
    this.scheduled = true
    // Queued after the turn's group commit, which was queued when the group's first write began.
    setImmediate(() => this.guarded(() => this.readCommitted()))
  }

  /**
   * Work of a timer or a callback: a tenant that cannot be read now (suspended, closing) waits for
   * the next wake-up or poll, and the access recheck ends its streams.
   */
  private guarded(work: () => void): void {
    try {
      work()
    } catch (error) {
      this.scheduled = false
      this.log.warn('event stream: the outbox could not be read', {
        tenantId: this.tenantId,
        error: String(error),
      })
    }
  }

  /** The poll: read when another connection committed since the last look. */
  poll(): void {
    this.guarded(() => this.pollNow())
  }

  private pollNow(): void {
    const connection = this.db()
    const version = (connection.$client.query('PRAGMA data_version').get() as { data_version: number })
      .data_version
    const seen = this.dataVersion
    this.dataVersion = { connection, version }
    if (seen && seen.connection === connection && seen.version === version) return
    this.wake()
  }

  private readCommitted(): void {
    const db = this.db()
    // A group of writes is open on the connection this process reads through: what it would read
    // now includes rows not committed yet.
    if (db.$client.inTransaction) {
      const pending = commitsPending()
      if (pending) {
        const again = () => this.guarded(() => this.readCommitted())
        pending.then(again, again)
        return
      }
    }
    this.scheduled = false
    for (;;) {
      const rows = eventsBetween(db, this.cursor, Number.MAX_SAFE_INTEGER, PAGE)
      if (rows.length === 0) return
      const from = this.cursor
      this.cursor = rows.at(-1)!.seq
      const events = rows.map((row) => new FeedEvent(row, this.tenantId))
      const joined = new Map<string, Uint8Array>()
      for (const stream of this.streams) {
        // Behind (catching up, or stopping before here): it reads the outbox itself.
        if (stream.position < from || this.until.has(stream)) continue
        if (stream.room <= 0) {
          stream.end(
            'slow_client',
            'The client did not read its events as fast as they came; reconnect with Last-Event-ID',
          )
          continue
        }
        stream.offer(events, joined)
        stream.position = Math.max(stream.position, this.cursor)
      }
      if (rows.length < PAGE) return
    }
  }

  /** Sends a stream what lies between its position and the feed's, while its client keeps up. */
  catchUp(stream: EventStream): void {
    this.guarded(() => this.catchUpNow(stream))
  }

  private catchUpNow(stream: EventStream): void {
    const db = this.db()
    const until = this.until.get(stream)
    // A stream that ends reads to its end, which may lie past the cursor (another process's
    // commits not polled yet: hub.ts); the others read up to where the feed takes them over.
    const bound = until ?? this.cursor
    for (let page = 0; page < PAGES_PER_TURN; page++) {
      if (!stream.isOpen || stream.position >= bound) break
      if (stream.room <= 0) return // the client's next read asks again (EventStream's pull)
      const rows = eventsBetween(db, stream.position, bound, PAGE)
      for (const row of rows) {
        if (stream.room <= 0) return
        stream.offer([new FeedEvent(row, this.tenantId)])
      }
      if (rows.length < PAGE) stream.position = bound
    }
    if (!stream.isOpen) return
    if (stream.position < bound) {
      setImmediate(() => this.catchUp(stream))
      return
    }
    if (until !== undefined) stream.end('caught_up', 'Every event up to when the stream opened was sent')
  }
}
