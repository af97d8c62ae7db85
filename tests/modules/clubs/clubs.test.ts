// Clubs at /club and /clubs: one implementation mounted twice.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { countRows, createTestApp, runScenarios, type ScenarioContext, type TestApp } from '../../harness'
import { auditActions, events, makeClub, makeCustomer } from '../customers/helpers'

const setupClub = async (ctx: ScenarioContext, body: Record<string, unknown> = {}) => {
  ctx.vars.club = await makeClub(ctx.t, body)
}

describe('clubs: scenarios', () => {
  runScenarios([
    {
      name: 'create answers 201 with defaults',
      method: 'POST',
      url: '/club',
      body: { title: 'Reserve Club', slug: 'reserve' },
      status: 201,
      expectBody: {
        title: 'Reserve Club',
        slug: 'reserve',
        type: 'Traditional',
        webStatus: 'Available',
        adminStatus: 'Available',
        seo: { title: null, description: null },
        cadence: { unit: 'month', count: 3 },
        content: null,
        publishDate: null,
      },
    },
    {
      name: 'create with every field',
      method: 'POST',
      url: '/clubs',
      body: {
        title: 'Cellar Subscription',
        slug: 'cellar-sub',
        type: 'Subscription',
        content: '<p>Six bottles</p>',
        publishDate: '2025-03-01T08:00:00.000Z',
        seo: { title: 'Cellar', description: 'Our monthly six' },
        webStatus: 'Not Available',
        adminStatus: 'Available',
        cadence: { unit: 'month', count: 1 },
      },
      status: 201,
      expectBody: {
        type: 'Subscription',
        seo: { title: 'Cellar', description: 'Our monthly six' },
        cadence: { unit: 'month', count: 1 },
      },
    },
    ...[
      ['without title', { slug: 'x' }],
      ['without slug', { title: 'x' }],
      ['with an upper-case slug', { title: 'x', slug: 'Reserve' }],
      ['with a spaced slug', { title: 'x', slug: 'reserve club' }],
      ['with an unknown type', { title: 'x', slug: 'x', type: 'Wine' }],
      ['with an unknown web status', { title: 'x', slug: 'x', webStatus: 'Hidden' }],
      ['with a zero cadence', { title: 'x', slug: 'x', cadence: { unit: 'month', count: 0 } }],
      ['with a fortnight cadence unit', { title: 'x', slug: 'x', cadence: { unit: 'fortnight', count: 1 } }],
      ['with an unknown seo field', { title: 'x', slug: 'x', seo: { keywords: 'wine' } }],
      ['with a bad publish date', { title: 'x', slug: 'x', publishDate: 'soon' }],
      ['with an unknown field', { title: 'x', slug: 'x', price: 100 }],
    ].map(([name, body]) => ({
      name: `create ${name} is 400 and writes nothing`,
      method: 'POST',
      url: '/club',
      body,
      status: 400,
      code: 'validation_failed',
      check: (_res: unknown, ctx: ScenarioContext) => expect(countRows(ctx.t.tenant.db, 'clubs')).toBe(0),
    })),
    {
      name: 'a duplicate slug is 409',
      method: 'POST',
      url: '/clubs',
      setup: (ctx) => setupClub(ctx, { slug: 'reserve' }),
      body: { title: 'Other', slug: 'reserve' },
      status: 409,
      code: 'conflict',
    },
    {
      name: 'update is partial; seo members change one by one',
      method: 'PUT',
      url: (ctx) => `/clubs/${ctx.vars.club.id}`,
      setup: (ctx) => setupClub(ctx, { seo: { title: 'T', description: 'D' }, content: 'C' }),
      body: { seo: { description: null }, adminStatus: 'Not Available' },
      status: 200,
      expectBody: { seo: { title: 'T', description: null }, content: 'C', adminStatus: 'Not Available' },
    },
    {
      name: 'update to a taken slug is 409',
      method: 'PUT',
      url: (ctx) => `/club/${ctx.vars.club.id}`,
      setup: async (ctx) => {
        await makeClub(ctx.t, { slug: 'taken' })
        await setupClub(ctx)
      },
      body: { slug: 'taken' },
      status: 409,
      code: 'conflict',
    },
    { name: 'an unknown id is 404', method: 'GET', url: '/club/nope', status: 404, code: 'not_found' },
    {
      name: 'delete of an unknown id is 404',
      method: 'DELETE',
      url: '/clubs/nope',
      status: 404,
      code: 'not_found',
    },
    {
      name: 'limit 101 is 400',
      method: 'GET',
      url: '/clubs?limit=101',
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'read_only may list',
      method: 'GET',
      url: '/club',
      as: (ctx) => ctx.t.tenant.readOnly,
      status: 200,
      expectBody: { clubs: [], total: 0 },
    },
    {
      name: 'read_only may not create (403 without clubs:write)',
      method: 'POST',
      url: '/clubs',
      as: (ctx) => ctx.t.tenant.readOnly,
      body: { title: 'x', slug: 'x' },
      status: 403,
      code: 'forbidden',
      check: (res) => expect(res.body.requiredPermission).toBe('clubs:write'),
    },
    {
      name: 'no token is 401',
      method: 'GET',
      url: '/clubs',
      as: () => null,
      status: 401,
      code: 'unauthenticated',
    },
  ])
})

