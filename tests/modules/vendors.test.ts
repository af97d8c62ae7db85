// The reference tests every resource family copies: happy path, validation, paging, permission
// (403 without the primitive), tenant isolation (404 for another tenant's id), audit and events.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { countRows, createTestApp, runScenarios, type ScenarioContext, type TestApp } from '../harness'

const createVendor = async (ctx: ScenarioContext, body: Record<string, unknown> = { name: 'Acme Wines' }) => {
  const res = await ctx.t.request('POST', '/vendor', { body })
  expect(res.status).toBe(201)
  ctx.vars.vendorId = res.body.id
  return res.body
}

describe('vendors: scenarios', () => {
  runScenarios([
    {
      name: 'create answers 201 with the vendor and defaults',
      method: 'POST',
      url: '/vendor',
      body: { name: 'Acme Wines', code: 'ACME', email: 'orders@acme.test', website: 'https://acme.test' },
      status: 201,
      expectBody: {
        name: 'Acme Wines',
        code: 'ACME',
        status: 'active',
        email: 'orders@acme.test',
        phone: null,
      },
    },
    {
      name: 'create without name is 400',
      method: 'POST',
      url: '/vendor',
      body: {},
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'create with an empty name is 400',
      method: 'POST',
      url: '/vendor',
      body: { name: '' },
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'create with an unknown field is 400 naming it',
      method: 'POST',
      url: '/vendor',
      body: { name: 'x', colour: 'red' },
      status: 400,
      code: 'validation_failed',
      check: (res) =>
        expect(res.body.errors).toContainEqual(expect.objectContaining({ path: 'body/colour' })),
    },
    {
      name: 'create with a wrong type is 400',
      method: 'POST',
      url: '/vendor',
      body: { name: 42 },
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'create with a bad email is 400',
      method: 'POST',
      url: '/vendor',
      body: { name: 'x', email: 'not-an-email' },
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'a website that is not http(s) is 400 naming it',
      method: 'POST',
      url: '/vendor',
      body: { name: 'x', website: 'javascript:alert(1)' },
      status: 400,
      code: 'validation_failed',
      check: (res) => expect(res.body.errors.map((e: { path: string }) => e.path)).toContain('body/website'),
    },
    {
      name: 'create with an unknown status is 400',
      method: 'POST',
      url: '/vendor',
      body: { name: 'x', status: 'deleted' },
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'malformed JSON is 400',
      method: 'POST',
      url: '/vendor',
      body: '{"name": ',
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'a JSON array body is 400',
      method: 'POST',
      url: '/vendor',
      body: '[]',
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'a form body is 415',
      method: 'POST',
      url: '/vendor',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'name=x',
      status: 415,
      code: 'unsupported_media_type',
    },
    {
      name: 'a duplicate code is 409, case-insensitively',
      method: 'POST',
      url: '/vendor',
      setup: (ctx) => createVendor(ctx, { name: 'First', code: 'ACME' }).then(() => {}),
      body: { name: 'Second', code: 'acme' },
      status: 409,
      code: 'conflict',
    },
    { name: 'page 0 is 400', method: 'GET', url: '/vendor?page=0', status: 400, code: 'validation_failed' },
    {
      name: 'limit 101 is 400',
      method: 'GET',
      url: '/vendor?limit=101',
      status: 400,
      code: 'validation_failed',
    },
    { name: 'limit 0 is 400', method: 'GET', url: '/vendor?limit=0', status: 400, code: 'validation_failed' },
    {
      name: 'a non-numeric limit is 400',
      method: 'GET',
      url: '/vendor?limit=ten',
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'limit 100 is accepted',
      method: 'GET',
      url: '/vendor?limit=100',
      status: 200,
      expectBody: { page: { limit: 100 } },
    },
    { name: 'an unknown id is 404', method: 'GET', url: '/vendor/nope', status: 404, code: 'not_found' },
    {
      name: 'update of an unknown id is 404',
      method: 'PUT',
      url: '/vendor/nope',
      body: { name: 'x' },
      status: 404,
      code: 'not_found',
    },
    {
      name: 'delete of an unknown id is 404',
      method: 'DELETE',
      url: '/vendor/nope',
      status: 404,
      code: 'not_found',
    },
    {
      name: 'update is partial and an empty body changes nothing',
      method: 'PUT',
      url: (ctx) => `/vendor/${ctx.vars.vendorId}`,
      setup: (ctx) => createVendor(ctx, { name: 'Acme', phone: '555' }).then(() => {}),
      body: {},
      status: 200,
      expectBody: { name: 'Acme', phone: '555' },
    },
    {
      name: 'update with null clears a field',
      method: 'PUT',
      url: (ctx) => `/vendor/${ctx.vars.vendorId}`,
      setup: (ctx) => createVendor(ctx, { name: 'Acme', phone: '555' }).then(() => {}),
      body: { phone: null, status: 'inactive' },
      status: 200,
      expectBody: { name: 'Acme', phone: null, status: 'inactive' },
    },
    {
      name: 'no token is 401',
      method: 'GET',
      url: '/vendor',
      as: () => null,
      status: 401,
      code: 'unauthenticated',
    },
    {
      name: 'read_only may list',
      method: 'GET',
      url: '/vendor',
      as: (ctx) => ctx.t.tenant.readOnly,
      status: 200,
    },
    {
      name: 'read_only may not create (403 without vendors:write)',
      method: 'POST',
      url: '/vendor',
      as: (ctx) => ctx.t.tenant.readOnly,
      body: { name: 'x' },
      status: 403,
      code: 'forbidden',
      check: (res, ctx) => {
        expect(res.body.requiredPermission).toBe('vendors:write')
        expect(countRows(ctx.t.tenant.db, 'vendors')).toBe(0)
      },
    },
    {
      name: 'the staff role may not delete',
      method: 'DELETE',
      url: (ctx) => `/vendor/${ctx.vars.vendorId}`,
      setup: (ctx) => createVendor(ctx).then(() => {}),
      as: (ctx) => ctx.t.tenant.staff,
      status: 403,
      code: 'forbidden',
    },
    {
      name: 'a staff user with no role is 403 even to read',
      method: 'GET',
      url: '/vendor',
      setup: async (ctx) => {
        ctx.vars.nobody = await ctx.t.addStaff(ctx.t.tenant)
      },
      as: (ctx) => ctx.vars.nobody,
      status: 403,
      code: 'forbidden',
    },
  ])
})

