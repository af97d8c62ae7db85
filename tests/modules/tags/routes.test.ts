// /tag/{objectType}: CRUD of Manual and Dynamic tags, condition validation per object type,
// paging, permissions, tenant isolation, audit and events.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { countRows, createTestApp, runScenarios, type ScenarioContext, type TestApp } from '../../harness'

const createTag = async (
  ctx: ScenarioContext,
  body: Record<string, unknown> = { title: 'VIP' },
  type = 'customer',
) => {
  const res = await ctx.t.request('POST', `/tag/${type}`, { body })
  expect(res.status).toBe(201)
  ctx.vars.tagId = res.body.id
  return res.body
}

const dynamicBody = {
  title: 'Big spenders in CA',
  type: 'Dynamic',
  appliesToCondition: 'All',
  conditions: [
    { field: 'lifetimeValue', operator: 'greaterThanOrEqual', value: 100_000 },
    { field: 'region', operator: 'in', value: ['CA', 'OR'] },
    { field: 'marketingOptIn', operator: 'equals', value: true },
  ],
}

describe('tags: scenarios', () => {
  runScenarios([
    {
      name: 'create a Manual tag: 201 with defaults and the object type',
      method: 'POST',
      url: '/tag/customer',
      body: { title: 'VIP' },
      status: 201,
      expectBody: {
        title: 'VIP',
        objectType: 'Customer',
        type: 'Manual',
        appliesToCondition: null,
        conditions: [],
      },
    },
    {
      name: 'create a Dynamic tag with valid conditions',
      method: 'POST',
      url: '/tag/customer',
      body: dynamicBody,
      status: 201,
      expectBody: dynamicBody,
    },
    {
      name: 'a Dynamic tag without appliesToCondition defaults to All',
      method: 'POST',
      url: '/tag/order',
      body: {
        title: 'Large orders',
        type: 'Dynamic',
        conditions: [{ field: 'total', operator: 'greaterThan', value: 50_000 }],
      },
      status: 201,
      expectBody: { objectType: 'Order', appliesToCondition: 'All' },
    },
    {
      name: 'club-membership and reservation tags carry their object type',
      method: 'POST',
      url: '/tag/club-membership',
      body: { title: 'Founders' },
      status: 201,
      expectBody: { objectType: 'ClubMembership' },
    },
    {
      name: 'an unknown object type is 404',
      method: 'POST',
      url: '/tag/product',
      body: { title: 'x' },
      status: 404,
      code: 'not_found',
      check: (_res, ctx) => expect(countRows(ctx.t.tenant.db, 'tags')).toBe(0),
    },
    {
      name: 'listing an unknown object type is 404',
      method: 'GET',
      url: '/tag/Customer',
      status: 404,
      code: 'not_found',
    },
    {
      name: 'create without title is 400',
      method: 'POST',
      url: '/tag/customer',
      body: {},
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'create with an unknown field in the body is 400',
      method: 'POST',
      url: '/tag/customer',
      body: { title: 'x', colour: 'red' },
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'a Dynamic tag without conditions is 400',
      method: 'POST',
      url: '/tag/customer',
      body: { title: 'x', type: 'Dynamic' },
      status: 400,
      code: 'validation_failed',
      check: (res) =>
        expect(res.body.errors).toContainEqual(expect.objectContaining({ path: 'body/conditions' })),
    },
    {
      name: 'a Manual tag with conditions is 400',
      method: 'POST',
      url: '/tag/customer',
      body: { title: 'x', conditions: [{ field: 'email', operator: 'isNotEmpty' }] },
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'a condition on a field the object type lacks is 400 naming the condition',
      method: 'POST',
      url: '/tag/reservation',
      body: {
        title: 'x',
        type: 'Dynamic',
        conditions: [
          { field: 'guestCount', operator: 'greaterThan', value: 6 },
          { field: 'lifetimeValue', operator: 'greaterThan', value: 6 },
        ],
      },
      status: 400,
      code: 'validation_failed',
      check: (res, ctx) => {
        expect(res.body.errors).toEqual([expect.objectContaining({ path: 'body/conditions/1/field' })])
        expect(countRows(ctx.t.tenant.db, 'tags')).toBe(0)
      },
    },
    {
      name: 'an operator that does not suit the field kind is 400',
      method: 'POST',
      url: '/tag/customer',
      body: {
        title: 'x',
        type: 'Dynamic',
        conditions: [{ field: 'marketingOptIn', operator: 'greaterThan', value: 1 }],
      },
      status: 400,
      code: 'validation_failed',
      check: (res) => expect(res.body.errors[0].path).toBe('body/conditions/0/operator'),
    },
    {
      name: 'an unknown operator is 400',
      method: 'POST',
      url: '/tag/customer',
      body: { title: 'x', type: 'Dynamic', conditions: [{ field: 'email', operator: 'like', value: 'x' }] },
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'a value of the wrong kind is 400',
      method: 'POST',
      url: '/tag/customer',
      body: {
        title: 'x',
        type: 'Dynamic',
        conditions: [{ field: 'lifetimeValue', operator: 'greaterThan', value: '100' }],
      },
      status: 400,
      code: 'validation_failed',
      check: (res) => expect(res.body.errors[0].path).toBe('body/conditions/0/value'),
    },
    {
      name: 'a date condition needs a real calendar date',
      method: 'POST',
      url: '/tag/customer',
      body: {
        title: 'x',
        type: 'Dynamic',
        conditions: [{ field: 'birthDate', operator: 'before', value: '2023-02-29' }],
      },
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'isEmpty takes no value',
      method: 'POST',
      url: '/tag/customer',
      body: {
        title: 'x',
        type: 'Dynamic',
        conditions: [{ field: 'email', operator: 'isEmpty', value: 'a' }],
      },
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'a duplicate title within an object type is 409, case-insensitively',
      method: 'POST',
      url: '/tag/customer',
      setup: (ctx) => createTag(ctx, { title: 'VIP' }).then(() => {}),
      body: { title: 'vip' },
      status: 409,
      code: 'conflict',
    },
    {
      name: 'the same title under another object type is fine',
      method: 'POST',
      url: '/tag/order',
      setup: (ctx) => createTag(ctx, { title: 'VIP' }).then(() => {}),
      body: { title: 'VIP' },
      status: 201,
    },
    {
      name: 'a customer tag is 404 under /tag/order',
      method: 'GET',
      url: (ctx) => `/tag/order/${ctx.vars.tagId}`,
      setup: (ctx) => createTag(ctx).then(() => {}),
      status: 404,
      code: 'not_found',
    },
    {
      name: 'an unknown id is 404',
      method: 'GET',
      url: '/tag/customer/nope',
      status: 404,
      code: 'not_found',
    },
    {
      name: 'limit 101 is 400',
      method: 'GET',
      url: '/tag/customer?limit=101',
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'page 0 is 400',
      method: 'GET',
      url: '/tag/customer?page=0',
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'update to Dynamic with a condition',
      method: 'PUT',
      url: (ctx) => `/tag/customer/${ctx.vars.tagId}`,
      setup: (ctx) => createTag(ctx).then(() => {}),
      body: { type: 'Dynamic', conditions: [{ field: 'city', operator: 'equals', value: 'Napa' }] },
      status: 200,
      expectBody: { title: 'VIP', type: 'Dynamic', appliesToCondition: 'All' },
    },
    {
      name: 'update of a Dynamic tag to Manual drops its conditions',
      method: 'PUT',
      url: (ctx) => `/tag/customer/${ctx.vars.tagId}`,
      setup: (ctx) => createTag(ctx, dynamicBody).then(() => {}),
      body: { type: 'Manual' },
      status: 200,
      expectBody: { type: 'Manual', conditions: [], appliesToCondition: null },
    },
    {
      name: 'update with invalid conditions is 400 and changes nothing',
      method: 'PUT',
      url: (ctx) => `/tag/customer/${ctx.vars.tagId}`,
      setup: (ctx) => createTag(ctx, dynamicBody).then(() => {}),
      body: { conditions: [{ field: 'nope', operator: 'equals', value: 'x' }] },
      status: 400,
      code: 'validation_failed',
      check: async (_res, ctx) => {
        const now = await ctx.t.request('GET', `/tag/customer/${ctx.vars.tagId}`)
        expect(now.body.conditions).toEqual(dynamicBody.conditions)
      },
    },
    {
      name: 'read_only may list',
      method: 'GET',
      url: '/tag/customer',
      as: (ctx) => ctx.t.tenant.readOnly,
      status: 200,
      expectBody: { tags: [], total: 0 },
    },
    {
      name: 'read_only may not create (403 without tags:write)',
      method: 'POST',
      url: '/tag/customer',
      as: (ctx) => ctx.t.tenant.readOnly,
      body: { title: 'x' },
      status: 403,
      code: 'forbidden',
      check: (res, ctx) => {
        expect(res.body.requiredPermission).toBe('tags:write')
        expect(countRows(ctx.t.tenant.db, 'tags')).toBe(0)
      },
    },
    {
      name: 'a staff user with no role is 403 even to read',
      method: 'GET',
      url: '/tag/customer',
      setup: async (ctx) => {
        ctx.vars.nobody = await ctx.t.addStaff(ctx.t.tenant)
      },
      as: (ctx) => ctx.vars.nobody,
      status: 403,
      code: 'forbidden',
    },
    {
      name: 'no token is 401',
      method: 'GET',
      url: '/tag/customer',
      as: () => null,
      status: 401,
      code: 'unauthenticated',
    },
  ])
})