describe('clubs: behaviour', () => {
  let t: TestApp
  beforeEach(async () => {
    t = await createTestApp()
  })
  afterEach(() => t.close())

  test('/club and /clubs serve the same records', async () => {
    const club = await makeClub(t, { title: 'Reserve' })
    expect((await t.request('GET', '/club')).body).toEqual({ clubs: [club], total: 1 })
    expect((await t.request('GET', '/clubs')).body).toEqual({ clubs: [club], total: 1 })
    const updated = await t.request('PUT', `/club/${club.id}`, { body: { title: 'Reserve Plus' } })
    expect((await t.request('GET', `/clubs/${club.id}`)).body).toEqual(updated.body)
    const deleted = await t.request('DELETE', `/clubs/${club.id}`)
    expect(deleted.body).toEqual(updated.body)
    expect((await t.request('GET', `/club/${club.id}`)).status).toBe(404)
    expect(auditActions(t, 'club')).toEqual(['club.create', 'club.update', 'club.delete'])
    expect(events(t, 'club').map((e) => e.action)).toEqual(['create', 'update', 'delete'])
  })

  test('q searches title and slug; pages slice by title', async () => {
    for (const [title, slug] of [
      ['Zinfandel Lovers', 'zin'],
      ['allocation', 'alloc'],
      ['Bubbles', 'sparkling-club'],
    ])
      await makeClub(t, { title, slug })
    const titles = async (path: string) => (await t.request('GET', path)).body.clubs.map((c: any) => c.title)
    expect(await titles('/clubs?q=zin')).toEqual(['Zinfandel Lovers'])
    expect(await titles('/clubs?q=SPARKLING')).toEqual(['Bubbles'])
    expect(await titles('/club?limit=2')).toEqual(['allocation', 'Bubbles'])
    const second = await t.request('GET', '/club?limit=2&page=2')
    expect(second.body).toMatchObject({ total: 3, clubs: [{ title: 'Zinfandel Lovers' }] })
  })

  test('a club with memberships cannot be deleted', async () => {
    const club = await makeClub(t)
    const customer = await makeCustomer(t)
    await t.request('POST', '/club-membership', {
      body: { customerId: customer.id, clubId: club.id, orderDeliveryMethod: 'Pickup' },
    })
    const res = await t.request('DELETE', `/club/${club.id}`)
    expect(res.status).toBe(409)
    expect((await t.request('GET', `/club/${club.id}`)).status).toBe(200)
  })

  test("another tenant's club is 404 on every route", async () => {
    const other = await t.addTenant('other')
    const theirs = await makeClub(t, {}, other)
    for (const [method, body] of [
      ['GET', undefined],
      ['PUT', { title: 'Mine' }],
      ['DELETE', undefined],
    ] as const) {
      expect((await t.request(method, `/club/${theirs.id}`, { body })).status).toBe(404)
      expect((await t.request(method, `/clubs/${theirs.id}`, { body })).status).toBe(404)
    }
    expect((await t.request('GET', `/clubs/${theirs.id}`, { as: other.owner, tenant: other })).body).toEqual(
      theirs,
    )
    // Slugs are per tenant.
    expect((await t.request('POST', '/clubs', { body: { title: 'Same', slug: theirs.slug } })).status).toBe(
      201,
    )
  })
})
