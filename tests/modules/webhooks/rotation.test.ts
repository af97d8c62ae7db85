// Signing secret rotation (Standard Webhooks): a new secret, the old one still signing next to it
// for a grace period, for both subscription families.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { Webhook } from 'standardwebhooks'
import { DELIVERY_JOB } from '../../../src/platform/events/worker'
import { createTestApp, type TestApp } from '../../harness'
import { type Receiver, startReceiver } from './receiver'

let t: TestApp
let r: Receiver
beforeEach(async () => {
  t = await createTestApp({ config: { webhookAllowPrivateTargets: true, webhookRetryScheduleMs: [] } })
  r = startReceiver()
})
afterEach(() => {
  t.close()
  r.stop()
})

const subscribe = async () => {
  const res = await t.request('POST', '/web-hook', {
    body: { object: 'vendor', action: 'create', url: r.url },
  })
  expect(res.status).toBe(201)
  return res.body as { id: string; secret: string }
}
const rotate = (id: string, body: unknown = {}, as = t.tenant.owner) =>
  t.request('POST', `/web-hook/${id}/rotate-secret`, { as, body })

/** Makes a vendor, delivers its event, and answers the request the receiver got. */
async function deliver(name: string) {
  expect((await t.request('POST', '/vendor', { body: { name } })).status).toBe(201)
  await t.platform.jobs.runNow(DELIVERY_JOB)
  const received = r.received.at(-1)!
  expect(received.json.payload.name).toBe(name)
  return received
}
const verifies = (secret: string, received: { headers: Record<string, string>; body: string }) => {
  try {
    new Webhook(secret).verify(received.body, received.headers)
    return true
  } catch {
    return false
  }
}

describe('legacy webhooks', () => {
  test('during the grace period deliveries carry both signatures; each secret verifies', async () => {
    const sub = await subscribe()
    const before = Date.now()
    const res = await rotate(sub.id)
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ id: sub.id, object: 'vendor', action: 'create', enabled: true })
    expect(res.body.secret).toStartWith('whsec_')
    expect(res.body.secret).not.toBe(sub.secret)
    const expires = Date.parse(res.body.previousSecretExpiresAt)
    expect(expires - before).toBeGreaterThanOrEqual(24 * 3600 * 1000 - 1000)
    expect(expires - before).toBeLessThanOrEqual(24 * 3600 * 1000 + 5000)
    const received = await deliver('Both signatures')
    expect(received.headers['webhook-signature']!.split(' ')).toHaveLength(2)
    expect(verifies(res.body.secret, received)).toBe(true)
    expect(verifies(sub.secret, received)).toBe(true)
    // The secret is never listed, nor kept in the audit trail.
    const listed = await t.request('GET', `/web-hook/${sub.id}`)
    expect(listed.text).not.toContain(res.body.secret)
    const audit = await t.request('GET', `/audit-entries?action=webhook.rotate_secret&entityId=${sub.id}`)
    expect(audit.body.auditEntries).toHaveLength(1)
    expect(audit.body.auditEntries[0].metadata).toEqual({
      graceSeconds: 86_400,
      previousSecretExpiresAt: res.body.previousSecretExpiresAt,
    })
    expect(audit.text).not.toContain(res.body.secret)
    expect(audit.text).not.toContain(sub.secret)
  })

  test('rotating again drops a secret still in its grace period: only the newest two sign', async () => {
    const sub = await subscribe()
    const first = (await rotate(sub.id, { graceSeconds: 3600 })).body
    const second = (await rotate(sub.id, { graceSeconds: 3600 })).body
    const received = await deliver('Newest two')
    expect(verifies(second.secret, received)).toBe(true)
    expect(verifies(first.secret, received)).toBe(true)
    expect(verifies(sub.secret, received)).toBe(false)
  })

  test('graceSeconds 0 stops the old secret at once', async () => {
    const sub = await subscribe()
    const rotated = (await rotate(sub.id, { graceSeconds: 0 })).body
    expect(rotated.previousSecretExpiresAt).toBeNull()
    const received = await deliver('One signature')
    expect(received.headers['webhook-signature']!.split(' ')).toHaveLength(1)
    expect(verifies(rotated.secret, received)).toBe(true)
    expect(verifies(sub.secret, received)).toBe(false)
  })

  test('an expired grace period signs with the new secret only', async () => {
    const sub = await subscribe()
    const rotated = (await rotate(sub.id, { graceSeconds: 60 })).body
    t.tenant.db.$client.run(
      "UPDATE webhook_subscriptions SET previous_secret_expires_at = '2000-01-01T00:00:00.000Z'",
    )
    const received = await deliver('After the grace period')
    expect(verifies(rotated.secret, received)).toBe(true)
    expect(verifies(sub.secret, received)).toBe(false)
  })

  test.each([
    ['a negative grace period', { graceSeconds: -1 }, 'body/graceSeconds'],
    ['more than seven days', { graceSeconds: 7 * 86_400 + 1 }, 'body/graceSeconds'],
    ['a string', { graceSeconds: '60' }, 'body/graceSeconds'],
    ['an unknown field', { secret: 'whsec_mine' }, 'body/secret'],
  ])('%s is 400 and changes nothing', async (_name, body, path) => {
    const sub = await subscribe()
    const res = await rotate(sub.id, body)
    expect(res.status).toBe(400)
    expect(res.body.errors.map((e: any) => e.path)).toContain(path)
    expect(verifies(sub.secret, await deliver('Unchanged'))).toBe(true)
  })

  test('managers and staff may not rotate; another tenant’s webhook is 404', async () => {
    const sub = await subscribe()
    expect((await rotate(sub.id, {}, t.tenant.manager)).status).toBe(403)
    expect((await rotate(sub.id, {}, t.tenant.staff)).status).toBe(403)
    const other = await t.addTenant('other')
    const res = await t.request('POST', `/web-hook/${sub.id}/rotate-secret`, {
      as: other.owner,
      tenant: other,
      body: {},
    })
    expect(res.status).toBe(404)
    expect((await t.request('GET', '/audit-entries?action=webhook.rotate_secret')).body.page.total).toBe(0)
    expect(verifies(sub.secret, await deliver('Still the first secret'))).toBe(true)
  })
})

