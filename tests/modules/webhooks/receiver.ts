// A real HTTP receiver on loopback for webhook tests: answers from a script, records what came.
import { expect } from 'bun:test'

/** Delivery settings for tests: loopback targets allowed, millisecond retries and polling. */
export const fastDelivery = {
  webhookAllowPrivateTargets: true,
  webhookRetryScheduleMs: [10, 20],
  webhookPollIntervalMs: 5,
  webhookTimeoutMs: 2000,
}

export interface Received {
  headers: Record<string, string>
  body: string
  json: any
}

export type Answer = number | { status: number; headers?: Record<string, string>; body?: string }

export interface Receiver {
  url: string
  received: Received[]
  /** Answers for the next requests, in order; afterwards `fallback`. */
  script: Answer[]
  fallback: Answer
  stop(): void
}

export function startReceiver(options: { script?: Answer[]; fallback?: Answer } = {}): Receiver {
  const receiver: Receiver = {
    url: '',
    received: [],
    script: [...(options.script ?? [])],
    fallback: options.fallback ?? 200,
    stop: () => server.stop(true),
  }
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(request) {
      const body = await request.text()
      let json: unknown
      try {
        json = JSON.parse(body)
      } catch {}
      receiver.received.push({ headers: Object.fromEntries(request.headers), body, json })
      const answer = receiver.script.shift() ?? receiver.fallback
      const { status, headers, body: text } = typeof answer === 'number' ? { status: answer } : answer
      return new Response(text ?? (status >= 400 ? JSON.stringify({ error: `status ${status}` }) : 'ok'), {
        status,
        headers,
      })
    },
  })
  receiver.url = `http://127.0.0.1:${server.port}/hook`
  return receiver
}

/** Polls until `check` returns something truthy (no timing assertion: the bound only ends a hung test). */
export async function waitFor<T>(
  check: () => T | Promise<T>,
  what = 'condition',
  limitMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + limitMs
  for (;;) {
    const value = await check()
    if (value) return value
    if (Date.now() > deadline) expect(`${what} (still false after ${limitMs} ms)`).toBe('true')
    await Bun.sleep(10)
  }
}
