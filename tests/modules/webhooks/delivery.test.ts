// End to end: events from real writes, delivered by the real worker to a real HTTP receiver on
// loopback, signatures verified with the `standardwebhooks` package.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { Webhook } from 'standardwebhooks'
import { configFor } from '../../../src/config'
import { onDeliveriesQueued } from '../../../src/platform/events/delivery'
import { DELIVERY_JOB } from '../../../src/platform/events/worker'
import type { Db } from '../../../src/platform/tenancy/databases'
import { createApp } from '../../../src/server'
import { createTestApp, type TestApp } from '../../harness'
import { removeTestDir } from '../../temp-dirs'
import { fastDelivery, type Receiver, startReceiver, waitFor } from './receiver'

let t: TestApp
let receivers: Receiver[] = []
const receiver = (options?: Parameters<typeof startReceiver>[0]) => {
  const r = startReceiver(options)
  receivers.push(r)
  return r
}

afterEach(async () => {
  await t?.platform.jobs.stop()
  t?.close()
  for (const r of receivers) r.stop()
  receivers = []
})

async function subscribe(url: string, extra: Record<string, unknown> = {}) {
  const res = await t.request('POST', '/web-hook', {
    body: { object: 'vendor', action: 'create', url, ...extra },
  })
  expect(res.status).toBe(201)
  return res.body as { id: string; secret: string }
}

async function createVendor(name = 'Napa Glass Co') {
  const res = await t.request('POST', '/vendor', { body: { name } })
  expect(res.status).toBe(201)
  return res.body as { id: string; name: string }
}

const rows = (db: Db, sql: string, ...params: unknown[]) =>
  db.$client.query(sql).all(...(params as never[])) as any[]

