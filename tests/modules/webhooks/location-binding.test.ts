// Webhooks under the location rule. Legacy `/web-hook` routes (and the delivery log and dead
// letters, whose bodies carry every location's events) are the business's: they need the
// permission at every location. A tables-API subscription made by a caller bound to some locations
// is bound to them and receives only events that happened there.
import { afterAll, describe, expect, test } from 'bun:test'
import { fanOut } from '../../../src/platform/events/delivery'
import { changedCounts, createTestApp, tableCounter } from '../../harness'

const t = await createTestApp({ config: { webhookAllowPrivateTargets: true } })
afterAll(() => t.close())
const acme = t.tenant
const A = acme.locationId
const B = t.addLocation(acme, { name: 'B', timezone: 'UTC' }).id
const counts = tableCounter({ acme: acme.db })
const path = '/tables-api/v1/webhook-subscriptions'
const orderCreated = { object: 'order', action: 'create', url: 'https://hooks.example.com/orders' }
let keys = 0
const key = () => ({ 'idempotency-key': `binding-key-${++keys}` })

const credentialAtA = t.addCredential(acme, { scopes: ['webhooks:manage'], locationIds: [A] })
const credentialAtB = t.addCredential(acme, { scopes: ['webhooks:manage'], locationIds: [B] })
const managerAtA = await t.addStaff(acme, { role: 'manager', locationId: A })

async function subscribe(as: string | typeof acme.owner) {
  const res = await t.request('POST', path, { as, tenant: null, headers: key(), body: orderCreated })
  expect(res.status).toBe(201)
  return res.body.data as { id: string; locationIds: string[] | null }
}

const boundToA = await subscribe(credentialAtA.token)
const boundToB = await subscribe(credentialAtB.token)
const tenantWide = await (async () => {
  const res = await t.request('POST', path, { headers: key(), body: orderCreated })
  expect(res.status).toBe(201)
  return res.body.data as { id: string; locationIds: string[] | null }
})()

describe('tables-API subscriptions', () => {
  test('a credential’s subscription is bound to its allowlist; the owner’s to no location', () => {
    expect(boundToA.locationIds).toEqual([A])
    expect(boundToB.locationIds).toEqual([B])
    expect(tenantWide.locationIds).toBeNull()
  })

  test('each event is delivered to the tenant-wide subscription and to the one bound where it happened', async () => {
    await t.request('POST', '/product', {
      body: {
        title: 'Bound bottle',
        type: 'Wine',
        variants: [{ title: 'Bottle', sku: 'BOUND-1', price: 1_500 }],
      },
    })
    const orderAt = async (locationId: string) => {
      const res = await t.request('POST', '/order', {
        body: { locationId, lineItems: [{ sku: 'BOUND-1', quantity: 1 }] },
      })
      expect(res.status).toBe(201)
      return res.body.id as string
    }
    const atA = await orderAt(A)
    const atB = await orderAt(B)
    fanOut(acme.db)
    const deliveries = acme.db.$client
      .query(
        `SELECT d.subscription_id AS sub, e.aggregate_id AS orderId FROM webhook_deliveries d
         JOIN outbox_events e ON e.id = d.event_id WHERE e.object = 'order' AND e.action = 'create'`,
      )
      .all() as { sub: string; orderId: string }[]
    const to = (sub: string) =>
      deliveries
        .filter((d) => d.sub === sub)
        .map((d) => d.orderId)
        .sort()
    expect(to(boundToA.id)).toEqual([atA])
    expect(to(boundToB.id)).toEqual([atB])
    expect(to(tenantWide.id)).toEqual([atA, atB].sort())
  })

  test('a bound caller lists only subscriptions bound within its locations', async () => {
    const listed = await t.request('GET', path, { as: credentialAtA.token, tenant: null })
    expect(listed.status).toBe(200)
    expect(listed.body.data.map((s: { id: string }) => s.id)).toEqual([boundToA.id])
    const all = await t.request('GET', path)
    expect(all.body.data.map((s: { id: string }) => s.id).sort()).toEqual(
      [boundToA.id, boundToB.id, tenantWide.id].sort(),
    )
  })

  test.each([
    ['bound to another location', () => boundToB.id],
    ['tenant-wide', () => tenantWide.id],
  ])('deleting a subscription %s is 404 for a bound caller and writes nothing', async (_name, id) => {
    const before = counts()
    const res = await t.request('DELETE', `${path}/${id()}`, {
      as: credentialAtA.token,
      tenant: null,
      headers: key(),
    })
    expect(res.status).toBe(404)
    expect(res.body.code).toBe('not_found')
    expect(changedCounts(before, counts())).toEqual([])
  })

  test('a bound caller deletes its own', async () => {
    const extra = await subscribe(credentialAtA.token)
    const res = await t.request('DELETE', `${path}/${extra.id}`, {
      as: credentialAtA.token,
      tenant: null,
      headers: key(),
    })
    expect(res.status).toBe(204)
  })
})

describe('legacy webhooks need the permission at every location', () => {
  test.each([
    ['GET', '/web-hook'],
    ['GET', '/web-hook-log'],
    ['GET', '/web-hook-dead-letters'],
  ])('%s %s: a manager at A only is 403; a tenant-wide manager and an owner naming A are 200', async (method, url) => {
    const bound = await t.request(method, url, { as: managerAtA })
    expect(bound.status).toBe(403)
    expect(bound.body.requiredPermission).toBe('webhooks:read')
    expect((await t.request(method, url, { as: acme.manager })).status).toBe(200)
    expect((await t.request(method, url, { headers: { 'x-location-id': A } })).status).toBe(200)
  })
})
