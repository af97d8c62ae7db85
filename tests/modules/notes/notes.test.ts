// /note: CRUD, filters by customer, order and club membership, q, paging, calendar dates,
// permissions, tenant isolation, audit and events.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import {
  countRows,
  createTestApp,
  runScenarios,
  type ScenarioContext,
  type TenantFixture,
  type TestApp,
} from '../../harness'

let sequence = 0

/** Real records for notes to refer to: customers, orders and a club membership of a tenant. */
async function records(t: TestApp, tenant: TenantFixture = t.tenant) {
  const as = { as: tenant.owner, tenant }
  const post = async (url: string, body: Record<string, unknown>) => {
    const res = await t.request('POST', url, { ...as, body })
    expect(res.status).toBe(201)
    return res.body as { id: string }
  }
  const customer = async () => {
    const n = ++sequence
    return post('/customers', { firstName: 'Ann', lastName: `Lee${n}`, email: `ann${n}@example.test` })
  }
  const [c1, c2] = [await customer(), await customer()]
  const club = await post('/clubs', { title: `Club ${++sequence}`, slug: `club-${sequence}` })
  const m1 = await post('/club-membership', {
    customerId: c1.id,
    clubId: club.id,
    orderDeliveryMethod: 'Pickup',
  })
  const o1 = await post('/order', { locationId: tenant.locationId, customerId: c1.id })
  const o2 = await post('/order', { locationId: tenant.locationId })
  return { c1: c1.id, c2: c2.id, m1: m1.id, o1: o1.id, o2: o2.id }
}

const createNote = async (
  ctx: ScenarioContext,
  body: Record<string, unknown> = { content: 'Likes Syrah', noteDate: '2025-01-15' },
) => {
  const res = await ctx.t.request('POST', '/note', { body })
  expect(res.status).toBe(201)
  ctx.vars.noteId = res.body.id
  return res.body
}

