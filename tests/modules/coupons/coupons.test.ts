// /coupon and /coupons: one implementation mounted twice. CRUD, code uniqueness, discount,
// date, usage, applies-to and availability rules, paging, permissions, tenant isolation, audit.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { countRows, createTestApp, runScenarios, type ScenarioContext, type TestApp } from '../../harness'

const tenPercent = {
  title: 'Ten percent off',
  code: 'TENOFF',
  productDiscountType: 'Percentage Off',
  productDiscount: 1000,
}

const createCoupon = async (ctx: ScenarioContext, body: Record<string, unknown> = tenPercent) => {
  const res = await ctx.t.request('POST', '/coupon', { body })
  expect(res.status).toBe(201)
  ctx.vars.couponId = res.body.id
  return res.body
}

/** A product, a collection, a customer and a club of a tenant, for coupons to name. */
async function records(t: TestApp, tenant = t.tenant) {
  const post = async (url: string, body: Record<string, unknown>) => {
    const res = await t.request('POST', url, { as: tenant.owner, tenant, body })
    expect(res.status).toBe(201)
    return res.body.id as string
  }
  const productId = await post('/product', {
    title: 'Cabernet',
    type: 'Wine',
    variants: [{ title: 'Bottle', sku: `CAB-${tenant.slug}`, price: 4000 }],
  })
  return {
    productId,
    collectionId: await post('/collection', { title: 'Reds' }),
    customerId: await post('/customers', { firstName: 'Ann', lastName: 'Lee', email: 'ann@example.test' }),
    clubId: await post('/clubs', { title: 'Allocation', slug: 'allocation' }),
  }
}

const refused = (name: string, body: Record<string, unknown>, path?: string) => ({
  name,
  method: 'POST',
  url: '/coupon',
  body: { title: 'x', ...body },
  status: 400,
  code: 'validation_failed',
  check: (res: { body: { errors: { path: string }[] } }, ctx: ScenarioContext) => {
    if (path) expect(res.body.errors.map((e) => e.path)).toContain(path)
    expect(countRows(ctx.t.tenant.db, 'coupons')).toBe(0)
  },
})