describe('webhook delivery', () => {
  test('delivers a signed Commerce7-shaped body that standardwebhooks verifies, and logs it', async () => {
    t = await createTestApp({ config: fastDelivery })
    const r = receiver()
    const sub = await subscribe(r.url, { headers: { 'X-Api-Key': 'shh-secret' } })
    expect(sub.secret).toStartWith('whsec_')
    t.platform.jobs.start()
    const vendor = await createVendor()
    await waitFor(() => r.received.length === 1, 'one delivery')

    const [got] = r.received
    const verified = new Webhook(sub.secret).verify(got!.body, got!.headers) as any
    expect(verified).toEqual({
      object: 'vendor',
      action: 'create',
      payload: expect.objectContaining({ id: vendor.id, name: 'Napa Glass Co' }),
      user: t.tenant.owner.id,
      tenantId: t.tenant.id,
    })
    expect(got!.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/)
    expect(got!.headers['x-api-key']).toBe('shh-secret')
    // A wrong secret does not verify.
    expect(() =>
      new Webhook(`whsec_${btoa('another secret of enough length')}`).verify(got!.body, got!.headers),
    ).toThrow()

    const log = await waitFor(async () => {
      const res = await t.request('GET', '/web-hook-log')
      return res.body.total === 1 ? res.body : null
    }, 'log entry')
    expect(log.webHookLogs[0]).toMatchObject({
      url: r.url,
      object: 'vendor',
      action: 'create',
      isSuccess: true,
      error: null,
      user: t.tenant.owner.id,
      payload: expect.objectContaining({ id: vendor.id }),
    })
    const [attempt] = rows(t.tenant.db, 'SELECT request_headers FROM webhook_delivery_attempts')
    expect(JSON.parse(attempt.request_headers)['x-api-key']).toBe('[redacted]')
  })

  test('a receiver that fails twice then succeeds: three attempts logged, one success, one webhook-id', async () => {
    t = await createTestApp({ config: fastDelivery })
    const r = receiver({ script: [500, { status: 502, body: 'bad gateway' }], fallback: 204 })
    await subscribe(r.url)
    t.platform.jobs.start()
    await createVendor()
    await waitFor(() => r.received.length === 3, 'three attempts')
    await waitFor(
      async () => (await t.request('GET', '/web-hook-log?isSuccess=true')).body.total === 1,
      'success logged',
    )

    const all = (await t.request('GET', '/web-hook-log')).body
    expect(all.total).toBe(3)
    const failed = (await t.request('GET', '/web-hook-log?isSuccess=false')).body
    expect(failed.total).toBe(2)
    expect(failed.webHookLogs.map((l: any) => l.error)).toEqual([
      { data: { body: 'bad gateway' }, status: 502, message: expect.stringContaining('502') },
      { data: { error: 'status 500' }, status: 500, message: expect.stringContaining('500') },
    ])
    expect(new Set(r.received.map((x) => x.headers['webhook-id'])).size).toBe(1)
    expect(all.webHookLogs.map((l: any) => l.attemptNumber)).toEqual([3, 2, 1])
    expect((await t.request('GET', '/web-hook-log?object=VENDOR&action=create')).body.total).toBe(3)
    expect((await t.request('GET', '/web-hook-log?object=customer')).body.total).toBe(0)
    expect((await t.request('GET', '/web-hook-dead-letters')).body.total).toBe(0)
  })

  test('a receiver that always fails becomes a dead letter; replay after it recovers delivers once more', async () => {
    t = await createTestApp({ config: fastDelivery })
    const r = receiver({ fallback: 500 })
    await subscribe(r.url)
    t.platform.jobs.start()
    const vendor = await createVendor()
    const list = await waitFor(async () => {
      const res = await t.request('GET', '/web-hook-dead-letters')
      return res.body.total === 1 ? res.body : null
    }, 'dead letter')
    expect(r.received).toHaveLength(3) // the first attempt and the two retries of the schedule
    const letter = list.deadLetters[0]
    expect(letter).toMatchObject({
      objectType: 'vendor',
      action: 'create',
      aggregateId: vendor.id,
      status: 'pending',
      attemptCount: 3,
      deliveryCycle: 1,
      lastError: expect.stringContaining('500'),
      attemptSummary: { total: 3, failed: 3, succeeded: 0, delivering: 0 },
      subscriptionSummary: { matching: 1, enabled: 1 },
      recovery: { eligible: true, reasonCode: 'replayable', latestAction: null },
    })
    expect(letter.payloadKeys).toContain('name')

    const review = await t.request('POST', `/web-hook-dead-letters/${letter.id}/manual-review`, {
      body: { note: 'receiver was down for maintenance' },
    })
    expect(review.status).toBe(200)
    expect(review.body.attempts).toHaveLength(3)
    expect(review.body.recovery.latestAction).toMatchObject({
      action: 'manual_review',
      note: 'receiver was down for maintenance',
      deliveryCycle: 1,
      actorStaffUserId: t.tenant.owner.id,
    })

    r.fallback = 200
    const replay = await t.request('POST', `/web-hook-dead-letters/${letter.id}/replay`)
    expect(replay.status).toBe(200)
    expect(replay.body).toMatchObject({ status: 'replaying', deliveryCycle: 2 })
    expect(replay.body.recovery).toMatchObject({ eligible: false, reasonCode: 'replay_in_progress' })

    const done = await waitFor(async () => {
      const res = await t.request('GET', `/web-hook-dead-letters/${letter.id}`)
      return res.body.status === 'delivered' ? res.body : null
    }, 'replay delivered')
    expect(r.received).toHaveLength(4)
    expect(new Set(r.received.map((x) => x.headers['webhook-id'])).size).toBe(1)
    expect(done.attempts.at(-1)).toMatchObject({
      deliveryCycle: 2,
      attemptNumber: 1,
      status: 'succeeded',
      responseStatus: 200,
    })
    expect(done.recovery).toMatchObject({ eligible: false, reasonCode: 'already_delivered' })
    expect(done.recovery.latestAction).toMatchObject({ action: 'replay', deliveryCycle: 2 })

    const again = await t.request('POST', `/web-hook-dead-letters/${letter.id}/replay`)
    expect(again.status).toBe(409)
    expect(again.body.recovery.reasonCode).toBe('already_delivered')
    const audit = rows(
      t.tenant.db,
      "SELECT action FROM audit_entries WHERE action LIKE 'webhook_dead_letter.%'",
    )
    expect(audit.map((a) => a.action)).toEqual([
      'webhook_dead_letter.manual_review',
      'webhook_dead_letter.replay',
    ])
  })

  test('410 disables the subscription; its dead letter is replayable only once it is enabled again', async () => {
    t = await createTestApp({ config: fastDelivery })
    const r = receiver({ fallback: 410 })
    const sub = await subscribe(r.url)
    t.platform.jobs.start()
    await createVendor()
    const list = await waitFor(async () => {
      const res = await t.request('GET', '/web-hook-dead-letters')
      return res.body.total === 1 ? res.body : null
    }, 'dead letter')
    expect(r.received).toHaveLength(1) // no retries after 410
    expect((await t.request('GET', `/web-hook/${sub.id}`)).body.enabled).toBe(false)
    const letter = list.deadLetters[0]
    expect(letter.subscriptionSummary).toEqual({ matching: 1, enabled: 0 })
    expect(letter.recovery).toMatchObject({ eligible: false, reasonCode: 'no_enabled_subscription' })
    const refused = await t.request('POST', `/web-hook-dead-letters/${letter.id}/replay`)
    expect(refused.status).toBe(409)
    expect(refused.body.recovery.reasonCode).toBe('no_enabled_subscription')

    // Later events are not delivered to the disabled subscription.
    await createVendor('Second')
    await waitFor(
      () => rows(t.tenant.db, 'SELECT 1 FROM outbox_events WHERE dispatched_at IS NULL').length === 0,
      'fan-out',
    )
    expect(r.received).toHaveLength(1)

    r.fallback = 200
    expect((await t.request('PUT', `/web-hook/${sub.id}`, { body: { enabled: true } })).body.enabled).toBe(
      true,
    )
    const eligible = (await t.request('GET', `/web-hook-dead-letters/${letter.id}`)).body
    expect(eligible.recovery.eligible).toBe(true)
    expect((await t.request('POST', `/web-hook-dead-letters/${letter.id}/replay`)).status).toBe(200)
    await waitFor(() => r.received.length === 2, 'replayed delivery')
    const audit = rows(t.tenant.db, "SELECT subject FROM audit_entries WHERE action = 'webhook.disable'")
    expect(audit).toEqual([{ subject: 'system:webhooks' }])
  })

  test('Retry-After pushes the next attempt past the schedule', async () => {
    t = await createTestApp({ config: fastDelivery })
    const r = receiver({ script: [{ status: 503, headers: { 'retry-after': '120' } }] })
    await subscribe(r.url)
    await createVendor()
    const before = Date.now()
    await t.platform.jobs.runNow(DELIVERY_JOB)
    expect(r.received).toHaveLength(1)
    const [delivery] = rows(t.tenant.db, 'SELECT status, next_attempt_at FROM webhook_deliveries')
    expect(delivery.status).toBe('pending')
    expect(Date.parse(delivery.next_attempt_at) - before).toBeGreaterThanOrEqual(120_000)
  })

  test('a target that is private when delivering is refused without sending anything', async () => {
    t = await createTestApp({
      config: { ...fastDelivery, webhookAllowPrivateTargets: false, webhookRetryScheduleMs: [] },
    })
    const r = receiver()
    // As if created while WEBHOOK_ALLOW_PRIVATE_TARGETS was on.
    t.tenant.db.$client
      .query(
        `INSERT INTO webhook_subscriptions (id, family, object, action, url, enabled, headers, secret, created_at, updated_at)
         VALUES ('00000000-0000-7000-8000-000000000001', 'legacy', 'vendor', 'create', ?, 1, '{}', 'whsec_AAAA', '2000-01-01T00:00:00.000Z', '2000-01-01T00:00:00.000Z')`,
      )
      .run(r.url)
    await createVendor()
    await t.platform.jobs.runNow(DELIVERY_JOB)
    expect(r.received).toHaveLength(0)
    const log = (await t.request('GET', '/web-hook-log')).body
    expect(log.webHookLogs[0]).toMatchObject({ isSuccess: false, error: { status: 0 } })
    expect(log.webHookLogs[0].error.message).toBe(
      'target refused: must not target a non-public address: 127.0.0.1 is loopback (allowed only with WEBHOOK_ALLOW_PRIVATE_TARGETS=true)',
    )
    expect((await t.request('GET', '/web-hook-dead-letters')).body.total).toBe(1)
  })

  test('a host name that resolves to a private address is refused at connect time, nothing sent', async () => {
    t = await createTestApp({
      config: { ...fastDelivery, webhookAllowPrivateTargets: false, webhookRetryScheduleMs: [] },
    })
    const r = receiver()
    const port = new URL(r.url).port
    // A public-looking name passes when saved; only its DNS answer shows where it leads.
    await subscribe(`http://hooks.example.com:${port}/hook`)
    await createVendor()
    const asked: string[] = []
    const settings = {
      tenantId: t.tenant.id,
      retryScheduleMs: [],
      timeoutMs: fastDelivery.webhookTimeoutMs,
      allowPrivateTargets: false,
      resolveHost: async (host: string) => {
        asked.push(host)
        return ['10.0.0.7', '127.0.0.1']
      },
      userAgent: 'test',
      log: t.platform.log,
    }
    const { deliverTenant } = await import('../../../src/platform/events/delivery')
    await deliverTenant(() => t.tenant.db, settings, new AbortController().signal)

    expect(asked).toEqual(['hooks.example.com'])
    expect(r.received).toHaveLength(0)
    const attempts = rows(
      t.tenant.db,
      'SELECT status, response_status, error_message FROM webhook_delivery_attempts',
    )
    expect(attempts).toEqual([
      {
        status: 'failed',
        response_status: null,
        error_message:
          'target refused: hooks.example.com resolves to 10.0.0.7, which is private (allowed only with WEBHOOK_ALLOW_PRIVATE_TARGETS=true)',
      },
    ])
    expect(rows(t.tenant.db, 'SELECT status FROM webhook_deliveries')).toEqual([{ status: 'dead' }])

    // The same answer with WEBHOOK_ALLOW_PRIVATE_TARGETS: sent to the address resolved, by name.
    const replay = (await t.request('GET', '/web-hook-dead-letters')).body.deadLetters[0]
    expect((await t.request('POST', `/web-hook-dead-letters/${replay.id}/replay`)).status).toBe(200)
    await deliverTenant(
      () => t.tenant.db,
      { ...settings, allowPrivateTargets: true, resolveHost: async () => ['127.0.0.1'] },
      new AbortController().signal,
    )
    expect(r.received).toHaveLength(1)
    expect(r.received[0]!.headers.host).toBe(`hooks.example.com:${port}`)
  })

  test('events without a matching enabled subscription are dispatched to nobody', async () => {
    t = await createTestApp({ config: fastDelivery })
    const r = receiver()
    await subscribe(r.url, { action: 'delete' })
    await subscribe(r.url, { enabled: false })
    await createVendor()
    await t.platform.jobs.runNow(DELIVERY_JOB)
    expect(r.received).toHaveLength(0)
    expect(rows(t.tenant.db, 'SELECT dispatched_at FROM outbox_events')[0].dispatched_at).toBeString()
    expect(rows(t.tenant.db, 'SELECT * FROM webhook_deliveries')).toHaveLength(0)
  })

  test('each tenant receives only its own events', async () => {
    t = await createTestApp({ config: fastDelivery })
    const other = await t.addTenant('other')
    const mine = receiver()
    const theirs = receiver()
    await subscribe(mine.url)
    const res = await t.request('POST', '/web-hook', {
      tenant: other,
      as: other.owner,
      body: { object: 'vendor', action: 'create', url: theirs.url },
    })
    expect(res.status).toBe(201)
    t.platform.jobs.start()
    await createVendor()
    await waitFor(() => mine.received.length === 1, 'delivery to acme')
    await t.platform.jobs.runNow(DELIVERY_JOB)
    expect(theirs.received).toHaveLength(0)
    expect(mine.received[0]!.json.tenantId).toBe(t.tenant.id)
  })
})