describe('notes: scenarios', () => {
  runScenarios([
    {
      name: 'create answers 201 with the note and defaults',
      method: 'POST',
      url: '/note',
      setup: async (ctx) => {
        ctx.vars.refs = await records(ctx.t)
      },
      body: (ctx: ScenarioContext) => ({
        content: 'Prefers the patio',
        noteDate: '2025-02-01',
        customerId: ctx.vars.refs.c1,
      }),
      status: 201,
      expectBody: {
        type: 'Note',
        content: 'Prefers the patio',
        noteDate: '2025-02-01',
        orderId: null,
        clubMembershipId: null,
      },
      check: (res, ctx) => expect(res.body.customerId).toBe(ctx.vars.refs.c1),
    },
    {
      name: 'create naming records of the tenant stores all three references',
      method: 'POST',
      url: '/note',
      setup: async (ctx) => {
        ctx.vars.refs = await records(ctx.t)
      },
      body: (ctx: ScenarioContext) => ({
        content: 'Skipped shipment',
        noteDate: '2025-02-01',
        customerId: ctx.vars.refs.c1,
        orderId: ctx.vars.refs.o1,
        clubMembershipId: ctx.vars.refs.m1,
      }),
      status: 201,
      check: (res, ctx) =>
        expect(res.body).toMatchObject({
          customerId: ctx.vars.refs.c1,
          orderId: ctx.vars.refs.o1,
          clubMembershipId: ctx.vars.refs.m1,
        }),
    },
    ...(['customerId', 'orderId', 'clubMembershipId'] as const).map((field) => ({
      name: `create with an unknown ${field} is 400 naming it and writes nothing`,
      method: 'POST',
      url: '/note',
      body: { content: 'x', noteDate: '2025-02-01', [field]: 'no-such-id' },
      status: 400,
      code: 'validation_failed',
      check: (res: { body: any }, ctx: ScenarioContext) => {
        expect(res.body.errors).toEqual([
          { path: `body/${field}`, message: expect.stringContaining('no-such-id') },
        ])
        expect(countRows(ctx.t.tenant.db, 'notes')).toBe(0)
      },
    })),
    {
      name: 'create naming all three unknown references is one 400 naming each',
      method: 'POST',
      url: '/note',
      body: { content: 'x', noteDate: '2025-02-01', customerId: 'a', orderId: 'b', clubMembershipId: 'c' },
      status: 400,
      code: 'validation_failed',
      check: (res) =>
        expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual([
          'body/customerId',
          'body/orderId',
          'body/clubMembershipId',
        ]),
    },
    {
      name: "create naming another tenant's customer, order and membership is 400",
      method: 'POST',
      url: '/note',
      setup: async (ctx) => {
        ctx.vars.refs = await records(ctx.t, await ctx.t.addTenant('other'))
      },
      body: (ctx: ScenarioContext) => ({
        content: 'x',
        noteDate: '2025-02-01',
        customerId: ctx.vars.refs.c1,
        orderId: ctx.vars.refs.o1,
        clubMembershipId: ctx.vars.refs.m1,
      }),
      status: 400,
      code: 'validation_failed',
      check: (res, ctx) => {
        expect(res.body.errors).toHaveLength(3)
        expect(countRows(ctx.t.tenant.db, 'notes')).toBe(0)
      },
    },
    {
      name: 'update to an unknown order is 400 and changes nothing',
      method: 'PUT',
      url: (ctx) => `/note/${ctx.vars.noteId}`,
      setup: (ctx) => createNote(ctx).then(() => {}),
      body: { orderId: 'no-such-order', content: 'changed' },
      status: 400,
      code: 'validation_failed',
      check: async (res, ctx) => {
        expect(res.body.errors[0].path).toBe('body/orderId')
        const after = await ctx.t.request('GET', `/note/${ctx.vars.noteId}`)
        expect(after.body).toMatchObject({ content: 'Likes Syrah', orderId: null })
      },
    },
    {
      name: 'create with a type',
      method: 'POST',
      url: '/note',
      body: { content: 'Called about allocation', noteDate: '2025-02-01', type: 'Phone Call' },
      status: 201,
      expectBody: { type: 'Phone Call' },
    },
    {
      name: 'create without content is 400',
      method: 'POST',
      url: '/note',
      body: { noteDate: '2025-01-01' },
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'create without noteDate is 400',
      method: 'POST',
      url: '/note',
      body: { content: 'x' },
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'an empty content is 400',
      method: 'POST',
      url: '/note',
      body: { content: '', noteDate: '2025-01-01' },
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'a noteDate that is not a date is 400',
      method: 'POST',
      url: '/note',
      body: { content: 'x', noteDate: '15/01/2025' },
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'a noteDate that is not on the calendar is 400 and writes nothing',
      method: 'POST',
      url: '/note',
      body: { content: 'x', noteDate: '2025-02-29' },
      status: 400,
      code: 'validation_failed',
      check: (res, ctx) => {
        expect(res.body.errors).toEqual([expect.objectContaining({ path: 'body/noteDate' })])
        expect(countRows(ctx.t.tenant.db, 'notes')).toBe(0)
      },
    },
    {
      name: 'an unknown type is 400',
      method: 'POST',
      url: '/note',
      body: { content: 'x', noteDate: '2025-01-01', type: 'Fax' },
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'an unknown field is 400',
      method: 'POST',
      url: '/note',
      body: { content: 'x', noteDate: '2025-01-01', author: 'me' },
      status: 400,
      code: 'validation_failed',
    },
    { name: 'an unknown id is 404', method: 'GET', url: '/note/nope', status: 404, code: 'not_found' },
    {
      name: 'update of an unknown id is 404',
      method: 'PUT',
      url: '/note/nope',
      body: { content: 'x' },
      status: 404,
      code: 'not_found',
    },
    {
      name: 'delete of an unknown id is 404',
      method: 'DELETE',
      url: '/note/nope',
      status: 404,
      code: 'not_found',
    },
    {
      name: 'update is partial; null clears a reference',
      method: 'PUT',
      url: (ctx) => `/note/${ctx.vars.noteId}`,
      setup: async (ctx) => {
        ctx.vars.refs = await records(ctx.t)
        const { c1, o1 } = ctx.vars.refs
        await createNote(ctx, { content: 'a', noteDate: '2025-01-01', customerId: c1, orderId: o1 })
      },
      body: { orderId: null, content: 'b' },
      status: 200,
      expectBody: { content: 'b', orderId: null, noteDate: '2025-01-01' },
      check: (res, ctx) => expect(res.body.customerId).toBe(ctx.vars.refs.c1),
    },
    {
      name: 'update with a non-calendar noteDate is 400',
      method: 'PUT',
      url: (ctx) => `/note/${ctx.vars.noteId}`,
      setup: (ctx) => createNote(ctx).then(() => {}),
      body: { noteDate: '2025-04-31' },
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'limit 101 is 400',
      method: 'GET',
      url: '/note?limit=101',
      status: 400,
      code: 'validation_failed',
    },
    { name: 'page 0 is 400', method: 'GET', url: '/note?page=0', status: 400, code: 'validation_failed' },
    {
      name: 'read_only may list',
      method: 'GET',
      url: '/note',
      as: (ctx) => ctx.t.tenant.readOnly,
      status: 200,
      expectBody: { notes: [], total: 0 },
    },
    {
      name: 'read_only may not create (403 without notes:write)',
      method: 'POST',
      url: '/note',
      as: (ctx) => ctx.t.tenant.readOnly,
      body: { content: 'x', noteDate: '2025-01-01' },
      status: 403,
      code: 'forbidden',
      check: (res, ctx) => {
        expect(res.body.requiredPermission).toBe('notes:write')
        expect(countRows(ctx.t.tenant.db, 'notes')).toBe(0)
      },
    },
    {
      name: 'staff may write notes',
      method: 'POST',
      url: '/note',
      as: (ctx) => ctx.t.tenant.staff,
      body: { content: 'x', noteDate: '2025-01-01' },
      status: 201,
    },
    {
      name: 'a staff user with no role is 403 even to read',
      method: 'GET',
      url: '/note',
      setup: async (ctx) => {
        ctx.vars.nobody = await ctx.t.addStaff(ctx.t.tenant)
      },
      as: (ctx) => ctx.vars.nobody,
      status: 403,
      code: 'forbidden',
    },
  ])
})

