// A customer's tags are the tags family's assignments: attach and detach routes on both paths,
// `tags` ids on create and update, the derived `tags: [{id, title}]`, merge and delete.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { attachTag } from '../../../src/modules/tags/assignments'
import { systemActor } from '../../../src/platform/foundation/actor'
import { countRows, createTestApp, runScenarios, type ScenarioContext, type TestApp } from '../../harness'
import { auditActions, events, makeCustomer, makeTag } from './helpers'

const setup = async (ctx: ScenarioContext) => {
  ctx.vars.customer = await makeCustomer(ctx.t)
  ctx.vars.vip = await makeTag(ctx.t, 'VIP')
}

const dynamicTag = async (t: TestApp) => {
  const res = await t.request('POST', '/tag/customer', {
    body: {
      title: 'Locals',
      type: 'Dynamic',
      conditions: [{ field: 'city', operator: 'equals', value: 'Napa' }],
    },
  })
  expect(res.status).toBe(201)
  return res.body
}

describe('customer tags: scenarios', () => {
  runScenarios(
    ['/customers', '/customer'].flatMap((prefix) => [
      {
        name: `${prefix}: attach answers the customer with tags [{id, title}]`,
        method: 'POST',
        url: (ctx: ScenarioContext) => `${prefix}/${ctx.vars.customer.id}/tags`,
        setup,
        body: (ctx: ScenarioContext) => ({ tagId: ctx.vars.vip.id }),
        status: 200,
        check: (res: any, ctx: ScenarioContext) =>
          expect(res.body.tags).toEqual([{ id: ctx.vars.vip.id, title: 'VIP' }]),
      },
      {
        name: `${prefix}: detach answers the customer without the tag`,
        method: 'DELETE',
        url: (ctx: ScenarioContext) => `${prefix}/${ctx.vars.customer.id}/tags/${ctx.vars.vip.id}`,
        setup: async (ctx: ScenarioContext) => {
          await setup(ctx)
          const res = await ctx.t.request('POST', `/customers/${ctx.vars.customer.id}/tags`, {
            body: { tagId: ctx.vars.vip.id },
          })
          expect(res.status).toBe(200)
        },
        status: 200,
        check: (res: any, ctx: ScenarioContext) => {
          expect(res.body.tags).toEqual([])
          expect(countRows(ctx.t.tenant.db, 'tag_assignments')).toBe(0)
        },
      },
    ]),
  )
  runScenarios([
    {
      name: 'attach without tagId is 400',
      method: 'POST',
      url: (ctx) => `/customers/${ctx.vars.customer.id}/tags`,
      setup,
      body: {},
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'attach of an unknown tag is 400 naming body/tagId and writes nothing',
      method: 'POST',
      url: (ctx) => `/customers/${ctx.vars.customer.id}/tags`,
      setup,
      body: { tagId: 'no-such-tag' },
      status: 400,
      code: 'validation_failed',
      check: (res, ctx) => {
        expect(res.body.errors).toEqual([
          { path: 'body/tagId', message: expect.stringContaining('no-such-tag') },
        ])
        expect(countRows(ctx.t.tenant.db, 'tag_assignments')).toBe(0)
      },
    },
    {
      name: 'attach of an order tag is 400 (not a customer tag)',
      method: 'POST',
      url: (ctx) => `/customers/${ctx.vars.customer.id}/tags`,
      setup: async (ctx) => {
        await setup(ctx)
        ctx.vars.rush = (await ctx.t.request('POST', '/tag/order', { body: { title: 'Rush' } })).body
      },
      body: (ctx: ScenarioContext) => ({ tagId: ctx.vars.rush.id }),
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'attach of a Dynamic tag is 409',
      method: 'POST',
      url: (ctx) => `/customers/${ctx.vars.customer.id}/tags`,
      setup: async (ctx) => {
        await setup(ctx)
        ctx.vars.locals = await dynamicTag(ctx.t)
      },
      body: (ctx: ScenarioContext) => ({ tagId: ctx.vars.locals.id }),
      status: 409,
      code: 'conflict',
    },
    {
      name: 'attach to an unknown customer is 404',
      method: 'POST',
      url: '/customers/no-such-customer/tags',
      setup,
      body: (ctx: ScenarioContext) => ({ tagId: ctx.vars.vip.id }),
      status: 404,
      code: 'not_found',
    },
    {
      name: 'detach of a tag the customer does not carry is 404',
      method: 'DELETE',
      url: (ctx) => `/customers/${ctx.vars.customer.id}/tags/${ctx.vars.vip.id}`,
      setup,
      status: 404,
      code: 'not_found',
    },
    {
      name: 'read_only may not attach (403 without customers:write)',
      method: 'POST',
      url: (ctx) => `/customers/${ctx.vars.customer.id}/tags`,
      setup,
      as: (ctx) => ctx.t.tenant.readOnly,
      body: (ctx: ScenarioContext) => ({ tagId: ctx.vars.vip.id }),
      status: 403,
      check: (_res, ctx) => expect(countRows(ctx.t.tenant.db, 'tag_assignments')).toBe(0),
    },
    {
      name: 'read_only may not detach (403)',
      method: 'DELETE',
      url: (ctx) => `/customer/${ctx.vars.customer.id}/tags/${ctx.vars.vip.id}`,
      setup,
      as: (ctx) => ctx.t.tenant.readOnly,
      status: 403,
    },
    {
      name: 'staff may attach (customers:write)',
      method: 'POST',
      url: (ctx) => `/customer/${ctx.vars.customer.id}/tags`,
      setup,
      as: (ctx) => ctx.t.tenant.staff,
      body: (ctx: ScenarioContext) => ({ tagId: ctx.vars.vip.id }),
      status: 200,
    },
    {
      name: 'create with tags takes Manual customer tag ids',
      method: 'POST',
      url: '/customers',
      setup: async (ctx) => {
        ctx.vars.vip = await makeTag(ctx.t, 'VIP')
        ctx.vars.allocation = await makeTag(ctx.t, 'Allocation')
      },
      body: (ctx: ScenarioContext) => ({
        firstName: 'Ann',
        lastName: 'Lee',
        email: 'ann@example.test',
        tags: [ctx.vars.vip.id, ctx.vars.allocation.id],
      }),
      status: 201,
      check: (res, ctx) =>
        expect(res.body.tags).toEqual([
          { id: ctx.vars.allocation.id, title: 'Allocation' },
          { id: ctx.vars.vip.id, title: 'VIP' },
        ]),
    },
    {
      name: 'create with a tag title instead of an id is 400 naming the index and writes nothing',
      method: 'POST',
      url: '/customers',
      setup: async (ctx) => {
        ctx.vars.vip = await makeTag(ctx.t, 'VIP')
      },
      body: (ctx: ScenarioContext) => ({
        firstName: 'Ann',
        lastName: 'Lee',
        email: 'ann@example.test',
        tags: [ctx.vars.vip.id, 'Wholesale'],
      }),
      status: 400,
      code: 'validation_failed',
      check: (res, ctx) => {
        expect(res.body.errors).toEqual([{ path: 'body/tags/1', message: expect.any(String) }])
        expect(countRows(ctx.t.tenant.db, 'customers')).toBe(0)
        expect(countRows(ctx.t.tenant.db, 'tag_assignments')).toBe(0)
      },
    },
    {
      name: 'update with a Dynamic tag id is 400 and changes nothing',
      method: 'PUT',
      url: (ctx) => `/customers/${ctx.vars.customer.id}`,
      setup: async (ctx) => {
        await setup(ctx)
        ctx.vars.locals = await dynamicTag(ctx.t)
      },
      body: (ctx: ScenarioContext) => ({ firstName: 'Changed', tags: [ctx.vars.locals.id] }),
      status: 400,
      code: 'validation_failed',
      check: async (res, ctx) => {
        expect(res.body.errors[0].path).toBe('body/tags/0')
        const after = await ctx.t.request('GET', `/customers/${ctx.vars.customer.id}`)
        expect(after.body.firstName).toBe('Ann')
      },
    },
  ])
})

