// Concurrent requests against one tenant: uniqueness and single-winner rules hold.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
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
})
