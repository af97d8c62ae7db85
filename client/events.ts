// The live event stream (`GET /events/stream`) for the typed client: a server-sent events reader
// over fetch (Bun, Node, browsers alike, with the Authorization header EventSource cannot send),
// and `subscribe`, which reconnects and resumes after the last event it handled.
import type { webhooks } from './schema'

/** An event name of the catalogue: `order.create`, `cash_drawer.close`... */
export type EventName = keyof webhooks & string

/** What a webhook receiver gets for the event, and what `data:` carries on the stream. */
export type EventBody<N extends EventName> = webhooks[N] extends {
  post: { requestBody: { content: { 'application/json': infer B } } }
}
  ? B
  : never

/** One server-sent message: `id:`, `event:`, `data:` as received. */
export interface StreamMessage {
  id: string | null
  event: string
  data: string
}

/**
 * Splits a `text/event-stream` body into its messages (comments and `retry:` are left out); stops
 * reading when `signal` aborts, whatever fetch made the body.
 */
export async function* readEventStream(
  body: ReadableStream<Uint8Array>,
  signal?: AbortSignal,
): AsyncGenerator<StreamMessage> {
  const decoder = new TextDecoder()
  let buffered = ''
  let message: StreamMessage = { id: null, event: 'message', data: '' }
  let hasData = false
  const reader = body.getReader()
  const stop = () => void reader.cancel().catch(() => {})
  signal?.addEventListener('abort', stop)
  try {
    for (;;) {
      const { done, value: chunk } = await reader.read()
      if (done) return
      buffered += decoder.decode(chunk, { stream: true })
      let newline = buffered.search(/\r\n|\r|\n/)
      while (newline >= 0) {
        const line = buffered.slice(0, newline)
        buffered = buffered.slice(newline + (buffered.startsWith('\r\n', newline) ? 2 : 1))
        newline = buffered.search(/\r\n|\r|\n/)
        if (line === '') {
          if (hasData) yield message
          message = { id: null, event: 'message', data: '' }
          hasData = false
          continue
        }
        if (line.startsWith(':')) continue
        const colon = line.indexOf(':')
        const field = colon < 0 ? line : line.slice(0, colon)
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '')
        if (field === 'data') {
          message.data = hasData ? `${message.data}\n${value}` : value
          hasData = true
        } else if (field === 'event') message.event = value
        else if (field === 'id') message.id = value
      }
    }
  } finally {
    signal?.removeEventListener('abort', stop)
    stop()
  }
}

export interface SubscribeOptions {
  baseUrl: string
  /** `/events/stream`, or `/tables-api/v1/events/stream` for a `tpk_live_` credential. */
  path?: string
  headers: Record<string, string>
  fetch?: (request: Request) => Promise<Response>
  /** Resume after this event id (the last one a previous subscription handled). */
  since?: string
  /** Only this location's events. */
  locationId?: string
  /** The id asked to resume from was too old: refetch what you show. The stream goes on. */
  onReset?(info: { reason: string; since: string; resumeFrom: string }): void
  /** Why the subscription stopped for good (a refused request, a revoked credential) or paused to reconnect. */
  onError?(error: Error, willReconnect: boolean): void
  /** Waits before reconnecting; the server's `retry:` hint is not awaited beyond this. */
  reconnectDelayMs?: number
}

export interface Subscription {
  /** The id of the last event handled: what a later subscription resumes from. */
  readonly lastEventId: string | null
  /** Stops reading and does not reconnect. */
  close(): void
  /** Settles when the subscription stops for good (closed, or refused). */
  readonly done: Promise<void>
}

/**
 * Calls `handler` once per event of `types` (every event the caller may read when empty), in
 * order, reconnecting after a dropped connection and resuming just after the last event handled.
 */
export function subscribe<N extends EventName>(
  types: readonly N[],
  handler: (name: N, body: EventBody<N>, id: string) => void | Promise<void>,
  options: SubscribeOptions,
): Subscription {
  const controller = new AbortController()
  const send = options.fetch ?? ((request: Request) => fetch(request))
  let lastEventId = options.since ?? null
  const query = new URLSearchParams()
  if (types.length > 0) query.set('types', types.join(','))
  if (options.locationId) query.set('locationId', options.locationId)

  const stopFor = (error: Error) => {
    options.onError?.(error, false)
    controller.abort()
  }

  async function run(): Promise<void> {
    while (!controller.signal.aborted) {
      const headers = new Headers(options.headers)
      headers.set('accept', 'text/event-stream')
      if (lastEventId !== null) headers.set('last-event-id', lastEventId)
      let response: Response
      try {
        const url = `${options.baseUrl.replace(/\/+$/, '')}${options.path ?? '/events/stream'}${query.size > 0 ? `?${query}` : ''}`
        response = await send(new Request(url, { headers, signal: controller.signal }))
      } catch (error) {
        if (controller.signal.aborted) return
        options.onError?.(error as Error, true)
        await pause(options.reconnectDelayMs ?? 1000, controller.signal)
        continue
      }
      if (response.status !== 200 || !response.body) {
        const detail = await response.text().catch(() => '')
        const error = new Error(`event stream refused: ${response.status} ${detail.slice(0, 300)}`)
        // 429 and 503 pass; anything else (401, 403, 400) will not change by retrying.
        if (response.status === 429 || response.status === 503) {
          options.onError?.(error, true)
          await pause(options.reconnectDelayMs ?? 1000, controller.signal)
          continue
        }
        return stopFor(error)
      }
      try {
        for await (const message of readEventStream(response.body, controller.signal)) {
          if (message.event === 'reset') {
            if (message.id !== null) lastEventId = message.id
            options.onReset?.(JSON.parse(message.data))
          } else if (message.event === 'end') {
            const end = JSON.parse(message.data) as { reason: string; detail: string; reconnect: boolean }
            if (!end.reconnect) return end.reason === 'caught_up' ? undefined : stopFor(new Error(end.detail))
          } else if (message.id !== null) {
            await handler(message.event as N, JSON.parse(message.data) as EventBody<N>, message.id)
            lastEventId = message.id
          }
        }
      } catch (error) {
        if (controller.signal.aborted) return
        options.onError?.(error as Error, true)
      }
      await pause(options.reconnectDelayMs ?? 1000, controller.signal)
    }
  }

  const done = run()
  return {
    get lastEventId() {
      return lastEventId
    },
    close: () => controller.abort(),
    done,
  }
}

const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve()
    const timer = setTimeout(resolve, ms)
    signal.addEventListener('abort', () => {
      clearTimeout(timer)
      resolve()
    })
  })