describe('tables API subscriptions', () => {
  const create = async (as: string | typeof t.tenant.owner = t.tenant.owner) => {
    const res = await t.request('POST', '/tables-api/v1/webhook-subscriptions', {
      as,
      headers: { 'idempotency-key': `create-${crypto.randomUUID()}` },
      body: { object: 'vendor', action: 'create', url: r.url },
    })
    expect(res.status).toBe(201)
    return res.body.data as { id: string; signingSecret: string }
  }
  const rotateTables = (id: string, key: string, as: string | typeof t.tenant.owner = t.tenant.owner) =>
    t.request('POST', `/tables-api/v1/webhook-subscriptions/${id}/rotate-secret`, {
      as,
      headers: { 'idempotency-key': key },
      body: { graceSeconds: 600 },
    })

  test('answers the new secret once per idempotency key; both secrets sign during the grace period', async () => {
    const sub = await create()
    const res = await rotateTables(sub.id, 'rotate-key-1')
    expect(res.status).toBe(200)
    expect(res.body.data.signingSecret).not.toBe(sub.signingSecret)
    const replay = await rotateTables(sub.id, 'rotate-key-1')
    expect(replay.headers.get('idempotent-replayed')).toBe('true')
    expect(replay.body.data.signingSecret).toBe(res.body.data.signingSecret)
    const received = await deliver('Tables rotation')
    expect(verifies(res.body.data.signingSecret, received)).toBe(true)
    expect(verifies(sub.signingSecret, received)).toBe(true)
  })

  test('a credential bound to a location may not rotate a tenant-wide subscription (404); without the scope, 403', async () => {
    const sub = await create()
    const manager = t.addCredential(t.tenant, { scopes: ['webhooks:manage'] })
    expect((await rotateTables(sub.id, 'rotate-key-2', manager.token)).status).toBe(404)
    const reader = t.addCredential(t.tenant, { scopes: ['reservations:read'] })
    expect((await rotateTables(sub.id, 'rotate-key-3', reader.token)).status).toBe(403)
    expect(verifies(sub.signingSecret, await deliver('Not rotated'))).toBe(true)
  })

  test('a request without an idempotency key is 400', async () => {
    const sub = await create()
    const res = await t.request('POST', `/tables-api/v1/webhook-subscriptions/${sub.id}/rotate-secret`, {
      body: {},
    })
    expect(res.status).toBe(400)
  })
})