describe('webhook delivery under concurrency', () => {
  test('a claimed delivery cannot be claimed again, even from another connection, until its lease ends', async () => {
    t = await createTestApp({ config: fastDelivery })
    const r = receiver()
    await subscribe(r.url)
    await createVendor()
    const { claimDue, fanOut } = await import('../../../src/platform/events/delivery')
    fanOut(t.tenant.db)
    const settings = {
      tenantId: t.tenant.id,
      retryScheduleMs: fastDelivery.webhookRetryScheduleMs,
      timeoutMs: fastDelivery.webhookTimeoutMs,
      allowPrivateTargets: true,
      userAgent: 'test',
      log: t.platform.log,
    }
    // A second process over the same data directory has its own connection.
    const { platform: second } = await createApp({
      config: configFor({ dataDir: t.dataDir, ...fastDelivery }),
    })
    try {
      const claims = await Promise.all([
        Promise.resolve().then(() => claimDue(t.tenant.db, settings)),
        Promise.resolve().then(() => claimDue(second.pool.get(t.tenant.id).db, settings)),
      ])
      expect(claims.map((c) => c.length).sort()).toEqual([0, 1])
    } finally {
      second.close()
    }
  })

  test('concurrent replays of one dead letter start one cycle', async () => {
    t = await createTestApp({ config: { ...fastDelivery, webhookRetryScheduleMs: [] } })
    const r = receiver({ fallback: 500 })
    await subscribe(r.url)
    await createVendor()
    await t.platform.jobs.runNow(DELIVERY_JOB)
    const letter = (await t.request('GET', '/web-hook-dead-letters')).body.deadLetters[0]
    const results = await Promise.all(
      Array.from({ length: 5 }, () => t.request('POST', `/web-hook-dead-letters/${letter.id}/replay`)),
    )
    expect(results.map((res) => res.status).sort()).toEqual([200, 409, 409, 409, 409])
    const detail = (await t.request('GET', `/web-hook-dead-letters/${letter.id}`)).body
    expect(detail.deliveryCycle).toBe(2)
    expect(
      rows(t.tenant.db, "SELECT 1 FROM webhook_dead_letter_actions WHERE action = 'replay'"),
    ).toHaveLength(1)
  })
})

