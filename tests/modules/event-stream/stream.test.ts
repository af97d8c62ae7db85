// GET /events/stream through a real HTTP server: events after their commit, resume exactly once,
// who sees what, revocation, filters, reset, limits. Nothing here waits for a time: each step
// awaits the message it expects (the test's timeout is the only bound).
import { Database } from 'bun:sqlite'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { revokeCredential } from '../../../src/platform/auth/credentials'
import { tenantDatabasePath } from '../../../src/platform/tenancy/databases'
import { createTestApp, type TestApp } from '../../harness'
import { openDrawer } from '../cash/helpers'
import { dataOf, openStream, serve } from './helpers'

let t: TestApp
let server: ReturnType<typeof serve>
beforeAll(async () => {
  t = await createTestApp()
  server = serve(t)
})
afterAll(async () => {
  server.stop()
  await t.close()
})

async function newOrder(locationId = t.tenant.locationId) {
  const res = await t.request('POST', '/order', { body: { locationId } })
  expect(res.status).toBe(201)
  return res.body as { id: string; locationId: string }
}

describe('GET /events/stream', () => {
  test('an order created arrives as order.create, with the webhook body and its outbox position', async () => {
    const stream = await openStream(server.url, { tenant: t.tenant })
    expect(stream.response.status).toBe(200)
    expect(stream.response.headers.get('content-type')).toStartWith('text/event-stream')
    const order = await newOrder()
    const message = await stream.next()
    expect(message.event).toBe('order.create')
    expect(message.id).toMatch(/^\d+$/)
    expect(dataOf(message)).toMatchObject({
      object: 'order',
      action: 'create',
      payload: { id: order.id },
      tenantId: t.tenant.id,
    })
    const stored = t.tenant.db.$client
      .query("SELECT seq FROM outbox_events WHERE object = 'order' AND aggregate_id = ?")
      .get(order.id) as { seq: number }
    expect(message.id).toBe(String(stored.seq))
    stream.close()
  })

  test('disconnected, two changes, reconnected with the last id: both arrive once, in order', async () => {
    const first = await openStream(server.url, { tenant: t.tenant, query: '?types=order.create' })
    await newOrder()
    const last = await first.next()
    first.close()
    const a = await newOrder()
    const b = await newOrder()
    const again = await openStream(server.url, {
      tenant: t.tenant,
      query: '?types=order.create',
      headers: { 'last-event-id': last.id! },
    })
    const [one, two] = [await again.next(), await again.next()]
    expect([dataOf(one).payload.id, dataOf(two).payload.id]).toEqual([a.id, b.id])
    expect(Number(one.id)).toBeGreaterThan(Number(last.id))
    // Nothing comes twice: the next message is the next change.
    const c = await newOrder()
    expect(dataOf(await again.next()).payload.id).toBe(c.id)
    again.close()
  })

  test('`since` resumes as Last-Event-ID does, which wins when both are sent', async () => {
    const stream = await openStream(server.url, { tenant: t.tenant, query: '?types=order.create' })
    await newOrder()
    const mark = await stream.next()
    stream.close()
    const after = await newOrder()
    const bySince = await openStream(server.url, {
      tenant: t.tenant,
      query: `?types=order.create&since=${mark.id}`,
    })
    expect(dataOf(await bySince.next()).payload.id).toBe(after.id)
    bySince.close()
    const both = await openStream(server.url, {
      tenant: t.tenant,
      query: `?types=order.create&since=0`,
      headers: { 'last-event-id': mark.id! },
    })
    expect(dataOf(await both.next()).payload.id).toBe(after.id)
    both.close()
  })

  test('events of every process reach the stream once each, in commit order', async () => {
    const stream = await openStream(server.url, { tenant: t.tenant, query: '?types=order.create' })
    const worker = join(import.meta.dir, '..', 'orders', 'number-worker.ts')
    const path = tenantDatabasePath(t.dataDir, t.tenant.id)
    const perWorker = 10
    const workers = [0, 1].map(() =>
      Bun.spawn([process.execPath, worker, path, t.tenant.id, t.tenant.locationId, String(perWorker)], {
        stdout: 'pipe',
        stderr: 'pipe',
      }),
    )
    const here = await Promise.all([0, 1, 2, 3, 4].map(() => newOrder()))
    for (const w of workers) expect(await w.exited).toBe(0)
    const expected = 2 * perWorker + here.length
    const received: { id: number; order: string }[] = []
    while (received.length < expected) {
      const message = await stream.next()
      received.push({ id: Number(message.id), order: dataOf(message).payload.id })
    }
    expect(new Set(received.map((r) => r.order)).size).toBe(expected)
    expect(received.map((r) => r.id)).toEqual(received.map((r) => r.id).toSorted((x, y) => x - y))
    for (const order of here) expect(received.map((r) => r.order)).toContain(order.id)
    stream.close()
  })

  test('no token is 401, a forged one too', async () => {
    const none = await openStream(server.url, { tenant: t.tenant, as: null })
    expect(none.response.status).toBe(401)
    expect(none.response.headers.get('content-type')).toContain('application/problem+json')
    const forged = await openStream(server.url, { tenant: t.tenant, as: 'not-a-token' })
    expect(forged.response.status).toBe(401)
  })
})