describe('customer tags: behaviour', () => {
  let t: TestApp
  beforeEach(async () => {
    t = await createTestApp()
  })
  afterEach(() => t.close())

  test('PUT tags replaces the set as a whole; attaching twice changes nothing; audit and events', async () => {
    const [vip, allocation, wholesale] = [
      await makeTag(t, 'VIP'),
      await makeTag(t, 'Allocation'),
      await makeTag(t, 'Wholesale'),
    ]
    const customer = await makeCustomer(t, { tags: [vip.id] })
    const replaced = await t.request('PUT', `/customers/${customer.id}`, {
      body: { tags: [allocation.id, wholesale.id] },
    })
    expect(replaced.status).toBe(200)
    expect(replaced.body.tags.map((x: any) => x.title)).toEqual(['Allocation', 'Wholesale'])
    expect(replaced.body.updatedAt > customer.updatedAt).toBe(true)

    const eventsBefore = events(t, 'customer').length
    const again = await t.request('POST', `/customers/${customer.id}/tags`, { body: { tagId: wholesale.id } })
    expect(again.body.tags.map((x: any) => x.title)).toEqual(['Allocation', 'Wholesale'])
    expect(events(t, 'customer').length).toBe(eventsBefore) // nothing changed, nothing announced

    const cleared = await t.request('PUT', `/customer/${customer.id}`, { body: { tags: [] } })
    expect(cleared.body.tags).toEqual([])
    // The list shows the derived tags too.
    await t.request('POST', `/customers/${customer.id}/tags`, { body: { tagId: vip.id } })
    const list = await t.request('GET', '/customers')
    expect(list.body.customers[0].tags).toEqual([{ id: vip.id, title: 'VIP' }])

    expect(auditActions(t, 'customer')).toEqual([
      'tag.attach', // VIP on create
      'customer.create',
      'tag.detach',
      'tag.attach',
      'tag.attach',
      'customer.update',
      'tag.detach',
      'tag.detach',
      'customer.update',
      'tag.attach',
      'customer.update', // the attachment changes the customer's tags, as a PUT does
    ])
    const tagEvents = t.tenant.db.$client
      .query("SELECT action FROM outbox_events WHERE object = 'tag' ORDER BY seq")
      .all()
      .map((e: any) => e.action)
    expect(tagEvents.filter((a) => a === 'attach')).toHaveLength(4)
    expect(tagEvents.filter((a) => a === 'detach')).toHaveLength(3)
    const lastEntry = t.tenant.db.$client
      .query("SELECT metadata FROM audit_entries WHERE entity_type = 'customer' ORDER BY seq DESC LIMIT 1")
      .get() as { metadata: string }
    expect(JSON.parse(lastEntry.metadata)).toEqual({ changes: { tags: { from: [], to: [vip.id] } } })
    const last = events(t, 'customer').at(-1)!
    expect(last.action).toBe('update')
    expect(JSON.parse(last.payload).tags).toEqual([{ id: vip.id, title: 'VIP' }])
  })

  test('a merged-away id acts on the primary', async () => {
    const vip = await makeTag(t, 'VIP')
    const primary = await makeCustomer(t)
    const source = await makeCustomer(t)
    const merged = await t.request('POST', '/customers/merge', {
      body: { primaryCustomerId: primary.id, sourceCustomerIds: [source.id], confirmation: 'MERGE' },
    })
    expect(merged.status).toBe(200)
    const res = await t.request('POST', `/customers/${source.id}/tags`, { body: { tagId: vip.id } })
    expect(res.body).toMatchObject({ id: primary.id, tags: [{ id: vip.id, title: 'VIP' }] })
  })

  test('deleting a customer removes its tag assignments; deleting a tag removes it from customers', async () => {
    const [vip, allocation] = [await makeTag(t, 'VIP'), await makeTag(t, 'Allocation')]
    const ann = await makeCustomer(t, { tags: [vip.id, allocation.id] })
    const bob = await makeCustomer(t, { tags: [vip.id] })
    expect((await t.request('DELETE', `/customers/${ann.id}`)).status).toBe(200)
    expect(countRows(t.tenant.db, 'tag_assignments')).toBe(1)
    expect((await t.request('DELETE', `/tag/customer/${vip.id}`)).status).toBe(204)
    expect((await t.request('GET', `/customers/${bob.id}`)).body.tags).toEqual([])
  })

  test('the tag service refuses customers that do not exist in the tenant', async () => {
    const vip = await makeTag(t, 'VIP')
    const other = await t.addTenant('other')
    const foreign = await makeCustomer(t, {}, { tenant: other })
    expect(() =>
      attachTag(t.tenant.db, systemActor(t.tenant.id, 'test'), {
        objectType: 'customer',
        objectId: foreign.id,
        tagId: vip.id,
      }),
    ).toThrow(/not found/)
  })

  test("another tenant's customer or tag is 404 or 400, and nothing is written", async () => {
    const other = await t.addTenant('other')
    const foreign = await makeCustomer(t, {}, { tenant: other })
    const foreignTag = await makeTag(t, 'VIP', other)
    const vip = await makeTag(t, 'VIP')
    const mine = await makeCustomer(t)
    const onForeign = await t.request('POST', `/customers/${foreign.id}/tags`, { body: { tagId: vip.id } })
    expect(onForeign.status).toBe(404)
    const foreignTagged = await t.request('POST', `/customers/${mine.id}/tags`, {
      body: { tagId: foreignTag.id },
    })
    expect(foreignTagged.status).toBe(400)
    const detach = await t.request('DELETE', `/customers/${foreign.id}/tags/${vip.id}`)
    expect(detach.status).toBe(404)
    expect(countRows(t.tenant.db, 'tag_assignments')).toBe(0)
    expect(countRows(other.db, 'tag_assignments')).toBe(0)
  })
})