describe('webhook delivery across a restart', () => {
  test('a retry due after the server stopped is delivered by the next server', async () => {
    t = await createTestApp({ config: { ...fastDelivery, webhookRetryScheduleMs: [50] } })
    const r = receiver({ script: [500], fallback: 200 })
    const sub = await subscribe(r.url)
    await createVendor()
    await t.platform.jobs.runNow(DELIVERY_JOB) // first attempt fails, the retry is scheduled
    expect(r.received).toHaveLength(1)
    await t.platform.shutdown()

    const { platform } = await createApp({ config: configFor({ dataDir: t.dataDir, ...fastDelivery }) })
    try {
      platform.jobs.start()
      await waitFor(() => r.received.length === 2, 'delivery after restart')
      const db = platform.pool.get(t.tenant.id).db
      await waitFor(
        () => rows(db, "SELECT 1 FROM webhook_deliveries WHERE status = 'succeeded'").length === 1,
        'success',
      )
      const attempts = rows(db, 'SELECT attempt_number, status FROM webhook_delivery_attempts ORDER BY seq')
      expect(attempts).toEqual([
        { attempt_number: 1, status: 'failed' },
        { attempt_number: 2, status: 'succeeded' },
      ])
      expect(new Webhook(sub.secret).verify(r.received[1]!.body, r.received[1]!.headers)).toBeTruthy()
    } finally {
      await platform.shutdown()
      removeTestDir(t.dataDir)
      t = undefined as unknown as TestApp
    }
  })

  test('an attempt cut off by a crash is closed as interrupted and retried by the next server', async () => {
    const config = { ...fastDelivery, webhookTimeoutMs: 100 }
    t = await createTestApp({ config })
    const r = receiver()
    await subscribe(r.url)
    await createVendor()
    // Simulate a process that claimed the delivery and died before the request was answered.
    const { claimDue, fanOut } = await import('../../../src/platform/events/delivery')
    fanOut(t.tenant.db)
    const settings = {
      tenantId: t.tenant.id,
      retryScheduleMs: config.webhookRetryScheduleMs,
      timeoutMs: config.webhookTimeoutMs,
      allowPrivateTargets: true,
      userAgent: 'test',
      log: t.platform.log,
    }
    expect(claimDue(t.tenant.db, settings)).toHaveLength(1)
    t.platform.close()

    const { platform } = await createApp({ config: configFor({ dataDir: t.dataDir, ...config }) })
    try {
      platform.jobs.start()
      await waitFor(() => r.received.length === 1, 'delivery after the lease ran out')
      const db = platform.pool.get(t.tenant.id).db
      await waitFor(
        () => rows(db, "SELECT 1 FROM webhook_deliveries WHERE status = 'succeeded'").length === 1,
        'success',
      )
      const attempts = rows(
        db,
        'SELECT attempt_number, status, error_message FROM webhook_delivery_attempts ORDER BY seq',
      )
      expect(attempts).toEqual([
        { attempt_number: 1, status: 'failed', error_message: expect.stringContaining('interrupted') },
        { attempt_number: 2, status: 'succeeded', error_message: null },
      ])
    } finally {
      await platform.shutdown()
      removeTestDir(t.dataDir)
      t = undefined as unknown as TestApp
    }
  })
})