describe('notes: behaviour', () => {
  let t: TestApp
  beforeEach(async () => {
    t = await createTestApp()
  })
  afterEach(() => t.close())

  test('round trip; delete is 204 with no body', async () => {
    const created = (await t.request('POST', '/note', { body: { content: 'a', noteDate: '2025-01-01' } }))
      .body
    expect((await t.request('GET', `/note/${created.id}`)).body).toEqual(created)
    const updated = await t.request('PUT', `/note/${created.id}`, { body: { content: 'b' } })
    expect(updated.body).toMatchObject({ id: created.id, content: 'b' })
    const deleted = await t.request('DELETE', `/note/${created.id}`)
    expect(deleted.status).toBe(204)
    expect(deleted.text).toBe('')
    expect((await t.request('GET', `/note/${created.id}`)).status).toBe(404)
  })

  test('filters combine; q searches content; newest noteDate first; paging with total', async () => {
    const { c1, c2, o1, o2, m1 } = await records(t)
    const add = async (body: Record<string, unknown>) =>
      expect((await t.request('POST', '/note', { body })).status).toBe(201)
    await add({ content: 'Loves Pinot', noteDate: '2025-01-01', customerId: c1 })
    await add({ content: 'Birthday dinner', noteDate: '2025-03-01', customerId: c1, orderId: o1 })
    await add({
      content: 'Skipped shipment',
      noteDate: '2025-02-01',
      customerId: c1,
      clubMembershipId: m1,
    })
    await add({ content: 'pinot for the table', noteDate: '2025-02-15', customerId: c2, orderId: o2 })
    const contents = async (qs: string) =>
      (await t.request('GET', `/note${qs}`)).body.notes.map((n: { content: string }) => n.content)

    expect(await contents('')).toEqual([
      'Birthday dinner',
      'pinot for the table',
      'Skipped shipment',
      'Loves Pinot',
    ])
    expect(await contents(`?customerId=${c1}`)).toEqual([
      'Birthday dinner',
      'Skipped shipment',
      'Loves Pinot',
    ])
    expect(await contents(`?customerId=${c1}&orderId=${o1}`)).toEqual(['Birthday dinner'])
    expect(await contents(`?customerId=${c2}&orderId=${o1}`)).toEqual([])
    expect(await contents(`?clubMembershipId=${m1}`)).toEqual(['Skipped shipment'])
    expect(await contents('?customerId=no-such-customer')).toEqual([])
    expect(await contents('?q=PINOT')).toEqual(['pinot for the table', 'Loves Pinot'])
    const page = await t.request('GET', `/note?customerId=${c1}&limit=2&page=2`)
    expect(page.body.total).toBe(3)
    expect(page.body.notes.map((n: { content: string }) => n.content)).toEqual(['Loves Pinot'])
  })

  test('a customer merge moves notes to the primary; a merged-away id is stored and filtered as the primary', async () => {
    const { c1, c2 } = await records(t)
    const note = (
      await t.request('POST', '/note', { body: { content: 'a', noteDate: '2025-01-01', customerId: c2 } })
    ).body
    const merged = await t.request('POST', '/customers/merge', {
      body: { primaryCustomerId: c1, sourceCustomerIds: [c2], confirmation: 'MERGE' },
    })
    expect(merged.status).toBe(200)
    expect((await t.request('GET', `/note/${note.id}`)).body.customerId).toBe(c1)
    const entry = t.tenant.db.$client
      .query("SELECT metadata FROM audit_entries WHERE action = 'customer.merge'")
      .get() as { metadata: string }
    expect(JSON.parse(entry.metadata).sources[0].moved.notes).toBe(1)
    const viaAlias = await t.request('POST', '/note', {
      body: { content: 'b', noteDate: '2025-01-02', customerId: c2 },
    })
    expect(viaAlias.body.customerId).toBe(c1)
    expect((await t.request('GET', `/note?customerId=${c2}`)).body.total).toBe(2)
  })

  test('a customer with notes cannot be deleted (409 naming them); without them it can', async () => {
    const { c2 } = await records(t)
    const note = (
      await t.request('POST', '/note', { body: { content: 'a', noteDate: '2025-01-01', customerId: c2 } })
    ).body
    const refused = await t.request('DELETE', `/customers/${c2}`)
    expect(refused.status).toBe(409)
    expect(refused.body.references).toEqual({ notes: 1 })
    expect((await t.request('GET', `/customers/${c2}`)).status).toBe(200)
    expect((await t.request('PUT', `/note/${note.id}`, { body: { customerId: null } })).status).toBe(200)
    expect((await t.request('DELETE', `/customers/${c2}`)).status).toBe(200)
  })

  test("another tenant's note is 404 for every route and stays unchanged", async () => {
    const other = await t.addTenant('other')
    const { c1 } = await records(t, other)
    const theirs = (
      await t.request('POST', '/note', {
        as: other.owner,
        tenant: other,
        body: { content: 'theirs', noteDate: '2025-01-01', customerId: c1 },
      })
    ).body
    expect(theirs.customerId).toBe(c1)
    for (const [method, body] of [
      ['GET', undefined],
      ['PUT', { content: 'mine' }],
      ['DELETE', undefined],
    ] as const) {
      expect((await t.request(method, `/note/${theirs.id}`, { body })).status).toBe(404)
    }
    expect((await t.request('GET', `/note?customerId=${c1}`)).body.total).toBe(0)
    const still = await t.request('GET', `/note/${theirs.id}`, { as: other.owner, tenant: other })
    expect(still.body.content).toBe('theirs')
  })

  test('writes append audit entries and events; a no-op update appends nothing', async () => {
    const created = (await t.request('POST', '/note', { body: { content: 'a', noteDate: '2025-01-01' } }))
      .body
    await t.request('PUT', `/note/${created.id}`, { body: { content: 'b' } })
    await t.request('PUT', `/note/${created.id}`, { body: { content: 'b' } })
    await t.request('DELETE', `/note/${created.id}`)
    const entries = t.tenant.db.$client
      .query("SELECT action, metadata FROM audit_entries WHERE entity_type = 'note' ORDER BY seq")
      .all() as { action: string; metadata: string }[]
    expect(entries.map((e) => e.action)).toEqual(['note.create', 'note.update', 'note.delete'])
    expect(JSON.parse(entries[1]!.metadata)).toEqual({ changes: { content: { from: 'a', to: 'b' } } })
    const events = t.tenant.db.$client
      .query("SELECT action FROM outbox_events WHERE object = 'note' ORDER BY seq")
      .all()
    expect(events).toEqual([{ action: 'create' }, { action: 'update' }, { action: 'delete' }])
  })
})