describe('club-membership and order tags through the tag service', () => {
  let t: TestApp
  beforeEach(async () => {
    t = await createTestApp()
  })
  afterEach(() => t.close())

  test('attach only to memberships and orders that exist in the tenant; a customer with orders is not deleted', async () => {
    const actor = systemActor(t.tenant.id, 'test')
    const customer = await makeCustomer(t)
    const club = (await t.request('POST', '/clubs', { body: { title: 'Club', slug: 'club' } })).body
    const membership = (
      await t.request('POST', '/club-membership', {
        body: { customerId: customer.id, clubId: club.id, orderDeliveryMethod: 'Pickup' },
      })
    ).body
    expect(membership.id).toBeString()
    const order = await t.request('POST', '/order', {
      headers: { 'x-location-id': t.tenant.locationId },
      body: { locationId: t.tenant.locationId },
    })
    expect(order.status).toBe(201)
    const founder = (await t.request('POST', '/tag/club-membership', { body: { title: 'Founder' } })).body
    const rush = (await t.request('POST', '/tag/order', { body: { title: 'Rush' } })).body
    const db = t.tenant.db
    attachTag(db, actor, { objectType: 'club-membership', objectId: membership.id, tagId: founder.id })
    attachTag(db, actor, { objectType: 'order', objectId: order.body.id, tagId: rush.id })
    expect(countRows(db, 'tag_assignments')).toBe(2)
    expect(() =>
      attachTag(db, actor, { objectType: 'club-membership', objectId: 'no-such', tagId: founder.id }),
    ).toThrow(/not found/)
    expect(() => attachTag(db, actor, { objectType: 'order', objectId: 'no-such', tagId: rush.id })).toThrow(
      /not found/,
    )
    expect(countRows(db, 'tag_assignments')).toBe(2)
    // orders.customer_id has no foreign key; the customer with an order is still kept from deletion.
    const owner = await makeCustomer(t)
    expect(
      (await t.request('POST', '/order', { body: { locationId: t.tenant.locationId, customerId: owner.id } }))
        .status,
    ).toBe(201)
    const refused = await t.request('DELETE', `/customers/${owner.id}`)
    expect(refused.status).toBe(409)
    expect(refused.body.references).toEqual({ orders: 1 })
  })
})
