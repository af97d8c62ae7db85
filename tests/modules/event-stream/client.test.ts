// The typed client's subscribe: events handled once each, in order, across a dropped connection
// (it reconnects with Last-Event-ID).
import { afterAll, expect, test } from 'bun:test'
import { createRestaurantOpsClient } from '../../../client'
import { createTestApp } from '../../harness'

const t = await createTestApp()
afterAll(() => t.close())

test('subscribe resumes after a dropped connection: every order once, in order', async () => {
  const connections: { lastEventId: string | null; drop: () => void }[] = []
  const client = createRestaurantOpsClient({
    baseUrl: 'http://localhost',
    token: t.tenant.owner.token,
    tenantId: t.tenant.id,
    // Each response's body passes through a pipe the test can cut, as a network would.
    fetch: async (request: Request) => {
      const response = await t.app.handle(request)
      if (!request.url.includes('/events/stream')) return response
      const cut = new AbortController()
      const pipe = new TransformStream<Uint8Array, Uint8Array>()
      response.body!.pipeTo(pipe.writable, { signal: cut.signal }).catch(() => {})
      connections.push({ lastEventId: request.headers.get('last-event-id'), drop: () => cut.abort() })
      return new Response(pipe.readable, { status: response.status, headers: response.headers })
    },
  })
  const received: string[] = []
  let waiting: { count: number; resolve: () => void } | null = null
  const arrived = (count: number) =>
    new Promise<void>((resolve) => {
      if (received.length >= count) return resolve()
      waiting = { count, resolve }
    })
  const subscription = client.subscribe(
    ['order.create'],
    (name, body) => {
      expect(name).toBe('order.create')
      received.push(body.payload.id)
      if (waiting && received.length >= waiting.count) waiting.resolve()
    },
    { reconnectDelayMs: 0 },
  )
  const create = async () =>
    (await client.POST('/order', { body: { locationId: t.tenant.locationId } })).data!.id
  while (connections.length === 0) await Bun.sleep(1)
  const a = await create()
  await arrived(1)
  connections[0]!.drop()
  const b = await create()
  const c = await create()
  await arrived(3)
  expect(received).toEqual([a, b, c])
  expect(connections.length).toBeGreaterThanOrEqual(2)
  // The reconnection asked for what came after a's event.
  const aEvent = t.tenant.db.$client
    .query("SELECT seq FROM outbox_events WHERE aggregate_id = ? AND action = 'create'")
    .get(a) as { seq: number }
  expect(connections[1]!.lastEventId).toBe(String(aEvent.seq))
  expect(subscription.lastEventId).not.toBe(String(aEvent.seq))
  subscription.close()
  await subscription.done
})
