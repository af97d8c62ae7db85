// One client's event stream: the server-sent events wire format, a queue bounded in bytes (the
// response's own ReadableStream, which the server drains only as fast as the socket takes it),
// and the ways it ends. What goes on it is decided by the tenant's feed (feed.ts).

import type { OutboxEventRow } from '../../platform/audit/schema'
import type { Authenticated } from '../../platform/auth/authenticate'
import type { LocationScope } from '../../platform/auth/location-scope'
import type { Permission } from '../../platform/auth/permissions'
import { deliveryBody } from '../../platform/events/delivery'
import type { EventName } from '../../platform/events/names'
import { nameToSend, type StreamFilter } from './filter'

const encoder = new TextEncoder()

/** The first bytes: how soon EventSource should reconnect after a dropped connection. */
const opening = encoder.encode('retry: 1000\n: events follow\n\n')

/** Why a stream ended, as its last message (`end`) says. */
export type EndReason = 'access_revoked' | 'slow_client' | 'tenant_moved' | 'server_stopping' | 'caught_up'

/** How soon a client should reconnect after each ending (the `retry:` field); none after a revocation. */
const reconnectAfterMs: Record<EndReason, number | null> = {
  access_revoked: null,
  slow_client: 1000,
  tenant_moved: 250,
  server_stopping: 1000,
  caught_up: null,
}

/** An outbox event on its way to the streams, its message under its current name encoded once. */
export class FeedEvent {
  private encoded: Uint8Array | undefined

  constructor(
    readonly row: OutboxEventRow,
    private readonly tenantId: string,
  ) {}

  /** The message under `name`: shared by every stream sending it under the event's own name. */
  message(name: EventName): Uint8Array {
    const own = name.object === this.row.object && name.action === this.row.action
    if (own && this.encoded) return this.encoded
    const text = `id: ${this.row.seq}\nevent: ${name.object}.${name.action}\ndata: ${deliveryBody(this.row, name, this.tenantId)}\n\n`
    const bytes = encoder.encode(text)
    if (own) this.encoded = bytes
    return bytes
  }
}

export interface StreamOptions {
  tenantId: string
  /** Who holds it, for the per-credential limit. */
  holder: string
  auth: Authenticated
  filter: StreamFilter
  /** The last position sent (or skipped): the stream goes on after it. */
  position: number
  bufferBytes: number
  /** The client read enough to take more. */
  onRoom(stream: EventStream): void
  /** The stream ended, either side. */
  onClosed(stream: EventStream): void
}

export class EventStream {
  readonly body: ReadableStream<Uint8Array>
  position: number
  lastWriteAt = Date.now()
  private controller!: ReadableStreamDefaultController<Uint8Array>
  private open = true
  private auth: Authenticated
  private readonly reaches = new Map<Permission, LocationScope>()

  constructor(private readonly options: StreamOptions) {
    this.position = options.position
    this.auth = options.auth
    this.body = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.controller = controller
          // The headers go out with the first bytes: the client knows at once the stream is open.
          controller.enqueue(opening)
        },
        pull: () => {
          if (this.open) options.onRoom(this)
        },
        cancel: () => this.closed(),
      },
      { highWaterMark: options.bufferBytes, size: (chunk) => chunk?.byteLength ?? 0 },
    )
  }

  get tenantId() {
    return this.options.tenantId
  }
  get holder() {
    return this.options.holder
  }
  get isOpen() {
    return this.open
  }
  get authentication() {
    return this.auth
  }

  /** Bytes the client may still be sent before its queue is full (0 or less: it is behind). */
  get room(): number {
    return this.open ? (this.controller.desiredSize ?? 0) : 0
  }

  /** The caller's access as of now (after a recheck): what it may read is decided again. */
  reauthenticated(auth: Authenticated): void {
    this.auth = auth
    this.reaches.clear()
  }

  private readonly reach = (permission: Permission): LocationScope => {
    let scope = this.reaches.get(permission)
    if (!scope) {
      scope = this.auth.reach(permission)
      this.reaches.set(permission, scope)
    }
    return scope
  }

  /**
   * Sends the events this stream's filter and access let through, as one write (a socket write per
   * message costs more than the message under load); either way they are behind it then. `joined`
   * holds the writes of several messages already made for other streams of the same read: streams
   * sent the same messages share one (a copy per stream was most of the memory churn of a
   * thousand streams).
   */
  offer(events: readonly FeedEvent[], joined?: Map<string, Uint8Array>): void {
    const messages: Uint8Array[] = []
    let key = ''
    for (const event of events) {
      if (!this.open || event.row.seq <= this.position) continue
      this.position = event.row.seq
      const name = nameToSend(event.row, this.options.filter, this.reach)
      if (!name) continue
      messages.push(event.message(name))
      key += `${event.row.seq} ${name.object}.${name.action},`
    }
    if (messages.length === 0) return
    let write = messages.length === 1 ? messages[0] : joined?.get(key)
    if (!write) {
      write = Buffer.concat(messages)
      joined?.set(key, write)
    }
    this.write(write)
  }

  /** The id asked to resume from cannot be resumed: the client refetches; the stream goes on from `position`. */
  reset(reason: 'expired' | 'unknown', since: number): void {
    const data = JSON.stringify({ reason, since: String(since), resumeFrom: String(this.position) })
    this.write(encoder.encode(`id: ${this.position}\nevent: reset\ndata: ${data}\n\n`))
  }

  heartbeat(): void {
    this.write(encoder.encode(': heartbeat\n\n'))
  }

  /** Says why in an `end` message (with a reconnect delay when reconnecting makes sense), then closes. */
  end(reason: EndReason, detail: string): void {
    if (!this.open) return
    const retry = reconnectAfterMs[reason]
    const data = JSON.stringify({ reason, detail, reconnect: retry !== null })
    this.write(encoder.encode(`${retry === null ? '' : `retry: ${retry}\n`}event: end\ndata: ${data}\n\n`))
    this.controller.close()
    this.closed()
  }

  private write(bytes: Uint8Array): void {
    if (!this.open) return
    this.controller.enqueue(bytes)
    this.lastWriteAt = Date.now()
  }

  private closed(): void {
    if (!this.open) return
    this.open = false
    this.options.onClosed(this)
  }
}