describe('fan-out at commit', () => {
  const woken: string[] = []
  let stopListening = () => {}
  beforeEach(() => {
    woken.length = 0
    stopListening = onDeliveriesQueued((tenantId) => void woken.push(tenantId))
  })
  afterEach(() => stopListening())

  test.each([
    ['in groups', true],
    ['each at once', false],
  ])("a write's events fan out as it commits (%s): the delivery is pending when the response arrives, and delivery is woken", async (_, groupCommit) => {
    t = await createTestApp({ config: { ...fastDelivery, groupCommit } })
    const r = receiver()
    const sub = await subscribe(r.url)
    const vendor = await createVendor()
    const [event] = rows(t.tenant.db, "SELECT id, dispatched_at FROM outbox_events WHERE object = 'vendor'")
    expect(event.dispatched_at).toBeString()
    expect(rows(t.tenant.db, 'SELECT event_id, subscription_id, status FROM webhook_deliveries')).toEqual([
      { event_id: event.id, subscription_id: sub.id, status: 'pending' },
    ])
    expect(woken).toEqual([t.tenant.id])
    // The delivery job, never run so far, sends it.
    await t.platform.jobs.runNow(DELIVERY_JOB)
    expect(r.received.map((got) => got.json.payload.id)).toEqual([vendor.id])
  })

  test('events no subscription receives are dispatched at commit and wake nobody', async () => {
    t = await createTestApp({ config: fastDelivery })
    const r = receiver()
    await subscribe(r.url, { action: 'delete' })
    await createVendor()
    expect(rows(t.tenant.db, 'SELECT dispatched_at FROM outbox_events WHERE dispatched_at IS NULL')).toEqual(
      [],
    )
    expect(rows(t.tenant.db, 'SELECT * FROM webhook_deliveries')).toEqual([])
    expect(woken).toEqual([])
  })

  test('a failing fan-out is rolled back alone: the write commits, its event waits for the delivery visit', async () => {
    t = await createTestApp({ config: fastDelivery })
    const r = receiver()
    await subscribe(r.url)
    // Marking the events fanned out fails, after the deliveries were written.
    t.tenant.db.$client.exec(
      "CREATE TRIGGER refuse_fan_out BEFORE UPDATE OF dispatched_at ON outbox_events BEGIN SELECT RAISE(ABORT, 'refused'); END",
    )
    const vendor = await createVendor()
    expect(rows(t.tenant.db, 'SELECT id FROM vendors')).toEqual([{ id: vendor.id }])
    expect(rows(t.tenant.db, "SELECT dispatched_at FROM outbox_events WHERE object = 'vendor'")).toEqual([
      { dispatched_at: null },
    ])
    expect(rows(t.tenant.db, 'SELECT * FROM webhook_deliveries')).toEqual([])
    // Delivery is woken to fan it out in its visit.
    expect(woken).toEqual([t.tenant.id])
    t.tenant.db.$client.exec('DROP TRIGGER refuse_fan_out')
    await t.platform.jobs.runNow(DELIVERY_JOB)
    expect(r.received.map((got) => got.json.payload.id)).toEqual([vendor.id])
  })
})
