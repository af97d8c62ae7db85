// /note: CRUD, filters by customer, order and club membership, q, paging, calendar dates,
// permissions, tenant isolation, audit and events.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { countRows, createTestApp, runScenarios, type ScenarioContext, type TestApp } from '../../harness'

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
      body: { content: 'Prefers the patio', noteDate: '2025-02-01', customerId: 'cust-1' },
      status: 201,
      expectBody: {
        type: 'Note',
        content: 'Prefers the patio',
        noteDate: '2025-02-01',
        customerId: 'cust-1',
        orderId: null,
        clubMembershipId: null,
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
      setup: (ctx) =>
        createNote(ctx, { content: 'a', noteDate: '2025-01-01', customerId: 'c', orderId: 'o' }).then(
          () => {},
        ),
      body: { orderId: null, content: 'b' },
      status: 200,
      expectBody: { content: 'b', customerId: 'c', orderId: null, noteDate: '2025-01-01' },
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
    const add = (body: Record<string, unknown>) => t.request('POST', '/note', { body })
    await add({ content: 'Loves Pinot', noteDate: '2025-01-01', customerId: 'c1' })
    await add({ content: 'Birthday dinner', noteDate: '2025-03-01', customerId: 'c1', orderId: 'o1' })
    await add({
      content: 'Skipped shipment',
      noteDate: '2025-02-01',
      customerId: 'c1',
      clubMembershipId: 'm1',
    })
    await add({ content: 'pinot for the table', noteDate: '2025-02-15', customerId: 'c2', orderId: 'o2' })
    const contents = async (qs: string) =>
      (await t.request('GET', `/note${qs}`)).body.notes.map((n: { content: string }) => n.content)

    expect(await contents('')).toEqual([
      'Birthday dinner',
      'pinot for the table',
      'Skipped shipment',
      'Loves Pinot',
    ])
    expect(await contents('?customerId=c1')).toEqual(['Birthday dinner', 'Skipped shipment', 'Loves Pinot'])
    expect(await contents('?customerId=c1&orderId=o1')).toEqual(['Birthday dinner'])
    expect(await contents('?customerId=c2&orderId=o1')).toEqual([])
    expect(await contents('?clubMembershipId=m1')).toEqual(['Skipped shipment'])
    expect(await contents('?q=PINOT')).toEqual(['pinot for the table', 'Loves Pinot'])
    const page = await t.request('GET', '/note?customerId=c1&limit=2&page=2')
    expect(page.body.total).toBe(3)
    expect(page.body.notes.map((n: { content: string }) => n.content)).toEqual(['Loves Pinot'])
  })

  test("another tenant's note is 404 for every route and stays unchanged", async () => {
    const other = await t.addTenant('other')
    const theirs = (
      await t.request('POST', '/note', {
        as: other.owner,
        tenant: other,
        body: { content: 'theirs', noteDate: '2025-01-01', customerId: 'c1' },
      })
    ).body
    for (const [method, body] of [
      ['GET', undefined],
      ['PUT', { content: 'mine' }],
      ['DELETE', undefined],
    ] as const) {
      expect((await t.request(method, `/note/${theirs.id}`, { body })).status).toBe(404)
    }
    expect((await t.request('GET', '/note?customerId=c1')).body.total).toBe(0)
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
