// Keeping streams healthy: a client that does not read is dropped with a reason rather than
// buffered without bound; streams are limited per credential and per process (429).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readEventStream } from '../../../client'
import { createTestApp, type TestApp } from '../../harness'
import { dataOf } from './helpers'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp({
    config: { eventStreamBufferBytes: 4096, eventStreamMaxPerCredential: 2, eventStreamMaxStreams: 3 },
  })
})
afterAll(() => t.close())

const open = (as = t.tenant.owner.token, query = '') =>
  t.app.handle(
    new Request(`http://localhost/events/stream${query}`, {
      headers: { authorization: `Bearer ${as}`, 'x-tenant-id': t.tenant.id },
    }),
  )

const newOrder = async () => {
  const res = await t.request('POST', '/order', { body: { locationId: t.tenant.locationId } })
  expect(res.status).toBe(201)
}

describe('a slow client', () => {
  test('is sent an end (slow_client) once its queue is full, and the stream closes', async () => {
    const response = await open()
    expect(response.status).toBe(200)
    // Nobody reads: each order's event (over a KiB) fills the 4 KiB queue, then one more ends it.
    for (let i = 0; i < 6; i++) await newOrder()
    const messages = []
    for await (const message of readEventStream(response.body!)) messages.push(message)
    const end = messages.at(-1)!
    expect(end.event).toBe('end')
    expect(dataOf(end)).toMatchObject({ reason: 'slow_client', reconnect: true })
    expect(messages.filter((m) => m.event === 'order.create').length).toBeLessThan(6)
  })
})

describe('limits', () => {
  test('a third stream of one credential is 429; another credential still opens one; the process limit holds too', async () => {
    const first = await open()
    const second = await open()
    expect([first.status, second.status]).toEqual([200, 200])
    const third = await open()
    expect(third.status).toBe(429)
    const problem = await third.json()
    expect(problem).toMatchObject({ code: 'rate_limited', status: 429 })
    expect(third.headers.get('retry-after')).toBe('5')
    const other = await open(t.tenant.manager.token)
    expect(other.status).toBe(200)
    // Three open in the process: a fourth, by anyone, is 429.
    const beyond = await open(t.tenant.staff.token)
    expect(beyond.status).toBe(429)
    // A stream that ends frees its place.
    await first.body!.cancel()
    const again = await open(t.tenant.staff.token)
    expect(again.status).toBe(200)
    for (const response of [second, other, again]) await response.body!.cancel()
  })
})

describe('limits before reads', () => {
  /** The outbox gone for `work`: every read of it fails. */
  async function withoutOutbox<T>(work: () => Promise<T>): Promise<T> {
    const sqlite = t.tenant.db.$client
    sqlite.exec('ALTER TABLE outbox_events RENAME TO outbox_events_away')
    try {
      return await work()
    } finally {
      sqlite.exec('ALTER TABLE outbox_events_away RENAME TO outbox_events')
    }
  }

  test('a credential at its limit is refused before the outbox is read; a failed read gives its place back', async () => {
    const held = [await open(), await open()]
    expect(held.map((r) => r.status)).toEqual([200, 200])
    // Refused by its count alone: the read that would fail is never made.
    expect((await withoutOutbox(() => open())).status).toBe(429)
    for (const response of held) await response.body!.cancel()
    // Its place taken, then the read fails: the place is given back.
    expect((await withoutOutbox(() => open())).status).toBe(500)
    const again = [await open(), await open()]
    expect(again.map((r) => r.status)).toEqual([200, 200])
    for (const response of again) await response.body!.cancel()
  })
})

describe('follow=false', () => {
  test('sends what lies after since, then end (caught_up)', async () => {
    const response = await open(t.tenant.owner.token, '?follow=false&since=0&types=order.create')
    const messages = []
    for await (const message of readEventStream(response.body!)) messages.push(message)
    const creates = t.tenant.db.$client
      .query("SELECT seq FROM outbox_events WHERE object = 'order' AND action = 'create' ORDER BY seq")
      .all() as { seq: number }[]
    expect(messages.slice(0, -1).map((m) => Number(m.id))).toEqual(creates.map((c) => c.seq))
    expect(dataOf(messages.at(-1)!)).toMatchObject({ reason: 'caught_up', reconnect: false })
  })
})

describe('a server stopping', () => {
  test('ends every stream with a reconnect hint and opens no new one', async () => {
    const response = await open()
    expect(response.status).toBe(200)
    t.platform.stopping()
    const messages = []
    for await (const message of readEventStream(response.body!)) messages.push(message)
    expect(messages.map((m) => m.event)).toEqual(['end'])
    expect(dataOf(messages[0]!)).toMatchObject({ reason: 'server_stopping', reconnect: true })
    expect((await open()).status).toBe(503)
  })
})