describe('who sees what', () => {
  test('a staff user bound to one location never sees another location’s events', async () => {
    const b = t.addLocation(t.tenant, { name: 'Bound B' })
    const atA = await t.addStaff(t.tenant, { role: 'manager', locationId: t.tenant.locationId })
    const stream = await openStream(server.url, { tenant: t.tenant, as: atA })
    expect(stream.response.status).toBe(200)
    const atB = await newOrder(b.id)
    const mine = await newOrder()
    const message = await stream.next()
    expect(dataOf(message).payload.id).toBe(mine.id)
    expect(message.data).not.toContain(atB.id)
    // Naming the other location is refused, as on every route.
    const naming = await openStream(server.url, { tenant: t.tenant, as: atA, query: `?locationId=${b.id}` })
    expect(naming.response.status).toBe(403)
    stream.close()
  })

  test('a passcode session sees its own location only', async () => {
    const b = t.addLocation(t.tenant, { name: 'Session B' })
    const cashier = await t.addStaff(t.tenant, { role: 'staff', passcode: '4821' })
    const token = await t.passcodeSession(t.tenant, cashier, { passcode: '4821' })
    const stream = await openStream(server.url, { tenant: t.tenant, as: token })
    expect(stream.response.status).toBe(200)
    await newOrder(b.id)
    const mine = await newOrder()
    expect(dataOf(await stream.next()).payload.id).toBe(mine.id)
    stream.close()
  })

  test('an event needs the read permission of what it carries', async () => {
    // A credential holds scopes only: events:read and reservations:read show no order.
    const credential = t.addCredential(t.tenant, { scopes: ['events:read', 'reservations:read'] })
    const stream = await openStream(server.url, {
      tenant: t.tenant,
      as: credential.token,
      path: '/tables-api/v1/events/stream',
      query: '?follow=false&since=0',
    })
    expect(stream.response.status).toBe(200)
    const messages = await stream.rest()
    expect(messages.map((m) => m.event)).toEqual(['end'])
    expect(dataOf(messages[0]!)).toMatchObject({ reason: 'caught_up' })
  })

  test('a credential needs the events:read scope, and works on the tables-API path only', async () => {
    const without = t.addCredential(t.tenant, { scopes: ['reservations:read'] })
    const refused = await openStream(server.url, {
      tenant: t.tenant,
      as: without.token,
      path: '/tables-api/v1/events/stream',
    })
    expect(refused.response.status).toBe(403)
    const scoped = t.addCredential(t.tenant, { scopes: ['events:read'] })
    const elsewhere = await openStream(server.url, { tenant: t.tenant, as: scoped.token })
    expect(elsewhere.response.status).toBe(403)
  })

  test('a revoked credential’s stream ends with access_revoked', async () => {
    const credential = t.addCredential(t.tenant, { scopes: ['events:read', 'reservations:read'] })
    const stream = await openStream(server.url, {
      tenant: t.tenant,
      as: credential.token,
      path: '/tables-api/v1/events/stream',
    })
    expect(stream.response.status).toBe(200)
    revokeCredential(t.platform.control.db, t.platform.pool, credential.id)
    const end = await stream.next()
    expect(end.event).toBe('end')
    expect(dataOf(end)).toMatchObject({ reason: 'access_revoked', reconnect: false })
    expect(await stream.rest()).toEqual([])
  })
})