describe('notes: location', () => {
  let t: TestApp
  beforeEach(async () => {
    t = await createTestApp()
  })
  afterEach(() => t.close())

  test('a note about an order lives where the order does; notes about no order are seen everywhere', async () => {
    const locationB = t.addLocation(t.tenant, {
      name: 'B',
      timezone: 'UTC',
    }).id
    const atB = (await t.request('POST', '/order', { body: { locationId: locationB } })).body.id as string
    const aboutB = (
      await t.request('POST', '/note', { body: { content: 'B', noteDate: '2025-01-01', orderId: atB } })
    ).body
    const general = (await t.request('POST', '/note', { body: { content: 'all', noteDate: '2025-01-01' } }))
      .body
    const managerAtA = await t.addStaff(t.tenant, { role: 'manager', locationId: t.tenant.locationId })

    const listed = await t.request('GET', '/note', { as: managerAtA })
    expect(listed.body.notes.map((n: { id: string }) => n.id)).toEqual([general.id])
    expect(listed.body.total).toBe(1)
    expect((await t.request('GET', `/note/${aboutB.id}`, { as: managerAtA })).status).toBe(404)
    expect((await t.request('GET', `/note/${general.id}`, { as: managerAtA })).status).toBe(200)

    const before = countRows(t.tenant.db, 'notes')
    const refused = await t.request('POST', '/note', {
      as: managerAtA,
      body: { content: 'sneak', noteDate: '2025-01-01', orderId: atB },
    })
    expect(refused.status).toBe(400)
    expect(refused.body.errors).toEqual([{ path: 'body/orderId', message: `order ${atB} not found` }])
    const moved = await t.request('PUT', `/note/${general.id}`, { as: managerAtA, body: { orderId: atB } })
    expect(moved.status).toBe(400)
    expect(countRows(t.tenant.db, 'notes')).toBe(before)
    expect((await t.request('GET', `/note/${general.id}`)).body.orderId).toBeNull()
  })
})