describe('coupons: scenarios', () => {
  runScenarios([
    {
      name: 'create with only a title: defaults and a generated code',
      method: 'POST',
      url: '/coupon',
      body: { title: 'Welcome' },
      status: 201,
      expectBody: {
        title: 'Welcome',
        status: 'Enabled',
        usageLimitType: 'Unlimited',
        usageLimit: null,
        appliesTo: 'Store',
        appliesToObjectIds: [],
        productDiscountType: 'No Discount',
        productDiscount: null,
        shippingDiscountType: 'No Discount',
        availableTo: 'Everyone',
        combinability: 'combinable',
        requiresManagerApproval: false,
        excludesServiceCharges: true,
        serviceChargeInteraction: 'pre_discount',
        maxDiscountAmount: null,
        promotionSets: [],
        startDate: null,
        endDate: null,
      },
      check: (res) => expect(res.body.code).toMatch(/^[ABCDEFGHJKMNPQRSTUVWXYZ2-9]{8}$/),
    },
    {
      name: 'create with every field',
      method: 'POST',
      url: '/coupons',
      setup: async (ctx) => {
        ctx.vars.refs = await records(ctx.t)
      },
      body: (ctx: ScenarioContext) => ({
        title: 'Club summer',
        code: 'SUMMER-25',
        actionMessage: 'Summer savings applied',
        usageLimitType: 'Per Customer',
        usageLimit: 2,
        appliesTo: 'Collection',
        appliesToObjectIds: [ctx.vars.refs.collectionId],
        productDiscountType: 'Dollar Off',
        productDiscount: 500,
        shippingDiscountType: 'Free',
        shippingDiscount: null,
        startDate: '2025-06-01',
        endDate: '2025-08-31',
        status: 'Disabled',
        minimumCartAmount: 5000,
        availableTo: 'Club',
        availableToObjectIds: [ctx.vars.refs.clubId],
        combinability: 'exclusive',
        requiresManagerApproval: true,
        excludesServiceCharges: false,
        serviceChargeInteraction: 'post_discount',
        maxDiscountAmount: 2500,
        promotionSets: [{ name: 'summer', tier: 1 }],
      }),
      status: 201,
      expectBody: {
        code: 'SUMMER-25',
        shippingDiscountType: 'Free',
        maxDiscountAmount: 2500,
        promotionSets: [{ name: 'summer', tier: 1 }],
      },
    },
    {
      name: 'create without title is 400',
      method: 'POST',
      url: '/coupon',
      body: { code: 'X' },
      status: 400,
      code: 'validation_failed',
    },
    refused('an unknown field is 400', { colour: 'red' }, 'body/colour'),
    refused('a code with spaces is 400', { code: 'TEN OFF' }),
    refused(
      'a percentage above 100% (10000 bps) is 400',
      { productDiscountType: 'Percentage Off', productDiscount: 10_001 },
      'body/productDiscount',
    ),
    refused(
      'a shipping percentage above 100% is 400',
      { shippingDiscountType: 'Percentage Off', shippingDiscount: 12_000 },
      'body/shippingDiscount',
    ),
    refused(
      'Percentage Off without a value is 400',
      { productDiscountType: 'Percentage Off' },
      'body/productDiscount',
    ),
    refused(
      'Percentage Off of 0 is 400',
      { productDiscountType: 'Percentage Off', productDiscount: 0 },
      'body/productDiscount',
    ),
    refused(
      'Dollar Off without an amount is 400',
      { productDiscountType: 'Dollar Off' },
      'body/productDiscount',
    ),
    refused('a fractional Dollar Off is 400', { productDiscountType: 'Dollar Off', productDiscount: 4.5 }),
    refused('a negative discount is 400', { productDiscountType: 'Set Price', productDiscount: -1 }),
    refused(
      'Free with a value is 400',
      { productDiscountType: 'Free', productDiscount: 100 },
      'body/productDiscount',
    ),
    refused('No Discount with a value is 400', { productDiscount: 100 }, 'body/productDiscount'),
    refused('an unknown discount type is 400', { productDiscountType: 'Buy One Get One' }),
    refused(
      'startDate after endDate is 400',
      { startDate: '2025-09-01', endDate: '2025-08-31' },
      'body/endDate',
    ),
    refused('a non-calendar startDate is 400', { startDate: '2025-02-30' }, 'body/startDate'),
    refused(
      'a Product coupon without product ids is 400',
      { appliesTo: 'Product' },
      'body/appliesToObjectIds',
    ),
    refused('a Store coupon with ids is 400', { appliesToObjectIds: ['p1'] }, 'body/appliesToObjectIds'),
    refused('a Total limit without usageLimit is 400', { usageLimitType: 'Total' }, 'body/usageLimit'),
    refused('an Unlimited coupon with a usageLimit is 400', { usageLimit: 5 }, 'body/usageLimit'),
    refused('a usageLimit of 0 is 400', { usageLimitType: 'Total', usageLimit: 0 }),
    refused(
      'availability to a Club without club ids is 400',
      { availableTo: 'Club' },
      'body/availableToObjectIds',
    ),
    refused(
      'availability to Everyone with ids is 400',
      { availableToObjectIds: ['c1'] },
      'body/availableToObjectIds',
    ),
    refused(
      'Customer Tag availability naming a non-tag is 400',
      { availableTo: 'Customer Tag', availableToObjectIds: ['nope'] },
      'body/availableToObjectIds/0',
    ),
    refused('a maxDiscountAmount of 0 is 400', { maxDiscountAmount: 0 }),
    refused('a negative minimumCartAmount is 400', { minimumCartAmount: -100 }),
    refused('an unknown combinability is 400', { combinability: 'stackable' }),
    ...(
      [
        ['appliesTo', 'Product', 'productId'],
        ['appliesTo', 'Collection', 'collectionId'],
        ['availableTo', 'Customer', 'customerId'],
        ['availableTo', 'Club', 'clubId'],
      ] as const
    ).flatMap(([field, type, ref]) => [
      {
        name: `${field} ${type} naming a ${type.toLowerCase()} of the tenant is accepted`,
        method: 'POST',
        url: '/coupon',
        setup: async (ctx: ScenarioContext) => {
          ctx.vars.refs = await records(ctx.t)
        },
        body: (ctx: ScenarioContext) => ({
          title: 'x',
          [field]: type,
          [`${field}ObjectIds`]: [ctx.vars.refs[ref]],
        }),
        status: 201,
        check: (res: { body: any }, ctx: ScenarioContext) =>
          expect(res.body[`${field}ObjectIds`]).toEqual([ctx.vars.refs[ref]]),
      },
      {
        name: `${field} ${type} naming unknown ids is 400 naming each and writes nothing`,
        method: 'POST',
        url: '/coupon',
        setup: async (ctx: ScenarioContext) => {
          ctx.vars.refs = await records(ctx.t)
        },
        body: (ctx: ScenarioContext) => ({
          title: 'x',
          [field]: type,
          [`${field}ObjectIds`]: ['nope-1', ctx.vars.refs[ref], 'nope-2'],
        }),
        status: 400,
        code: 'validation_failed',
        check: (res: { body: any }, ctx: ScenarioContext) => {
          expect(res.body.errors).toEqual([
            { path: `body/${field}ObjectIds/0`, message: expect.stringContaining('nope-1') },
            { path: `body/${field}ObjectIds/2`, message: expect.stringContaining('nope-2') },
          ])
          expect(countRows(ctx.t.tenant.db, 'coupons')).toBe(0)
        },
      },
      {
        name: `${field} ${type} naming another tenant's ${type.toLowerCase()} is 400`,
        method: 'POST',
        url: '/coupon',
        setup: async (ctx: ScenarioContext) => {
          ctx.vars.refs = await records(ctx.t, await ctx.t.addTenant('other'))
        },
        body: (ctx: ScenarioContext) => ({
          title: 'x',
          [field]: type,
          [`${field}ObjectIds`]: [ctx.vars.refs[ref]],
        }),
        status: 400,
        code: 'validation_failed',
        check: (res: { body: any }) => expect(res.body.errors[0].path).toBe(`body/${field}ObjectIds/0`),
      },
    ]),
    {
      name: 'a Product coupon naming a collection id is 400 (ids are checked against the appliesTo type)',
      method: 'POST',
      url: '/coupon',
      setup: async (ctx) => {
        ctx.vars.refs = await records(ctx.t)
      },
      body: (ctx: ScenarioContext) => ({
        title: 'x',
        appliesTo: 'Product',
        appliesToObjectIds: [ctx.vars.refs.collectionId],
      }),
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'update switching to Club with a customer id is 400 and changes nothing',
      method: 'PUT',
      url: (ctx) => `/coupon/${ctx.vars.couponId}`,
      setup: async (ctx) => {
        ctx.vars.refs = await records(ctx.t)
        await createCoupon(ctx, {
          title: 'x',
          availableTo: 'Customer',
          availableToObjectIds: [ctx.vars.refs.customerId],
        })
      },
      body: { availableTo: 'Club' },
      status: 400,
      code: 'validation_failed',
      check: async (_res, ctx) =>
        expect((await ctx.t.request('GET', `/coupon/${ctx.vars.couponId}`)).body.availableTo).toBe(
          'Customer',
        ),
    },
    {
      name: 'read_only may not create a coupon naming products (403)',
      method: 'POST',
      url: '/coupon',
      setup: async (ctx) => {
        ctx.vars.refs = await records(ctx.t)
      },
      as: (ctx) => ctx.t.tenant.readOnly,
      body: (ctx: ScenarioContext) => ({
        title: 'x',
        appliesTo: 'Product',
        appliesToObjectIds: [ctx.vars.refs.productId],
      }),
      status: 403,
    },
    {
      name: 'Customer Tag availability with a customer tag is accepted',
      method: 'POST',
      url: '/coupon',
      setup: async (ctx) => {
        ctx.vars.tagId = (await ctx.t.request('POST', '/tag/customer', { body: { title: 'VIP' } })).body.id
        ctx.vars.orderTagId = (await ctx.t.request('POST', '/tag/order', { body: { title: 'Rush' } })).body.id
      },
      body: (ctx: ScenarioContext) => ({
        title: 'VIP',
        availableTo: 'Customer Tag',
        availableToObjectIds: [ctx.vars.tagId],
      }),
      status: 201,
    },
    {
      name: 'Customer Tag availability with an order tag is 400',
      method: 'POST',
      url: '/coupon',
      setup: async (ctx) => {
        ctx.vars.orderTagId = (await ctx.t.request('POST', '/tag/order', { body: { title: 'Rush' } })).body.id
      },
      body: (ctx: ScenarioContext) => ({
        title: 'x',
        availableTo: 'Customer Tag',
        availableToObjectIds: [ctx.vars.orderTagId],
      }),
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'a duplicate code is 409, case-insensitively, across both paths',
      method: 'POST',
      url: '/coupons',
      setup: (ctx) => createCoupon(ctx).then(() => {}),
      body: { title: 'Again', code: 'tenoff' },
      status: 409,
      code: 'conflict',
      check: (res, ctx) => expect(res.body.existingCouponId).toBe(ctx.vars.couponId),
    },
    {
      name: 'update is partial',
      method: 'PUT',
      url: (ctx) => `/coupon/${ctx.vars.couponId}`,
      setup: (ctx) => createCoupon(ctx).then(() => {}),
      body: { productDiscount: 1500 },
      status: 200,
      expectBody: { ...tenPercent, productDiscount: 1500 },
    },
    {
      name: 'update validates the merged coupon: a new type needs its value',
      method: 'PUT',
      url: (ctx) => `/coupon/${ctx.vars.couponId}`,
      setup: (ctx) => createCoupon(ctx).then(() => {}),
      body: { productDiscountType: 'Free' },
      status: 400,
      code: 'validation_failed',
      check: async (_res, ctx) => {
        expect((await ctx.t.request('GET', `/coupon/${ctx.vars.couponId}`)).body.productDiscountType).toBe(
          'Percentage Off',
        )
      },
    },
    {
      name: 'update with a type and its value together is fine',
      method: 'PUT',
      url: (ctx) => `/coupons/${ctx.vars.couponId}`,
      setup: (ctx) => createCoupon(ctx).then(() => {}),
      body: { productDiscountType: 'Free', productDiscount: null },
      status: 200,
      expectBody: { productDiscountType: 'Free', productDiscount: null },
    },
    {
      name: 'update of endDate before the existing startDate is 400',
      method: 'PUT',
      url: (ctx) => `/coupon/${ctx.vars.couponId}`,
      setup: (ctx) => createCoupon(ctx, { ...tenPercent, startDate: '2025-06-01' }).then(() => {}),
      body: { endDate: '2025-05-31' },
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'update to a code another coupon holds is 409; keeping its own code is fine',
      method: 'PUT',
      url: (ctx) => `/coupon/${ctx.vars.couponId}`,
      setup: async (ctx) => {
        await createCoupon(ctx, { title: 'Other', code: 'OTHER' })
        await createCoupon(ctx)
      },
      body: { code: 'other' },
      status: 409,
      code: 'conflict',
    },
    {
      name: 'update to its own code in another case is fine',
      method: 'PUT',
      url: (ctx) => `/coupon/${ctx.vars.couponId}`,
      setup: (ctx) => createCoupon(ctx).then(() => {}),
      body: { code: 'TenOff' },
      status: 200,
      expectBody: { code: 'TenOff' },
    },
    { name: 'an unknown id is 404', method: 'GET', url: '/coupons/nope', status: 404, code: 'not_found' },
    {
      name: 'update of an unknown id is 404',
      method: 'PUT',
      url: '/coupon/nope',
      body: { title: 'x' },
      status: 404,
      code: 'not_found',
    },
    {
      name: 'delete of an unknown id is 404',
      method: 'DELETE',
      url: '/coupons/nope',
      status: 404,
      code: 'not_found',
    },
    {
      name: 'limit 101 is 400',
      method: 'GET',
      url: '/coupons?limit=101',
      status: 400,
      code: 'validation_failed',
    },
    { name: 'page 0 is 400', method: 'GET', url: '/coupon?page=0', status: 400, code: 'validation_failed' },
    {
      name: 'read_only may list',
      method: 'GET',
      url: '/coupons',
      as: (ctx) => ctx.t.tenant.readOnly,
      status: 200,
      expectBody: { coupons: [], total: 0 },
    },
    {
      name: 'staff may not create coupons (403 without coupons:write)',
      method: 'POST',
      url: '/coupons',
      as: (ctx) => ctx.t.tenant.staff,
      body: tenPercent,
      status: 403,
      code: 'forbidden',
      check: (res, ctx) => {
        expect(res.body.requiredPermission).toBe('coupons:write')
        expect(countRows(ctx.t.tenant.db, 'coupons')).toBe(0)
      },
    },
    {
      name: 'no token is 401',
      method: 'GET',
      url: '/coupon',
      as: () => null,
      status: 401,
      code: 'unauthenticated',
    },
  ])
})

