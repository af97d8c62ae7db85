// POST /customers/merge: every kind of reference moves, aliases resolve, refusals change nothing.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import {
  registerCustomerReferenceCount,
  registerCustomerReferenceMover,
} from '../../../src/modules/customers/references'
import { countRows, createTestApp, type TestApp } from '../../harness'
import { addAddress, addCard, makeClub, makeCustomer, makeTag } from './helpers'

const merge = (t: TestApp, primaryCustomerId: string, sourceCustomerIds: string[], extra: object = {}) =>
  t.request('POST', '/customers/merge', {
    body: { primaryCustomerId, sourceCustomerIds, confirmation: 'MERGE', ...extra },
  })

/** Everything that refers to customers, by table, so a refused merge can be shown to change nothing. */
const snapshot = (t: TestApp) =>
  Object.fromEntries(
    [
      'customers',
      'customer_addresses',
      'customer_payment_methods',
      'payment_provider_customers',
      'club_memberships',
      'customer_aliases',
      'tag_assignments',
      'audit_entries',
      'outbox_events',
    ].map((table) => [table, t.tenant.db.$client.query(`SELECT * FROM ${table} ORDER BY rowid`).all()]),
  )

describe('customer merge', () => {
  let t: TestApp
  beforeEach(async () => {
    t = await createTestApp()
  })
  afterEach(() => t.close())

  test('moves addresses, cards, provider accounts, memberships and earlier aliases, and leaves aliases', async () => {
    const vip = await makeTag(t, 'VIP')
    const wholesale = await makeTag(t, 'Wholesale')
    const primary = await makeCustomer(t, { firstName: 'Pat', tags: [vip.id], notes: 'Likes Zin' })
    const source = await makeCustomer(t, {
      firstName: 'Patricia',
      phone: '707-555-0100',
      company: 'Acme',
      tags: [vip.id, wholesale.id],
      notes: 'Allergic to sulfites',
      socialProfiles: { instagram: '@pat' },
    })
    const second = await makeCustomer(t, { additionalPhones: ['707-555-0111'] })
    const earlier = await makeCustomer(t)
    expect((await merge(t, source.id, [earlier.id])).status).toBe(200) // earlier → source first

    const shipTo = await addAddress(t, source.id)
    const card = await addCard(t, source.id)
    const club = await makeClub(t)
    const membership = (
      await t.request('POST', '/club-membership', {
        body: {
          customerId: source.id,
          clubId: club.id,
          orderDeliveryMethod: 'Ship',
          shipToCustomerAddressId: shipTo.id,
          customerCreditCardId: card.id,
        },
      })
    ).body
    const secondAddress = await addAddress(t, second.id, { label: 'billing' })

    const res = await merge(t, primary.id, [source.id, second.id])
    expect(res.status).toBe(200)
    const { customer, aliases } = res.body
    expect(customer.id).toBe(primary.id)
    expect(aliases).toEqual([
      { sourceCustomerId: source.id, primaryCustomerId: primary.id, mergedAt: expect.any(String) },
      { sourceCustomerId: second.id, primaryCustomerId: primary.id, mergedAt: expect.any(String) },
    ])
    // The primary keeps its values and takes what it lacked.
    expect(customer).toMatchObject({
      firstName: 'Pat',
      email: primary.email,
      phone: '707-555-0100',
      company: 'Acme',
      tags: [
        { id: vip.id, title: 'VIP' },
        { id: wholesale.id, title: 'Wholesale' },
      ],
      notes: 'Likes Zin\n\nAllergic to sulfites',
      additionalPhones: ['707-555-0111'],
      socialProfiles: { instagram: '@pat' },
    })
    expect(customer.addresses.map((a: any) => a.id)).toEqual([shipTo.id, secondAddress.id])

    // Every reference now points at the primary.
    const cards = await t.request('GET', `/customers/${primary.id}/payment-methods`)
    expect(cards.body.paymentMethods.map((c: any) => c.id)).toEqual([card.id])
    const moved = (await t.request('GET', `/club-membership/${membership.id}`)).body
    expect(moved).toMatchObject({
      customerId: primary.id,
      shipToCustomerAddressId: shipTo.id,
      customerCreditCardId: card.id,
    })
    const accounts = t.tenant.db.$client
      .query('SELECT DISTINCT customer_id FROM payment_provider_customers')
      .all()
    expect(accounts).toEqual([{ customer_id: primary.id }])
    expect(countRows(t.tenant.db, 'customers')).toBe(1)
    // The source's tags moved; the tag both carried is kept once.
    expect(countRows(t.tenant.db, 'tag_assignments')).toBe(2)

    // Sources (and the customer merged into a source before) answer the primary.
    for (const id of [source.id, second.id, earlier.id]) {
      expect((await t.request('GET', `/customers/${id}`)).body).toEqual(customer)
      expect((await t.request('GET', `/customer/${id}`)).body.id).toBe(primary.id)
    }
    const aliasRows = t.tenant.db.$client
      .query('SELECT source_customer_id, primary_customer_id FROM customer_aliases')
      .all()
    expect(aliasRows).toHaveLength(3)
    expect(new Set(aliasRows.map((a: any) => a.primary_customer_id))).toEqual(new Set([primary.id]))
    // Writes through a source id act on the primary.
    const viaSource = await t.request('PUT', `/customers/${source.id}`, { body: { jobTitle: 'Buyer' } })
    expect(viaSource.body).toMatchObject({ id: primary.id, jobTitle: 'Buyer' })
    // The membership list follows a merged customer id too.
    const listed = await t.request('GET', `/club-membership?customerId=${source.id}`)
    expect(listed.body.clubMemberships.map((m: any) => m.id)).toEqual([membership.id])

    // The audit entry lists what moved per source; the event announces the merge.
    const entry = t.tenant.db.$client
      .query(
        "SELECT entity_id, metadata FROM audit_entries WHERE action = 'customer.merge' ORDER BY seq DESC LIMIT 1",
      )
      .get() as { entity_id: string; metadata: string }
    expect(entry.entity_id).toBe(primary.id)
    const metadata = JSON.parse(entry.metadata)
    expect(metadata.sources.map((s: any) => [s.customerId, s.moved])).toEqual([
      [
        source.id,
        {
          addresses: 1,
          paymentMethods: 1,
          providerCustomers: 1,
          aliases: 1,
          clubMemberships: 1,
          orders: 0,
          orderOffPremise: 0,
          reservations: 0,
          mediaAssets: 0,
          tags: 1,
          notes: 0,
          giftCards: 0,
          coupons: 0,
        },
      ],
      [
        second.id,
        {
          addresses: 1,
          paymentMethods: 0,
          providerCustomers: 0,
          aliases: 0,
          clubMemberships: 0,
          orders: 0,
          orderOffPremise: 0,
          reservations: 0,
          mediaAssets: 0,
          tags: 0,
          notes: 0,
          giftCards: 0,
          coupons: 0,
        },
      ],
    ])
    expect(metadata.sources[0].customer).toMatchObject({ id: source.id, email: source.email })
    expect(metadata.changes.phone).toEqual({ from: null, to: '707-555-0100' })
    const event = t.tenant.db.$client
      .query(
        "SELECT aggregate_id, payload FROM outbox_events WHERE object = 'customer' AND action = 'merge' ORDER BY seq DESC",
      )
      .get() as { aggregate_id: string; payload: string }
    expect(event.aggregate_id).toBe(primary.id)
    expect(Object.keys(JSON.parse(event.payload).moved)).toEqual([source.id, second.id])
  })

  test('a source email is free again after the merge', async () => {
    const primary = await makeCustomer(t)
    const source = await makeCustomer(t, { email: 'old@example.test' })
    await merge(t, primary.id, [source.id])
    expect(
      (
        await t.request('POST', '/customers', {
          body: { firstName: 'N', lastName: 'N', email: 'OLD@example.test' },
        })
      ).status,
    ).toBe(201)
  })

  test('refusals change nothing', async () => {
    const primary = await makeCustomer(t)
    const source = await makeCustomer(t)
    await addAddress(t, source.id)
    const merged = await makeCustomer(t)
    expect((await merge(t, primary.id, [merged.id])).status).toBe(200)
    const other = await t.addTenant('other')
    const foreign = await makeCustomer(t, {}, { tenant: other })
    const before = snapshot(t)

    const cases: [string, object, number, string][] = [
      [
        'confirmation in lower case',
        { primaryCustomerId: primary.id, sourceCustomerIds: [source.id], confirmation: 'merge' },
        400,
        'body/confirmation',
      ],
      [
        'no confirmation',
        { primaryCustomerId: primary.id, sourceCustomerIds: [source.id] },
        400,
        'body/confirmation',
      ],
      [
        'no sources',
        { primaryCustomerId: primary.id, sourceCustomerIds: [], confirmation: 'MERGE' },
        400,
        'body/sourceCustomerIds',
      ],
      [
        'the same source twice',
        { primaryCustomerId: primary.id, sourceCustomerIds: [source.id, source.id], confirmation: 'MERGE' },
        400,
        'body/sourceCustomerIds',
      ],
      [
        'into itself',
        { primaryCustomerId: primary.id, sourceCustomerIds: [source.id, primary.id], confirmation: 'MERGE' },
        400,
        'body/sourceCustomerIds',
      ],
      [
        'an unknown field',
        { primaryCustomerId: primary.id, sourceCustomerIds: [source.id], confirmation: 'MERGE', force: true },
        400,
        'body/force',
      ],
    ]
    for (const [name, body, status, path] of cases) {
      const res = await t.request('POST', '/customers/merge', { body })
      expect({ name, status: res.status, code: res.body.code }).toEqual({
        name,
        status,
        code: 'validation_failed',
      })
      expect(res.body.errors).toContainEqual(expect.objectContaining({ path }))
    }

    const intoMerged = await merge(t, merged.id, [source.id])
    expect(intoMerged.status).toBe(409)
    expect(intoMerged.body).toMatchObject({ code: 'conflict', role: 'primary', mergedInto: primary.id })
    const mergedAgain = await merge(t, primary.id, [source.id, merged.id])
    expect(mergedAgain.status).toBe(409)
    expect(mergedAgain.body).toMatchObject({ role: 'source', customerId: merged.id, mergedInto: primary.id })
    // A valid source followed by an unknown (or another tenant's) one: 404 and nothing moved.
    for (const missing of ['nope', foreign.id]) {
      const res = await merge(t, primary.id, [source.id, missing])
      expect(res.status).toBe(404)
    }
    expect((await merge(t, foreign.id, [source.id])).status).toBe(404)
    const staff = await t.request('POST', '/customers/merge', {
      as: t.tenant.staff,
      body: { primaryCustomerId: primary.id, sourceCustomerIds: [source.id], confirmation: 'MERGE' },
    })
    expect(staff.status).toBe(403)
    expect(staff.body.requiredPermission).toBe('customers:merge')

    expect(snapshot(t)).toEqual(before)
    expect(
      (await t.request('GET', `/customers/${foreign.id}`, { as: other.owner, tenant: other })).status,
    ).toBe(200)
  })

  test('a family that refers to customers without a registered mover makes the merge fail whole; registering one joins it in', async () => {
    // A stand-in for a later family (orders): a table with a foreign key to customers.
    t.tenant.db.$client.run(
      'CREATE TABLE test_orders (id TEXT PRIMARY KEY, customer_id TEXT NOT NULL REFERENCES customers(id))',
    )
    const primary = await makeCustomer(t)
    const source = await makeCustomer(t)
    await addAddress(t, source.id)
    t.tenant.db.$client.run("INSERT INTO test_orders VALUES ('o1', ?), ('o2', ?)", [source.id, source.id])
    const before = snapshot(t)
    const refused = await merge(t, primary.id, [source.id])
    expect(refused.status).toBe(409)
    expect(snapshot(t)).toEqual(before)

    const unregisterOrders = registerCustomerReferenceMover('testOrders', (tx, sourceId, primaryId) => {
      return tx.all(
        sql`UPDATE test_orders SET customer_id = ${primaryId} WHERE customer_id = ${sourceId} RETURNING id`,
      ).length
    })
    try {
      const res = await merge(t, primary.id, [source.id])
      expect(res.status).toBe(200)
      const orders = t.tenant.db.$client.query('SELECT customer_id FROM test_orders').all()
      expect(orders).toEqual([{ customer_id: primary.id }, { customer_id: primary.id }])
      const entry = t.tenant.db.$client
        .query("SELECT metadata FROM audit_entries WHERE action = 'customer.merge'")
        .get() as { metadata: string }
      expect(JSON.parse(entry.metadata).sources[0].moved).toMatchObject({ testOrders: 2, addresses: 1 })
    } finally {
      unregisterOrders()
    }
  })

  test('a family that counts its references without a mover refuses both merge and delete; a mover joins it in', async () => {
    // A stand-in for a family whose table has no foreign key to customers (as notes, gift cards).
    t.tenant.db.$client.run('CREATE TABLE test_visits (id TEXT PRIMARY KEY, customer_id TEXT)')
    const primary = await makeCustomer(t)
    const source = await makeCustomer(t)
    t.tenant.db.$client.run("INSERT INTO test_visits VALUES ('v1', ?)", [source.id])
    const unregisterCount = registerCustomerReferenceCount('testVisits', (db, customerId) => {
      const [n] = db.get<[number]>(sql`SELECT count(*) FROM test_visits WHERE customer_id = ${customerId}`)
      return n
    })
    try {
      const before = snapshot(t)
      const refused = await merge(t, primary.id, [source.id])
      expect(refused.status).toBe(409)
      expect(refused.body.references).toEqual({ testVisits: 1 })
      expect(snapshot(t)).toEqual(before)
      const deleteRefused = await t.request('DELETE', `/customers/${source.id}`)
      expect(deleteRefused.status).toBe(409)
      expect(deleteRefused.body.references).toEqual({ testVisits: 1 })
      expect(snapshot(t)).toEqual(before)

      const unregisterMover = registerCustomerReferenceMover(
        'testVisits',
        (tx, sourceId, primaryId) =>
          tx.all(
            sql`UPDATE test_visits SET customer_id = ${primaryId} WHERE customer_id = ${sourceId} RETURNING id`,
          ).length,
      )
      try {
        expect((await merge(t, primary.id, [source.id])).status).toBe(200)
        expect(t.tenant.db.$client.query('SELECT customer_id FROM test_visits').all()).toEqual([
          { customer_id: primary.id },
        ])
      } finally {
        unregisterMover()
      }
    } finally {
      unregisterCount()
    }
  })
})