describe('vendors: behaviour', () => {
  let t: TestApp
  beforeEach(async () => {
    t = await createTestApp()
  })
  afterEach(() => t.close())

  test('get, list, update and delete round trip', async () => {
    const created = (await t.request('POST', '/vendor', { body: { name: 'Acme', code: 'AC' } })).body
    expect((await t.request('GET', `/vendor/${created.id}`)).body).toEqual(created)

    const updated = await t.request('PUT', `/vendor/${created.id}`, { body: { notes: 'Net 30' } })
    expect(updated.status).toBe(200)
    expect(updated.body).toMatchObject({ id: created.id, name: 'Acme', notes: 'Net 30' })
    expect(updated.body.updatedAt >= created.updatedAt).toBe(true)

    const deleted = await t.request('DELETE', `/vendor/${created.id}`)
    expect(deleted.status).toBe(200)
    expect(deleted.body).toMatchObject({ id: created.id, notes: 'Net 30' })
    expect((await t.request('GET', `/vendor/${created.id}`)).status).toBe(404)
  })

  test('pages: total counts all matches, page and limit slice them in name order', async () => {
    for (const name of ['Cedar', 'alder', 'Birch']) await t.request('POST', '/vendor', { body: { name } })
    const first = await t.request('GET', '/vendor?limit=2')
    expect(first.body.page).toEqual({ total: 3, page: 1, limit: 2 })
    expect(first.body.vendors.map((v: { name: string }) => v.name)).toEqual(['alder', 'Birch'])
    const second = await t.request('GET', '/vendor?limit=2&page=2')
    expect(second.body.vendors.map((v: { name: string }) => v.name)).toEqual(['Cedar'])
    const beyond = await t.request('GET', '/vendor?limit=2&page=9')
    expect(beyond.body).toEqual({ vendors: [], page: { total: 3, page: 9, limit: 2 } })
  })

  test('q searches name, code and email, case-insensitively, with LIKE characters taken literally', async () => {
    await t.request('POST', '/vendor', { body: { name: 'Napa Glass', code: 'NG' } })
    await t.request('POST', '/vendor', { body: { name: 'Corks', email: 'sales@corkco.test' } })
    await t.request('POST', '/vendor', { body: { name: '100% Oak' } })
    const names = async (q: string) =>
      (await t.request('GET', `/vendor?q=${encodeURIComponent(q)}`)).body.vendors.map(
        (v: { name: string }) => v.name,
      )
    expect(await names('glass')).toEqual(['Napa Glass'])
    expect(await names('ng')).toEqual(['Napa Glass'])
    expect(await names('CORKCO')).toEqual(['Corks'])
    expect(await names('%')).toEqual(['100% Oak'])
    expect(await names('_')).toEqual([])
  })

  test("another tenant's vendor is 404 for every route, and stays unchanged", async () => {
    const other = await t.addTenant('other')
    const theirs = (
      await t.request('POST', '/vendor', { as: other.owner, tenant: other, body: { name: 'Theirs' } })
    ).body
    for (const [method, body] of [
      ['GET', undefined],
      ['PUT', { name: 'Mine now' }],
      ['DELETE', undefined],
    ] as const) {
      const res = await t.request(method, `/vendor/${theirs.id}`, { body })
      expect(res.status).toBe(404)
      expect(res.body.code).toBe('not_found')
    }
    expect((await t.request('GET', '/vendor')).body.page.total).toBe(0)
    const still = await t.request('GET', `/vendor/${theirs.id}`, { as: other.owner, tenant: other })
    expect(still.body.name).toBe('Theirs')
  })

  test("a token of one tenant's staff user gets 403 in another tenant", async () => {
    const other = await t.addTenant('other')
    const res = await t.request('GET', '/vendor', { as: t.tenant.owner, tenant: other })
    expect(res.status).toBe(403)
  })

  test('every write appends its audit entry and outbox event; refused writes append nothing', async () => {
    const created = await t.request('POST', '/vendor', {
      body: { name: 'Acme' },
      headers: {
        'x-request-id': 'req-vendor-1',
        'user-agent': 'tests',
        'x-location-id': t.tenant.locationId,
      },
    })
    await t.request('PUT', `/vendor/${created.body.id}`, { body: { name: 'Acme Co' } })
    await t.request('DELETE', `/vendor/${created.body.id}`)
    const entries = t.tenant.db.$client
      .query("SELECT * FROM audit_entries WHERE entity_type = 'vendor' ORDER BY seq")
      .all() as Record<string, unknown>[]
    expect(entries.map((e) => e.action)).toEqual(['vendor.create', 'vendor.update', 'vendor.delete'])
    expect(entries[0]).toMatchObject({
      subject: t.tenant.owner.subject,
      staff_user_id: t.tenant.owner.id,
      tenant_id: t.tenant.id,
      location_id: t.tenant.locationId,
      request_id: 'req-vendor-1',
      user_agent: 'tests',
      method: 'POST',
      route: '/vendor',
      entity_id: created.body.id,
    })
    expect(JSON.parse(entries[1]!.metadata as string)).toEqual({
      changes: { name: { from: 'Acme', to: 'Acme Co' } },
    })
    const events = t.tenant.db.$client.query('SELECT object, action FROM outbox_events ORDER BY seq').all()
    expect(events).toEqual([
      { object: 'vendor', action: 'create' },
      { object: 'vendor', action: 'update' },
      { object: 'vendor', action: 'delete' },
    ])

    const before = countRows(t.tenant.db, 'audit_entries')
    await t.request('POST', '/vendor', { body: { name: 'x', bogus: true } })
    await t.request('POST', '/vendor', { as: t.tenant.readOnly, body: { name: 'x' } })
    await t.request('PUT', '/vendor/missing', { body: { name: 'x' } })
    expect(countRows(t.tenant.db, 'audit_entries')).toBe(before)
    expect(countRows(t.tenant.db, 'vendors')).toBe(0)
  })
})
