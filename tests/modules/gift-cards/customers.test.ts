// Gift cards and customers: the owner must be a customer of the tenant, `expand=customer` on get
// and list, a customer merge moves cards, and a customer who owns cards cannot be deleted.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { countRows, createTestApp, runScenarios, type ScenarioContext, type TestApp } from '../../harness'
import { makeCustomer } from '../customers/helpers'
import { issueCard, uniqueCode } from './helpers'

const card = (extra: Record<string, unknown> = {}) => ({
  title: 'Gift card',
  type: 'Virtual',
  code: uniqueCode(),
  initialAmount: 2500,
  ...extra,
})

describe('gift card customers: scenarios', () => {
  runScenarios([
    {
      name: 'create with a customer of the tenant',
      method: 'POST',
      url: '/gift-card',
      setup: async (ctx) => {
        ctx.vars.customer = await makeCustomer(ctx.t)
      },
      body: (ctx: ScenarioContext) => card({ customerId: ctx.vars.customer.id }),
      status: 201,
      check: (res, ctx) => {
        expect(res.body.customerId).toBe(ctx.vars.customer.id)
        expect(res.body.customer).toBeUndefined() // only with expand=customer
      },
    },
    {
      name: 'create with an unknown customer is 400 naming body/customerId and writes nothing',
      method: 'POST',
      url: '/gift-card',
      body: card({ customerId: 'no-such-customer' }),
      status: 400,
      code: 'validation_failed',
      check: (res, ctx) => {
        expect(res.body.errors).toEqual([
          { path: 'body/customerId', message: expect.stringContaining('no-such-customer') },
        ])
        expect(countRows(ctx.t.tenant.db, 'gift_cards')).toBe(0)
      },
    },
    {
      name: "create with another tenant's customer is 400",
      method: 'POST',
      url: '/gift-card',
      setup: async (ctx) => {
        const other = await ctx.t.addTenant('other')
        ctx.vars.customer = await makeCustomer(ctx.t, {}, { tenant: other })
      },
      body: (ctx: ScenarioContext) => card({ customerId: ctx.vars.customer.id }),
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'update to an unknown customer is 400 and changes nothing',
      method: 'PUT',
      url: (ctx) => `/gift-card/${ctx.vars.card.id}`,
      setup: async (ctx) => {
        ctx.vars.card = await issueCard(ctx.t, 1000)
      },
      body: { customerId: 'no-such-customer', title: 'Changed' },
      status: 400,
      code: 'validation_failed',
      check: async (_res, ctx) => {
        const after = await ctx.t.request('GET', `/gift-card/${ctx.vars.card.id}`)
        expect(after.body).toMatchObject({ title: 'Gift card', customerId: null })
      },
    },
    {
      name: 'expand with anything but customer is 400',
      method: 'GET',
      url: '/gift-card?expand=order',
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'read_only may read with expand=customer',
      method: 'GET',
      url: (ctx) => `/gift-card/${ctx.vars.card.id}?expand=customer`,
      setup: async (ctx) => {
        ctx.vars.customer = await makeCustomer(ctx.t)
        ctx.vars.card = await issueCard(ctx.t, 1000, { body: { customerId: ctx.vars.customer.id } })
      },
      as: (ctx) => ctx.t.tenant.readOnly,
      status: 200,
      check: (res, ctx) => expect(res.body.customer).toEqual(ctx.vars.customer),
    },
    {
      name: 'read_only may not set a customer (403)',
      method: 'PUT',
      url: (ctx) => `/gift-card/${ctx.vars.card.id}`,
      setup: async (ctx) => {
        ctx.vars.customer = await makeCustomer(ctx.t)
        ctx.vars.card = await issueCard(ctx.t, 1000)
      },
      as: (ctx) => ctx.t.tenant.readOnly,
      body: (ctx: ScenarioContext) => ({ customerId: ctx.vars.customer.id }),
      status: 403,
    },
  ])
})

describe('gift card customers: behaviour', () => {
  let t: TestApp
  beforeEach(async () => {
    t = await createTestApp()
  })
  afterEach(() => t.close())

  test('expand=customer on get and list embeds the Customer, or null', async () => {
    const ann = await makeCustomer(t, { firstName: 'Ann' })
    const owned = await issueCard(t, 1000, { body: { customerId: ann.id } })
    const unowned = await issueCard(t, 2000)
    const one = await t.request('GET', `/gift-card/${owned.id}?expand=customer`)
    expect(one.body).toEqual({ ...owned, customer: ann })
    const list = await t.request('GET', '/gift-card?expand=customer')
    const byId = new Map(list.body.giftCards.map((c: any) => [c.id, c]))
    expect((byId.get(owned.id) as any).customer).toEqual(ann)
    expect((byId.get(unowned.id) as any).customer).toBeNull()
    const plain = await t.request('GET', '/gift-card')
    expect(plain.body.giftCards.every((c: any) => !('customer' in c))).toBe(true)
  })

  test('a merge moves cards to the primary; a merged-away id is stored as the primary', async () => {
    const primary = await makeCustomer(t)
    const source = await makeCustomer(t)
    const owned = await issueCard(t, 1000, { body: { customerId: source.id } })
    const merged = await t.request('POST', '/customers/merge', {
      body: { primaryCustomerId: primary.id, sourceCustomerIds: [source.id], confirmation: 'MERGE' },
    })
    expect(merged.status).toBe(200)
    const after = await t.request('GET', `/gift-card/${owned.id}?expand=customer`)
    expect(after.body).toMatchObject({
      customerId: primary.id,
      customer: { id: primary.id },
      currentBalance: 1000,
    })
    const entry = t.tenant.db.$client
      .query("SELECT metadata FROM audit_entries WHERE action = 'customer.merge'")
      .get() as { metadata: string }
    expect(JSON.parse(entry.metadata).sources[0].moved.giftCards).toBe(1)
    const viaAlias = await issueCard(t, 500, { body: { customerId: source.id } })
    expect(viaAlias.customerId).toBe(primary.id)
  })

  test('a customer who owns cards cannot be deleted (409 naming them)', async () => {
    const ann = await makeCustomer(t)
    await issueCard(t, 1000, { body: { customerId: ann.id } })
    const refused = await t.request('DELETE', `/customers/${ann.id}`)
    expect(refused.status).toBe(409)
    expect(refused.body.references).toEqual({ giftCards: 1 })
    expect((await t.request('GET', `/customers/${ann.id}`)).status).toBe(200)
  })
})
