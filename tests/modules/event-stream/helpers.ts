// A real HTTP server over a test app, and a reader of its event stream that yields one message at
// a time (the typed client's parser: client/events.ts).
import { readEventStream, type StreamMessage } from '../../../client'
import type { StaffFixture, TenantFixture, TestApp } from '../../harness'

export function serve(t: TestApp) {
  const server = Bun.serve({ port: 0, idleTimeout: 0, fetch: (request) => t.app.handle(request) })
  return { url: `http://localhost:${server.port}`, stop: () => server.stop(true) }
}

export interface OpenedStream {
  response: Response
  /** The next message; rejects when the stream ended first. */
  next(): Promise<StreamMessage>
  /** Every message up to the end of the stream. */
  rest(): Promise<StreamMessage[]>
  close(): void
}

export async function openStream(
  url: string,
  options: {
    as?: StaffFixture | string | null
    tenant: TenantFixture
    query?: string
    headers?: Record<string, string>
    path?: string
  },
): Promise<OpenedStream> {
  const headers = new Headers(options.headers)
  const as = options.as === undefined ? options.tenant.owner : options.as
  if (as) headers.set('authorization', `Bearer ${typeof as === 'string' ? as : as.token}`)
  headers.set('x-tenant-id', options.tenant.id)
  const controller = new AbortController()
  const response = await fetch(`${url}${options.path ?? '/events/stream'}${options.query ?? ''}`, {
    headers,
    signal: controller.signal,
  })
  const messages = response.status === 200 && response.body ? readEventStream(response.body) : null
  return {
    response,
    async next() {
      const result = await messages!.next()
      if (result.done) throw new Error('the stream ended')
      return result.value
    },
    async rest() {
      const all: StreamMessage[] = []
      for await (const message of messages!) all.push(message)
      return all
    },
    close: () => controller.abort(),
  }
}

/** The JSON of a message's `data:`. */
export const dataOf = (message: StreamMessage) => JSON.parse(message.data)
