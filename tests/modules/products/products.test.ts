// Products: the vendors-pattern tests (happy path, validation, paging, 403, tenant isolation,
// audit and events) plus the product-level rules. Variants, SKUs, inventory and bundles are in
// variants.test.ts; the updatedAt filter in updated-at-filter.test.ts.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { countRows, createTestApp, runScenarios, type ScenarioContext, type TestApp } from '../../harness'
import { createProduct, createProductIn, wine } from './fixtures'

describe('products: scenarios', () => {
  runScenarios([
    {
      name: 'create answers 201 with the product, its defaults and variant defaults of a Wine',
      method: 'POST',
      url: '/product',
      body: {
        title: 'Château Margaux 2015',
        type: 'Wine',
        variants: [{ title: '750ml', sku: 'CM-2015', price: 89_900, volumeInML: 750, bottleDeposit: 10 }],
      },
      status: 201,
      expectBody: {
        title: 'Château Margaux 2015',
        type: 'Wine',
        slug: 'chateau-margaux-2015',
        webStatus: 'Available',
        adminStatus: 'Available',
        metaData: {},
        images: [],
        bundleItems: [],
        security: { availableTo: 'Everyone' },
        variants: [
          {
            title: '750ml',
            sku: 'CM-2015',
            price: 89_900,
            volumeInML: 750,
            bottleDeposit: 10,
            sortOrder: 0,
            taxType: 'wine',
            hasShipping: true,
            hasInventory: true,
            inventoryPolicy: "Don't Sell",
            inventory: [],
          },
        ],
        inventory: [],
      },
    },
    {
      name: 'a Food product defaults to the food tax and no shipping or inventory',
      method: 'POST',
      url: '/product',
      body: { title: 'Cheese board', type: 'Food', variants: [{ title: 'Board', sku: 'CB', price: 1800 }] },
      status: 201,
      expectBody: { variants: [{ taxType: 'food', hasShipping: false, hasInventory: false }] },
    },
    {
      name: 'a Gift Card defaults to no tax',
      method: 'POST',
      url: '/product',
      body: { title: 'Gift card', type: 'Gift Card', variants: [{ title: '$50', sku: 'GC50', price: 5000 }] },
      status: 201,
      expectBody: { variants: [{ taxType: 'none' }] },
    },
    {
      name: 'every optional field is stored as sent',
      method: 'POST',
      url: '/product',
      body: {
        title: 'Logo cap',
        type: 'General Merchandise',
        subTitle: 'Navy',
        image: 'https://img.test/cap.png',
        departmentId: 'merch',
        teaser: 'A cap',
        content: '<p>Cotton</p>',
        webStatus: 'Not Available',
        adminStatus: 'Available',
        slug: 'logo-cap',
        metaData: { colour: 'navy', sizes: ['S', 'M'] },
        productTemplateId: 'tpl-1',
        images: [{ src: 'https://img.test/cap-1.png' }, { src: 'https://img.test/cap-2.png', sortOrder: 5 }],
        security: { availableTo: 'Club Members Only' },
        variants: [
          {
            title: 'One size',
            sku: 'CAP-1',
            price: 2500,
            costOfGood: 800,
            comparePrice: 3000,
            upcCode: '0123456789012',
            weight: 0.4,
            taxType: 'generalMerchandise',
            inventoryPolicy: 'Back Order',
          },
        ],
      },
      status: 201,
      expectBody: {
        subTitle: 'Navy',
        departmentId: 'merch',
        webStatus: 'Not Available',
        slug: 'logo-cap',
        metaData: { colour: 'navy', sizes: ['S', 'M'] },
        productTemplateId: 'tpl-1',
        security: { availableTo: 'Club Members Only' },
        variants: [{ costOfGood: 800, comparePrice: 3000, weight: 0.4, inventoryPolicy: 'Back Order' }],
      },
      check: (res) => {
        expect(res.body.images).toHaveLength(2)
        expect(res.body.images[0]).toMatchObject({ src: 'https://img.test/cap-1.png', sortOrder: 0 })
        expect(res.body.images[1]).toMatchObject({ sortOrder: 5 })
        expect(res.body.images[0].id).not.toBe(res.body.images[1].id)
      },
    },
    ...(
      [
        ['without title', { type: 'Wine', variants: [{ title: 'a', sku: 'a', price: 1 }] }, 'body/title'],
        ['without type', { title: 'x', variants: [{ title: 'a', sku: 'a', price: 1 }] }, 'body/type'],
        ['without variants', { title: 'x', type: 'Wine' }, 'body/variants'],
        ['with no variants', { title: 'x', type: 'Wine', variants: [] }, 'body/variants'],
        ['with an unknown type', { ...wine(), type: 'Spaceship' }, 'body/type'],
        [
          'with a variant without sku',
          { ...wine(), variants: [{ title: 'a', price: 1 }] },
          'body/variants/0/sku',
        ],
        [
          'with a variant without price',
          { ...wine(), variants: [{ title: 'a', sku: 'a' }] },
          'body/variants/0/price',
        ],
        [
          'with a fractional price',
          { ...wine(), variants: [{ title: 'a', sku: 'a', price: 12.5 }] },
          'body/variants/0/price',
        ],
        [
          'with a negative price',
          { ...wine(), variants: [{ title: 'a', sku: 'a', price: -1 }] },
          'body/variants/0/price',
        ],
        [
          'with a price as a string',
          { ...wine(), variants: [{ title: 'a', sku: 'a', price: '45.00' }] },
          'body/variants/0/price',
        ],
        [
          'with an unknown variant field',
          { ...wine(), variants: [{ title: 'a', sku: 'a', price: 1, colour: 1 }] },
          'body/variants/0/colour',
        ],
        [
          'with an unknown taxType',
          { ...wine(), variants: [{ title: 'a', sku: 'a', price: 1, taxType: 'luxury' }] },
          'body/variants/0/taxType',
        ],
        ['with an unknown field', { ...wine(), colour: 'red' }, 'body/colour'],
        ['with a bad slug', { ...wine(), slug: 'Not A Slug' }, 'body/slug'],
        ['with a bad image url', { ...wine(), images: [{ src: 'not a url' }] }, 'body/images/0/src'],
        ['with an unknown webStatus', { ...wine(), webStatus: 'Hidden' }, 'body/webStatus'],
        [
          'with an unknown availableTo',
          { ...wine(), security: { availableTo: 'Aliens' } },
          'body/security/availableTo',
        ],
        ['with metaData not an object', { ...wine(), metaData: 'x' }, 'body/metaData'],
        [
          'with a sku of blanks',
          { ...wine(), variants: [{ title: 'a', sku: '  ', price: 1 }] },
          'body/variants/0/sku',
        ],
      ] as const
    ).map(([what, body, path]) => ({
      name: `create ${what} is 400 naming ${path}`,
      method: 'POST',
      url: '/product',
      body,
      status: 400,
      code: 'validation_failed',
      check: (res: { body: { errors: { path: string }[] } }, ctx: { t: TestApp }) => {
        expect(res.body.errors.map((e) => e.path)).toContain(path)
        expect(countRows(ctx.t.tenant.db, 'products')).toBe(0)
      },
    })),
    {
      name: 'create with an unknown vendor is 400',
      method: 'POST',
      url: '/product',
      body: { ...wine(), vendorId: 'no-such-vendor' },
      status: 400,
      code: 'validation_failed',
      expectBody: { errors: [{ path: 'body/vendorId' }] },
    },
    {
      name: 'create with a vendor of the tenant links it',
      method: 'POST',
      url: '/product',
      setup: async (ctx) => {
        ctx.vars.vendorId = (await ctx.t.request('POST', '/vendor', { body: { name: 'Glass Co' } })).body.id
      },
      body: (ctx: ScenarioContext) => ({ ...wine(), vendorId: ctx.vars.vendorId }),
      status: 201,
      check: (res, ctx) => expect(res.body.vendorId).toBe(ctx.vars.vendorId),
    },
    {
      name: 'a taken slug is 409',
      method: 'POST',
      url: '/product',
      setup: (ctx) => createProductIn(ctx, wine({ slug: 'reserve' })),
      body: wine({ slug: 'reserve' }),
      status: 409,
      code: 'conflict',
    },
    {
      name: 'a generated slug that is taken gets a number',
      method: 'POST',
      url: '/product',
      setup: (ctx) => createProductIn(ctx, wine({ title: 'Rosé', slug: 'rose' })),
      body: wine({ title: 'ROSÉ' }),
      status: 201,
      expectBody: { slug: 'rose-2' },
    },
    { name: 'page 0 is 400', method: 'GET', url: '/product?page=0', status: 400, code: 'validation_failed' },
    {
      name: 'limit 101 is 400',
      method: 'GET',
      url: '/product?limit=101',
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'an unknown webStatus filter is 400',
      method: 'GET',
      url: '/product?webStatus=Hidden',
      status: 400,
      code: 'validation_failed',
    },
    { name: 'an unknown id is 404', method: 'GET', url: '/product/nope', status: 404, code: 'not_found' },
    {
      name: 'update of an unknown id is 404',
      method: 'PUT',
      url: '/product/nope',
      body: { title: 'x' },
      status: 404,
      code: 'not_found',
    },
    {
      name: 'delete of an unknown id is 404',
      method: 'DELETE',
      url: '/product/nope',
      status: 404,
      code: 'not_found',
    },
    {
      name: 'update is partial and an empty body changes nothing',
      method: 'PUT',
      url: (ctx) => `/product/${ctx.vars.productId}`,
      setup: (ctx) => createProductIn(ctx, wine({ teaser: 'Bold' })),
      body: {},
      status: 200,
      check: (res, ctx) => expect(res.body).toEqual(ctx.vars.product),
    },
    {
      name: 'update with null clears a field and statuses change',
      method: 'PUT',
      url: (ctx) => `/product/${ctx.vars.productId}`,
      setup: (ctx) => createProductIn(ctx, wine({ teaser: 'Bold' })),
      body: { teaser: null, webStatus: 'Not Available', security: { availableTo: 'Nobody' } },
      status: 200,
      expectBody: { teaser: null, webStatus: 'Not Available', security: { availableTo: 'Nobody' } },
    },
    {
      name: 'update with an unknown field is 400',
      method: 'PUT',
      url: (ctx) => `/product/${ctx.vars.productId}`,
      setup: (ctx) => createProductIn(ctx),
      body: { price: 100 },
      status: 400,
      code: 'validation_failed',
    },
    {
      name: "update to another product's slug is 409",
      method: 'PUT',
      url: (ctx) => `/product/${ctx.vars.productId}`,
      setup: async (ctx) => {
        await createProductIn(ctx, wine({ slug: 'taken' }))
        await createProductIn(ctx)
      },
      body: { slug: 'taken' },
      status: 409,
      code: 'conflict',
    },
    {
      name: 'no token is 401',
      method: 'GET',
      url: '/product',
      as: () => null,
      status: 401,
      code: 'unauthenticated',
    },
    {
      name: 'read_only may list',
      method: 'GET',
      url: '/product',
      as: (ctx) => ctx.t.tenant.readOnly,
      status: 200,
      expectBody: { products: [], total: 0 },
    },
    {
      name: 'read_only may get one',
      method: 'GET',
      url: (ctx) => `/product/${ctx.vars.productId}`,
      setup: (ctx) => createProductIn(ctx),
      as: (ctx) => ctx.t.tenant.readOnly,
      status: 200,
    },
    {
      name: 'read_only may not create (403 without products:write)',
      method: 'POST',
      url: '/product',
      as: (ctx) => ctx.t.tenant.readOnly,
      body: wine(),
      status: 403,
      code: 'forbidden',
      check: (res, ctx) => {
        expect(res.body.requiredPermission).toBe('products:write')
        expect(countRows(ctx.t.tenant.db, 'products')).toBe(0)
      },
    },
    {
      name: 'the staff role may not update',
      method: 'PUT',
      url: (ctx) => `/product/${ctx.vars.productId}`,
      setup: (ctx) => createProductIn(ctx),
      as: (ctx) => ctx.t.tenant.staff,
      body: { title: 'x' },
      status: 403,
      code: 'forbidden',
    },
    {
      name: 'the staff role may not delete',
      method: 'DELETE',
      url: (ctx) => `/product/${ctx.vars.productId}`,
      setup: (ctx) => createProductIn(ctx),
      as: (ctx) => ctx.t.tenant.staff,
      status: 403,
      code: 'forbidden',
      check: (_res, ctx) => expect(countRows(ctx.t.tenant.db, 'products')).toBe(1),
    },
    {
      name: 'a staff user with no role is 403 even to read',
      method: 'GET',
      url: '/product',
      setup: async (ctx) => {
        ctx.vars.nobody = await ctx.t.addStaff(ctx.t.tenant)
      },
      as: (ctx) => ctx.vars.nobody,
      status: 403,
      code: 'forbidden',
    },
    {
      name: 'the manager may delete: 204 with no body',
      method: 'DELETE',
      url: (ctx) => `/product/${ctx.vars.productId}`,
      setup: (ctx) => createProductIn(ctx),
      as: (ctx) => ctx.t.tenant.manager,
      status: 204,
      check: (res, ctx) => {
        expect(res.text).toBe('')
        expect(countRows(ctx.t.tenant.db, 'products')).toBe(0)
        expect(countRows(ctx.t.tenant.db, 'product_variants')).toBe(0)
      },
    },
  ])
})