describe('tags: behaviour', () => {
  let t: TestApp
  beforeEach(async () => {
    t = await createTestApp()
  })
  afterEach(() => t.close())

  test('get, update and delete round trip; delete is 204 with no body', async () => {
    const created = (await t.request('POST', '/tag/customer', { body: { title: 'VIP' } })).body
    expect((await t.request('GET', `/tag/customer/${created.id}`)).body).toEqual(created)
    const updated = await t.request('PUT', `/tag/customer/${created.id}`, {
      body: { title: 'Very Important' },
    })
    expect(updated.body).toMatchObject({ id: created.id, title: 'Very Important' })
    const deleted = await t.request('DELETE', `/tag/customer/${created.id}`)
    expect(deleted.status).toBe(204)
    expect(deleted.text).toBe('')
    expect((await t.request('GET', `/tag/customer/${created.id}`)).status).toBe(404)
    expect((await t.request('DELETE', `/tag/customer/${created.id}`)).status).toBe(404)
  })

  test('lists only the path object type, in title order, with total, paging, q and type', async () => {
    for (const title of ['Wholesale', 'allocation', 'Birthday'])
      await t.request('POST', '/tag/customer', { body: { title } })
    await t.request('POST', '/tag/customer', { body: { ...dynamicBody, title: 'Cellar' } })
    await t.request('POST', '/tag/order', { body: { title: 'Rush' } })
    const titles = (res: { body: { tags: { title: string }[] } }) => res.body.tags.map((x) => x.title)

    const first = await t.request('GET', '/tag/customer?limit=2')
    expect(first.body.total).toBe(4)
    expect(titles(first)).toEqual(['allocation', 'Birthday'])
    expect(titles(await t.request('GET', '/tag/customer?limit=2&page=2'))).toEqual(['Cellar', 'Wholesale'])
    expect((await t.request('GET', '/tag/customer?limit=2&page=9')).body).toEqual({ tags: [], total: 4 })
    expect(titles(await t.request('GET', '/tag/customer?q=LL'))).toEqual(['allocation', 'Cellar'])
    expect(titles(await t.request('GET', '/tag/customer?type=Dynamic'))).toEqual(['Cellar'])
    expect(titles(await t.request('GET', '/tag/order'))).toEqual(['Rush'])
  })

  test("another tenant's tag is 404 for every route and stays unchanged", async () => {
    const other = await t.addTenant('other')
    const theirs = (
      await t.request('POST', '/tag/customer', { as: other.owner, tenant: other, body: { title: 'Theirs' } })
    ).body
    for (const [method, body] of [
      ['GET', undefined],
      ['PUT', { title: 'Mine' }],
      ['DELETE', undefined],
    ] as const) {
      const res = await t.request(method, `/tag/customer/${theirs.id}`, { body })
      expect(res.status).toBe(404)
    }
    expect((await t.request('GET', '/tag/customer')).body.total).toBe(0)
    // The same title is free in this tenant.
    expect((await t.request('POST', '/tag/customer', { body: { title: 'Theirs' } })).status).toBe(201)
    const still = await t.request('GET', `/tag/customer/${theirs.id}`, { as: other.owner, tenant: other })
    expect(still.body.title).toBe('Theirs')
  })

  test('staff may manage tags (tags:write), as at the front of house', async () => {
    const res = await t.request('POST', '/tag/customer', { as: t.tenant.staff, body: { title: 'Regular' } })
    expect(res.status).toBe(201)
  })

  test('writes append audit entries and events; refused writes append nothing', async () => {
    const created = (await t.request('POST', '/tag/customer', { body: { title: 'VIP' } })).body
    await t.request('PUT', `/tag/customer/${created.id}`, { body: { title: 'VIP+' } })
    await t.request('PUT', `/tag/customer/${created.id}`, { body: { title: 'VIP+' } })
    await t.request('DELETE', `/tag/customer/${created.id}`)
    const entries = t.tenant.db.$client
      .query("SELECT action, metadata FROM audit_entries WHERE entity_type = 'tag' ORDER BY seq")
      .all() as { action: string; metadata: string }[]
    expect(entries.map((e) => e.action)).toEqual(['tag.create', 'tag.update', 'tag.delete'])
    expect(JSON.parse(entries[1]!.metadata)).toEqual({ changes: { title: { from: 'VIP', to: 'VIP+' } } })
    const events = t.tenant.db.$client
      .query("SELECT action FROM outbox_events WHERE object = 'tag' ORDER BY seq")
      .all()
    expect(events).toEqual([{ action: 'create' }, { action: 'update' }, { action: 'delete' }])

    const before = countRows(t.tenant.db, 'audit_entries')
    await t.request('POST', '/tag/customer', { body: { title: 'x', type: 'Dynamic' } })
    await t.request('POST', '/tag/nothing', { body: { title: 'x' } })
    await t.request('POST', '/tag/customer', { as: t.tenant.readOnly, body: { title: 'x' } })
    expect(countRows(t.tenant.db, 'audit_entries')).toBe(before)
    expect(countRows(t.tenant.db, 'tags')).toBe(0)
  })

  test('concurrent creates of one title: exactly one wins, the others are 409', async () => {
    const results = await Promise.all(
      Array.from({ length: 6 }, () => t.request('POST', '/tag/customer', { body: { title: 'Race' } })),
    )
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409])
    expect(countRows(t.tenant.db, 'tags')).toBe(1)
  })
})