describe('coupons: behaviour', () => {
  let t: TestApp
  beforeEach(async () => {
    t = await createTestApp()
  })
  afterEach(() => t.close())

  test('a customer merge makes coupons name the primary; a merged-away id is stored as the primary', async () => {
    const { customerId: primary } = await records(t)
    const source = (
      await t.request('POST', '/customers', {
        body: { firstName: 'Bo', lastName: 'Ng', email: 'bo@example.test' },
      })
    ).body.id
    const both = (
      await t.request('POST', '/coupon', {
        body: { title: 'Both', availableTo: 'Customer', availableToObjectIds: [primary, source] },
      })
    ).body
    const onlySource = (
      await t.request('POST', '/coupon', {
        body: { title: 'Source', availableTo: 'Customer', availableToObjectIds: [source] },
      })
    ).body
    const merged = await t.request('POST', '/customers/merge', {
      body: { primaryCustomerId: primary, sourceCustomerIds: [source], confirmation: 'MERGE' },
    })
    expect(merged.status).toBe(200)
    expect((await t.request('GET', `/coupon/${both.id}`)).body.availableToObjectIds).toEqual([primary])
    expect((await t.request('GET', `/coupon/${onlySource.id}`)).body.availableToObjectIds).toEqual([primary])
    const viaAlias = await t.request('POST', '/coupon', {
      body: { title: 'Alias', availableTo: 'Customer', availableToObjectIds: [source] },
    })
    expect(viaAlias.body.availableToObjectIds).toEqual([primary])
  })

  test('ids stored earlier are not re-checked by an update that does not touch them', async () => {
    const { productId } = await records(t)
    const coupon = (
      await t.request('POST', '/coupon', {
        body: { title: 'Cab', appliesTo: 'Product', appliesToObjectIds: [productId] },
      })
    ).body
    expect((await t.request('DELETE', `/product/${productId}`)).status).toBe(204)
    const renamed = await t.request('PUT', `/coupon/${coupon.id}`, { body: { title: 'Renamed' } })
    expect(renamed.status).toBe(200)
    const resent = await t.request('PUT', `/coupon/${coupon.id}`, {
      body: { appliesToObjectIds: [productId] },
    })
    expect(resent.status).toBe(400)
  })

  test('the singular and plural paths are one collection', async () => {
    const created = (await t.request('POST', '/coupon', { body: tenPercent })).body
    const singular = await t.request('GET', `/coupon/${created.id}`)
    const plural = await t.request('GET', `/coupons/${created.id}`)
    expect(plural.body).toEqual(singular.body)
    expect((await t.request('GET', '/coupons')).body).toEqual((await t.request('GET', '/coupon')).body)
    const updated = await t.request('PUT', `/coupons/${created.id}`, { body: { title: 'Renamed' } })
    expect((await t.request('GET', `/coupon/${created.id}`)).body).toEqual(updated.body)
    const deleted = await t.request('DELETE', `/coupons/${created.id}`)
    expect(deleted.status).toBe(204)
    expect(deleted.text).toBe('')
    expect((await t.request('GET', `/coupon/${created.id}`)).status).toBe(404)
  })

  test('lists in code order with total, paging, q over code and title, and status', async () => {
    for (const [code, title, status] of [
      ['WELCOME', 'New guests', 'Enabled'],
      ['club10', 'Club members', 'Enabled'],
      ['BDAY', 'Birthday treat', 'Disabled'],
    ] as const)
      await t.request('POST', '/coupons', { body: { code, title, status } })
    const codes = async (qs: string) =>
      (await t.request('GET', `/coupon${qs}`)).body.coupons.map((c: { code: string }) => c.code)
    expect(await codes('')).toEqual(['BDAY', 'club10', 'WELCOME'])
    expect(await codes('?q=CLUB')).toEqual(['club10'])
    expect(await codes('?q=treat')).toEqual(['BDAY'])
    expect(await codes('?status=Enabled')).toEqual(['club10', 'WELCOME'])
    const page = await t.request('GET', '/coupons?limit=2&page=2')
    expect(page.body.total).toBe(3)
    expect(page.body.coupons.map((c: { code: string }) => c.code)).toEqual(['WELCOME'])
  })

  test("another tenant's coupon is 404 on both paths; its code is free here", async () => {
    const other = await t.addTenant('other')
    const theirs = (await t.request('POST', '/coupon', { as: other.owner, tenant: other, body: tenPercent }))
      .body
    for (const path of ['/coupon', '/coupons'])
      for (const [method, body] of [
        ['GET', undefined],
        ['PUT', { title: 'mine' }],
        ['DELETE', undefined],
      ] as const)
        expect((await t.request(method, `${path}/${theirs.id}`, { body })).status).toBe(404)
    expect((await t.request('POST', '/coupon', { body: tenPercent })).status).toBe(201)
    expect(
      (await t.request('GET', `/coupon/${theirs.id}`, { as: other.owner, tenant: other })).body.title,
    ).toBe(tenPercent.title)
  })

  test('writes append audit entries and events; refused writes append nothing', async () => {
    const created = (await t.request('POST', '/coupons', { body: tenPercent })).body
    await t.request('PUT', `/coupon/${created.id}`, { body: { productDiscount: 2000 } })
    await t.request('PUT', `/coupon/${created.id}`, { body: { productDiscount: 2000 } })
    await t.request('DELETE', `/coupons/${created.id}`)
    const entries = t.tenant.db.$client
      .query("SELECT action, metadata, route FROM audit_entries WHERE entity_type = 'coupon' ORDER BY seq")
      .all() as { action: string; metadata: string; route: string }[]
    expect(entries.map((e) => e.action)).toEqual(['coupon.create', 'coupon.update', 'coupon.delete'])
    expect(entries.map((e) => e.route)).toEqual(['/coupons', '/coupon/:id', '/coupons/:id'])
    expect(JSON.parse(entries[1]!.metadata)).toEqual({
      changes: { productDiscount: { from: 1000, to: 2000 } },
    })
    const events = t.tenant.db.$client
      .query("SELECT action FROM outbox_events WHERE object = 'coupon' ORDER BY seq")
      .all()
    expect(events).toEqual([{ action: 'create' }, { action: 'update' }, { action: 'delete' }])

    const before = countRows(t.tenant.db, 'audit_entries')
    await t.request('POST', '/coupon', {
      body: { title: 'x', productDiscountType: 'Percentage Off', productDiscount: 20_000 },
    })
    await t.request('POST', '/coupon', { as: t.tenant.readOnly, body: { title: 'x' } })
    expect(countRows(t.tenant.db, 'audit_entries')).toBe(before)
    expect(countRows(t.tenant.db, 'coupons')).toBe(0)
  })

  test('concurrent creates of one code: exactly one wins', async () => {
    const results = await Promise.all(
      ['RACE', 'race', 'Race', 'rAce'].map((code, i) =>
        t.request('POST', i % 2 ? '/coupon' : '/coupons', { body: { title: `t${i}`, code } }),
      ),
    )
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409])
    expect(countRows(t.tenant.db, 'coupons')).toBe(1)
  })

  test('the database itself refuses a code differing only in case', async () => {
    await t.request('POST', '/coupon', { body: tenPercent })
    const db = t.tenant.db.$client
    const row = db.query('SELECT * FROM coupons').get() as Record<string, unknown>
    const columns = Object.keys(row)
    const values = columns.map((c) =>
      c === 'id' ? 'other-id' : c === 'code' ? 'tenOFF' : row[c],
    ) as string[]
    expect(() =>
      db
        .query(`INSERT INTO coupons (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`)
        .run(...values),
    ).toThrow(/UNIQUE/)
  })
})