describe('products: behaviour', () => {
  let t: TestApp
  beforeEach(async () => {
    t = await createTestApp()
  })
  afterEach(() => t.close())

  test('get, list, update and delete round trip', async () => {
    const created = await createProduct(t, wine({ title: 'Pinot Noir 2021' }))
    expect((await t.request('GET', `/product/${created.id}`)).body).toEqual(created)
    const updated = await t.request('PUT', `/product/${created.id}`, {
      body: { title: 'Pinot Noir 2021 Reserve', metaData: { score: 94 } },
    })
    expect(updated.status).toBe(200)
    expect(updated.body).toMatchObject({
      id: created.id,
      title: 'Pinot Noir 2021 Reserve',
      metaData: { score: 94 },
    })
    expect(updated.body.slug).toBe(created.slug)
    expect(updated.body.updatedAt > created.updatedAt || updated.body.updatedAt === created.updatedAt).toBe(
      true,
    )
    expect((await t.request('GET', '/product')).body).toEqual({ products: [updated.body], total: 1 })
    expect((await t.request('DELETE', `/product/${created.id}`)).status).toBe(204)
    expect((await t.request('GET', `/product/${created.id}`)).status).toBe(404)
    expect((await t.request('DELETE', `/product/${created.id}`)).status).toBe(404)
  })

  test('pages: total counts all matches, page and limit slice them in title order', async () => {
    for (const title of ['Cedar Red', 'alder White', 'Birch Rosé']) await createProduct(t, wine({ title }))
    const first = await t.request('GET', '/product?limit=2')
    expect(first.body.total).toBe(3)
    expect(first.body.products.map((p: { title: string }) => p.title)).toEqual(['alder White', 'Birch Rosé'])
    const second = await t.request('GET', '/product?limit=2&page=2')
    expect(second.body.products.map((p: { title: string }) => p.title)).toEqual(['Cedar Red'])
    expect((await t.request('GET', '/product?limit=2&page=9')).body).toEqual({ products: [], total: 3 })
  })

  test('q matches the title or any variant SKU, case-insensitively, with LIKE characters literal', async () => {
    await createProduct(t, {
      title: 'Sparkling Brut',
      type: 'Wine',
      variants: [
        { title: '750ml', sku: 'BRUT-750', price: 3000 },
        { title: 'Magnum', sku: 'BRUT-MAG_15', price: 7000 },
      ],
    })
    await createProduct(t, {
      title: '100% Merlot',
      type: 'Wine',
      variants: [{ title: 'b', sku: 'MER', price: 1 }],
    })
    const titles = async (q: string) =>
      (await t.request('GET', `/product?q=${encodeURIComponent(q)}`)).body.products.map(
        (p: { title: string }) => p.title,
      )
    expect(await titles('brut')).toEqual(['Sparkling Brut'])
    expect(await titles('mag_15')).toEqual(['Sparkling Brut'])
    expect(await titles('mer')).toEqual(['100% Merlot'])
    expect(await titles('%')).toEqual(['100% Merlot'])
    expect(await titles('_')).toEqual(['Sparkling Brut'])
    expect(await titles('zzz')).toEqual([])
    // One product whose title and two SKUs all match still counts once.
    expect((await t.request('GET', '/product?q=r')).body.total).toBe(2)
  })

  test('webStatus and adminStatus filter', async () => {
    await createProduct(t, wine({ title: 'Web only', adminStatus: 'Not Available' }))
    await createProduct(t, wine({ title: 'Admin only', webStatus: 'Not Available' }))
    const titles = async (query: string) =>
      (await t.request('GET', `/product?${query}`)).body.products.map((p: { title: string }) => p.title)
    expect(await titles('webStatus=Available')).toEqual(['Web only'])
    expect(await titles('adminStatus=Available')).toEqual(['Admin only'])
    expect(await titles('webStatus=Available&adminStatus=Available')).toEqual([])
    expect(await titles(`webStatus=${encodeURIComponent('Not Available')}`)).toEqual(['Admin only'])
  })

  test('images keep the ids the update names, get new ones otherwise, and refuse foreign ids', async () => {
    const created = await createProduct(t, wine({ images: [{ src: 'https://img.test/a.png' }] }))
    const keep = created.images[0].id
    const res = await t.request('PUT', `/product/${created.id}`, {
      body: { images: [{ src: 'https://img.test/b.png' }, { id: keep, src: 'https://img.test/a2.png' }] },
    })
    expect(res.status).toBe(200)
    expect(res.body.images[1]).toEqual({ id: keep, src: 'https://img.test/a2.png', sortOrder: 1 })
    expect(res.body.images[0].id).not.toBe(keep)
    const bad = await t.request('PUT', `/product/${created.id}`, {
      body: { images: [{ id: 'made-up', src: 'https://img.test/c.png' }] },
    })
    expect(bad.status).toBe(400)
    expect(bad.body.errors[0].path).toBe('body/images/0/id')
  })

  test("another tenant's product is 404 for every route, and stays unchanged", async () => {
    const other = await t.addTenant('other')
    const theirs = await createProduct(t, wine({ title: 'Theirs' }), { as: other.owner, tenant: other })
    for (const [method, body] of [
      ['GET', undefined],
      ['PUT', { title: 'Mine now' }],
      ['DELETE', undefined],
    ] as const) {
      const res = await t.request(method, `/product/${theirs.id}`, { body })
      expect(res.status).toBe(404)
      expect(res.body.code).toBe('not_found')
    }
    expect((await t.request('GET', '/product')).body.total).toBe(0)
    const still = await t.request('GET', `/product/${theirs.id}`, { as: other.owner, tenant: other })
    expect(still.body).toEqual(theirs)
  })

  test("another tenant's vendor and location are unknown here", async () => {
    const other = await t.addTenant('other')
    const vendor = (
      await t.request('POST', '/vendor', { as: other.owner, tenant: other, body: { name: 'V' } })
    ).body
    const withVendor = await t.request('POST', '/product', { body: wine({ vendorId: vendor.id }) })
    expect(withVendor.status).toBe(400)
    const withLocation = await t.request('POST', '/product', {
      body: wine({
        variants: [
          { title: 'a', sku: 'LOC-1', price: 1, inventory: [{ inventoryLocationId: other.locationId }] },
        ],
      }),
    })
    expect(withLocation.status).toBe(400)
    expect(withLocation.body.errors[0].path).toBe('body/variants/0/inventory/0/inventoryLocationId')
    expect(countRows(t.tenant.db, 'products')).toBe(0)
  })

  test('every write appends its audit entry and outbox event; refused writes append nothing', async () => {
    const created = await t.request('POST', '/product', {
      body: wine({ title: 'Syrah' }),
      headers: { 'x-request-id': 'req-product-1', 'x-location-id': t.tenant.locationId },
    })
    await t.request('PUT', `/product/${created.body.id}`, { body: { title: 'Syrah Reserve' } })
    await t.request('PUT', `/product/${created.body.id}`, { body: { title: 'Syrah Reserve' } })
    await t.request('DELETE', `/product/${created.body.id}`)
    const entries = t.tenant.db.$client
      .query("SELECT * FROM audit_entries WHERE entity_type = 'product' ORDER BY seq")
      .all() as Record<string, unknown>[]
    expect(entries.map((e) => e.action)).toEqual(['product.create', 'product.update', 'product.delete'])
    expect(entries[0]).toMatchObject({
      staff_user_id: t.tenant.owner.id,
      location_id: t.tenant.locationId,
      request_id: 'req-product-1',
      route: '/product',
      entity_id: created.body.id,
    })
    expect(JSON.parse(entries[1]!.metadata as string)).toEqual({
      changes: { title: { from: 'Syrah', to: 'Syrah Reserve' } },
    })
    const events = t.tenant.db.$client
      .query('SELECT object, action, aggregate_id AS id FROM outbox_events ORDER BY seq')
      .all()
    expect(events).toEqual([
      { object: 'product', action: 'create', id: created.body.id },
      { object: 'product', action: 'update', id: created.body.id },
      { object: 'product', action: 'delete', id: created.body.id },
    ])

    const before = countRows(t.tenant.db, 'audit_entries')
    await t.request('POST', '/product', { body: { ...wine(), bogus: true } })
    await t.request('POST', '/product', { as: t.tenant.readOnly, body: wine() })
    await t.request('PUT', '/product/missing', { body: { title: 'x' } })
    expect(countRows(t.tenant.db, 'audit_entries')).toBe(before)
    expect(countRows(t.tenant.db, 'outbox_events')).toBe(3)
    expect(countRows(t.tenant.db, 'products')).toBe(0)
  })
})

describe('products: list edge cases', () => {
  let t: TestApp
  beforeEach(async () => {
    t = await createTestApp()
  })
  afterEach(() => t.close())

  test('a blank q matches everything; images come back in sortOrder order', async () => {
    const p = await createProduct(
      t,
      wine({
        images: [
          { src: 'https://img.test/late.png', sortOrder: 9 },
          { src: 'https://img.test/early.png', sortOrder: 1 },
        ],
      }),
    )
    expect(p.images.map((i: { src: string }) => i.src)).toEqual([
      'https://img.test/early.png',
      'https://img.test/late.png',
    ])
    expect((await t.request('GET', '/product?q=%20%20')).body.total).toBe(1)
  })
})