describe('filters', () => {
  test('types takes catalogue names; other events are left out', async () => {
    const stream = await openStream(server.url, { tenant: t.tenant, query: '?types=order.update' })
    const order = await newOrder()
    const res = await t.request('PUT', `/order/${order.id}`, { body: { note: 'window seat' } })
    expect(res.status).toBe(200)
    const message = await stream.next()
    expect(message.event).toBe('order.update')
    expect(dataOf(message).payload.id).toBe(order.id)
    stream.close()
  })

  test('a former name is accepted, and events come under it', async () => {
    const stream = await openStream(server.url, { tenant: t.tenant, query: '?types=cash-drawer.create' })
    expect(stream.response.status).toBe(200)
    const opened = await openDrawer(t)
    const message = await stream.next()
    expect(message.event).toBe('cash-drawer.create')
    expect(dataOf(message)).toMatchObject({
      object: 'cash-drawer',
      action: 'create',
      payload: { id: opened.id },
    })
    stream.close()
  })

  test('locationId narrows to one location', async () => {
    const b = t.addLocation(t.tenant, { name: 'Filter B' })
    const stream = await openStream(server.url, { tenant: t.tenant, query: `?locationId=${b.id}` })
    await newOrder()
    const there = await newOrder(b.id)
    expect(dataOf(await stream.next()).payload.id).toBe(there.id)
    stream.close()
  })

  test('an unknown name, a malformed id or an unknown location is refused', async () => {
    const unknown = await t.request('GET', '/events/stream?types=order.explode')
    expect(unknown.status).toBe(400)
    expect(unknown.body.errors[0].path).toBe('query/types')
    const malformed = await t.request('GET', '/events/stream?types=order')
    expect(malformed.status).toBe(400)
    const badId = await t.request('GET', '/events/stream', { headers: { 'last-event-id': 'abc' } })
    expect(badId.status).toBe(400)
    const nowhere = await t.request('GET', '/events/stream?locationId=no-such-location')
    expect(nowhere.status).toBe(404)
  })
})

describe('resume window', () => {
  test('an id older than EVENT_STREAM_RETENTION gets a reset, then the stream goes on', async () => {
    const order = await newOrder()
    const seq = (
      t.tenant.db.$client
        .query("SELECT seq FROM outbox_events WHERE aggregate_id = ? AND action = 'create'")
        .get(order.id) as { seq: number }
    ).seq
    // The events after the id asked for were written two days ago.
    t.tenant.db.$client.run(
      "UPDATE outbox_events SET created_at = '2020-01-01T00:00:00.000Z' WHERE seq = ?",
      [seq],
    )
    const stream = await openStream(server.url, { tenant: t.tenant, query: `?since=${seq - 1}` })
    const reset = await stream.next()
    expect(reset.event).toBe('reset')
    expect(dataOf(reset)).toMatchObject({ reason: 'expired', since: String(seq - 1) })
    expect(reset.id).toBe(dataOf(reset).resumeFrom)
    const later = await newOrder()
    expect(dataOf(await stream.next()).payload.id).toBe(later.id)
    stream.close()
  })

  test('an id beyond the outbox is unknown: reset', async () => {
    const stream = await openStream(server.url, { tenant: t.tenant, query: '?since=999999999' })
    const reset = await stream.next()
    expect(reset.event).toBe('reset')
    expect(dataOf(reset).reason).toBe('unknown')
    stream.close()
  })
})

