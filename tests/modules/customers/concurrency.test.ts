// Concurrent requests against one tenant: uniqueness and single-winner rules hold.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { configFor } from '../../../src/config'
import { createApp } from '../../../src/server'
import { countRows, createTestApp, type TestApp } from '../../harness'
import { startFakeStripe } from './fake-stripe'
import { makeClub, makeCustomer } from './helpers'

describe('customers under concurrent requests', () => {
  let t: TestApp
  beforeEach(async () => {
    t = await createTestApp()
  })
  afterEach(() => t.close())

  const statuses = (responses: { status: number }[]) => responses.map((r) => r.status).sort()

  test('the same email created at once: one customer, the rest 409', async () => {
    const responses = await Promise.all(
      ['a@x.test', 'A@x.test', 'a@X.TEST', 'a@x.test', 'A@X.test'].map((email) =>
        t.request('POST', '/customers', { body: { firstName: 'A', lastName: 'B', email } }),
      ),
    )
    expect(statuses(responses)).toEqual([201, 409, 409, 409, 409])
    expect(countRows(t.tenant.db, 'customers')).toBe(1)
  })

  test('one source merged into two primaries at once: one merge wins, the other is 409', async () => {
    const source = await makeCustomer(t)
    const [p1, p2] = [await makeCustomer(t), await makeCustomer(t)]
    const responses = await Promise.all(
      [p1, p2].map((p) =>
        t.request('POST', '/customers/merge', {
          body: { primaryCustomerId: p.id, sourceCustomerIds: [source.id], confirmation: 'MERGE' },
        }),
      ),
    )
    expect(statuses(responses)).toEqual([200, 409])
    expect(countRows(t.tenant.db, 'customer_aliases')).toBe(1)
  })

  test('signing one customer up to a club at once: one live membership', async () => {
    const customer = await makeCustomer(t)
    const club = await makeClub(t)
    const responses = await Promise.all(
      [1, 2, 3, 4].map(() =>
        t.request('POST', '/club-membership', {
          body: { customerId: customer.id, clubId: club.id, orderDeliveryMethod: 'Pickup' },
        }),
      ),
    )
    expect(statuses(responses)).toEqual([201, 409, 409, 409])
    expect(countRows(t.tenant.db, 'club_memberships')).toBe(1)
  })

  test('first cards stored at once share one provider customer (Stripe, over the network)', async () => {
    const stripe = startFakeStripe()
    t.close()
    t = await createTestApp({
      config: { paymentGateway: 'stripe', stripeSecretKey: 'sk_test_c', stripeApiUrl: stripe.url },
    })
    try {
      const customer = await makeCustomer(t)
      const responses = await Promise.all(
        ['pm_a', 'pm_b', 'pm_c'].map((providerToken) =>
          t.request('POST', `/customers/${customer.id}/payment-methods`, { body: { providerToken } }),
        ),
      )
      expect(statuses(responses)).toEqual([201, 201, 201])
      expect(new Set(responses.map((r) => r.body.providerCustomerId)).size).toBe(1)
      expect(countRows(t.tenant.db, 'payment_provider_customers')).toBe(1)
      expect(stripe.calls.filter((c) => c.path === '/v1/customers')).toHaveLength(1)
    } finally {
      stripe.stop()
    }
  })

  test('first cards stored at once through two processes (two HTTP workers) share one provider customer, recorded once', async () => {
    const stripe = startFakeStripe({ holdCustomers: 2 })
    t.close()
    const config = {
      paymentGateway: 'stripe' as const,
      stripeSecretKey: 'sk_test_c',
      stripeApiUrl: stripe.url,
    }
    t = await createTestApp({ config })
    // A second app on the same data directory stands for the other worker: its own memory, the same files.
    const { app: other, platform } = await createApp({
      config: configFor({ ...config, dataDir: t.dataDir, backupDir: join(t.dataDir, 'backups') }),
    })
    try {
      const customer = await makeCustomer(t)
      const storeCard = (providerToken: string) =>
        new Request(`http://localhost/customers/${customer.id}/payment-methods`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${t.tenant.owner.token}`,
            'x-tenant-id': t.tenant.id,
            'content-type': 'application/json',
          },
          body: JSON.stringify({ providerToken }),
        })
      // Stripe answers neither before both asked: each process found no provider customer recorded.
      const responses = await Promise.all([t.app.handle(storeCard('pm_a')), other.handle(storeCard('pm_b'))])
      expect(responses.map((r) => r.status)).toEqual([201, 201])
      const cards = (await Promise.all(responses.map((r) => r.json()))) as { providerCustomerId: string }[]
      expect(new Set(cards.map((card) => card.providerCustomerId)).size).toBe(1)
      // One key, the customer's own: one customer at Stripe, one row here, one audit entry.
      const keys = stripe.calls.filter((c) => c.path === '/v1/customers').map((c) => c.idempotencyKey)
      expect(keys).toHaveLength(2)
      expect(keys[0]).toStartWith(`customer-${t.tenant.id}-${customer.id}-`)
      expect(keys[1]).toBe(keys[0])
      expect(countRows(t.tenant.db, 'payment_provider_customers')).toBe(1)
      const recorded = t.tenant.db.$client
        .query("SELECT count(*) AS n FROM audit_entries WHERE action = 'customer.provider-customer.create'")
        .get() as { n: number }
      expect(recorded.n).toBe(1)
    } finally {
      platform.close()
      stripe.stop()
    }
  })
})