describe('events another process committed, not read here yet', () => {
  /**
   * A served app whose feed polls far apart (it reads another process's commits only when asked),
   * with a stream open on its feed and, past the feed's cursor, two order events another process
   * (the other HTTP worker) committed: their positions.
   */
  async function committedElsewhere(
    check: (url: string, app: TestApp, seqs: { first: number; second: number }) => Promise<void>,
  ) {
    const app = await createTestApp({ config: { eventStreamPollIntervalMs: 60_000 } })
    const local = serve(app)
    try {
      // An open stream keeps the tenant's feed, whose cursor follows other processes at its polls.
      const watching = await openStream(local.url, { tenant: app.tenant })
      expect(
        (await app.request('POST', '/order', { body: { locationId: app.tenant.locationId } })).status,
      ).toBe(201)
      await watching.next()
      const other = new Database(tenantDatabasePath(app.dataDir, app.tenant.id))
      const append = other.query(
        `INSERT INTO outbox_events (id, object, action, aggregate_id, payload, user, location_id, request_id, created_at)
         SELECT ?, object, action, aggregate_id, payload, user, location_id, request_id, created_at
         FROM outbox_events ORDER BY seq DESC LIMIT 1 RETURNING seq`,
      )
      const [first, second] = ['elsewhere-1', 'elsewhere-2'].map(
        (id) => (append.get(id) as { seq: number }).seq,
      ) as [number, number]
      other.close()
      await check(local.url, app, { first, second })
      watching.close()
    } finally {
      local.stop()
      await app.close()
    }
  }

  test('a stream resumed from one of them resumes after it: no reset, nothing sent twice', () =>
    committedElsewhere(async (url, app, { first, second }) => {
      // A client that saw the first (from that worker) resumes here.
      const resumed = await openStream(url, { tenant: app.tenant, query: `?since=${first}` })
      const next = await resumed.next()
      expect([next.event, next.id]).toEqual(['order.create', String(second)])
      resumed.close()
    }))

  test('a stream from now is sent none of them, and what commits after it opened', () =>
    committedElsewhere(async (url, app, { second }) => {
      const stream = await openStream(url, { tenant: app.tenant })
      const res = await app.request('POST', '/order', { body: { locationId: app.tenant.locationId } })
      expect(res.status).toBe(201)
      const next = await stream.next()
      expect([next.event, Number(next.id)]).toEqual(['order.create', second + 1])
      expect(dataOf(next).payload.id).toBe(res.body.id)
      stream.close()
    }))

  test('a stream that does not follow sends them before it ends', () =>
    committedElsewhere(async (url, app, { first, second }) => {
      const stream = await openStream(url, { tenant: app.tenant, query: `?follow=false&since=${first - 1}` })
      const messages = await stream.rest()
      expect(messages.map((m) => [m.event, m.id])).toEqual([
        ['order.create', String(first)],
        ['order.create', String(second)],
        ['end', null],
      ])
      expect(dataOf(messages.at(-1)!)).toMatchObject({ reason: 'caught_up' })
    }))
})

describe('a cluster move', () => {
  test('a tenant this node stops serving ends its streams with a reconnect hint', async () => {
    const stream = await openStream(server.url, { tenant: t.tenant })
    const served = t.platform.pool.isServed
    // What a cluster node answers once another node owns the tenant (platform/cluster/node.ts).
    t.platform.pool.isServed = (tenantId) => tenantId !== t.tenant.id && served(tenantId)
    try {
      const end = await stream.next()
      expect(end.event).toBe('end')
      expect(dataOf(end)).toMatchObject({ reason: 'tenant_moved', reconnect: true })
      expect(await stream.rest()).toEqual([])
    } finally {
      t.platform.pool.isServed = served
    }
  })
})

describe('the stream cookie, for EventSource', () => {
  test('POST /events/stream/cookie sets HttpOnly, SameSite=Strict cookies the stream authenticates with', async () => {
    const set = await t.request('POST', '/events/stream/cookie')
    expect(set.status).toBe(204)
    const cookies = set.headers.getSetCookie()
    expect(cookies).toHaveLength(2)
    for (const cookie of cookies) {
      expect(cookie).toContain('HttpOnly')
      expect(cookie).toContain('SameSite=Strict')
      expect(cookie).toContain('Path=/events/stream')
    }
    const cookie = cookies.map((c) => c.split(';')[0]).join('; ')
    const stream = await openStream(server.url, { tenant: t.tenant, as: null, headers: { cookie } })
    expect(stream.response.status).toBe(200)
    const order = await newOrder()
    expect(dataOf(await stream.next()).payload.id).toBe(order.id)
    stream.close()
    // Only the stream takes it: another route without Authorization is 401.
    const other = await fetch(`${server.url}/order`, { headers: { cookie, 'x-tenant-id': t.tenant.id } })
    expect(other.status).toBe(401)
  })

  test('a cookie with a bad token is 401, and the cookie route needs a token', async () => {
    const stream = await openStream(server.url, {
      tenant: t.tenant,
      as: null,
      headers: { cookie: 'ro_bearer=forged' },
    })
    expect(stream.response.status).toBe(401)
    const anonymous = await t.request('POST', '/events/stream/cookie', { as: null })
    expect(anonymous.status).toBe(401)
  })
})
