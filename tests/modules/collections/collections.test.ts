// Collections at /collection and /collections: one implementation mounted twice, with product
// membership (`productIds`) that GET /product?collectionId= follows.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { countRows, createTestApp, runScenarios, type ScenarioContext, type TestApp } from '../../harness'
import { createProduct, wine } from '../products/fixtures'

const paths = ['/collection', '/collections'] as const

const createCollection = async (ctx: ScenarioContext, body: Record<string, unknown> = { title: 'Reds' }) => {
  const res = await ctx.t.request('POST', '/collection', { body })
  expect(res.status).toBe(201)
  ctx.vars.collectionId = res.body.id
  return res.body
}

for (const base of paths) {
  describe(`${base}: scenarios`, () => {
    runScenarios([
      {
        name: 'create answers 201 with defaults and a slug made from the title',
        method: 'POST',
        url: base,
        body: { title: 'Summer Whites & Rosés' },
        status: 201,
        expectBody: {
          title: 'Summer Whites & Rosés',
          type: 'Manual',
          slug: 'summer-whites-roses',
          webStatus: 'Available',
          adminStatus: 'Available',
          content: null,
          featureImage: null,
          seo: { title: null, description: null },
          productIds: [],
        },
      },
      {
        name: 'create stores every field',
        method: 'POST',
        url: base,
        setup: async (ctx) => {
          ctx.vars.p = (await createProduct(ctx.t)).id
        },
        body: (ctx: ScenarioContext) => ({
          title: 'Library',
          content: '<p>Older vintages</p>',
          webStatus: 'Not Available',
          slug: 'library',
          featureImage: 'https://img.test/library.jpg',
          seo: { title: 'Library wines', description: 'Aged releases' },
          productIds: [ctx.vars.p],
        }),
        status: 201,
        check: (res, ctx) =>
          expect(res.body).toMatchObject({
            slug: 'library',
            webStatus: 'Not Available',
            seo: { title: 'Library wines', description: 'Aged releases' },
            productIds: [ctx.vars.p],
          }),
      },
      {
        name: 'create without title is 400',
        method: 'POST',
        url: base,
        body: {},
        status: 400,
        code: 'validation_failed',
      },
      {
        name: 'create with an unknown field is 400',
        method: 'POST',
        url: base,
        body: { title: 'x', rules: [] },
        status: 400,
        code: 'validation_failed',
        expectBody: { errors: [{ path: 'body/rules' }] },
      },
      {
        name: 'create of a Dynamic collection is 400 (only Manual ones exist)',
        method: 'POST',
        url: base,
        body: { title: 'x', type: 'Dynamic' },
        status: 400,
        code: 'validation_failed',
      },
      {
        name: 'create with an unknown product is 400 naming it',
        method: 'POST',
        url: base,
        body: { title: 'x', productIds: ['nope'] },
        status: 400,
        code: 'validation_failed',
        check: (res, ctx) => {
          expect(res.body.errors).toEqual([{ path: 'body/productIds/0', message: 'no product nope' }])
          expect(countRows(ctx.t.tenant.db, 'collections')).toBe(0)
        },
      },
      {
        name: 'create with a product twice is 400',
        method: 'POST',
        url: base,
        setup: async (ctx) => {
          ctx.vars.p = (await createProduct(ctx.t)).id
        },
        body: (ctx: ScenarioContext) => ({ title: 'x', productIds: [ctx.vars.p, ctx.vars.p] }),
        status: 400,
        code: 'validation_failed',
      },
      {
        name: 'a taken slug is 409',
        method: 'POST',
        url: base,
        setup: (ctx) => createCollection(ctx, { title: 'Reds', slug: 'reds' }).then(() => {}),
        body: { title: 'Other', slug: 'reds' },
        status: 409,
        code: 'conflict',
      },
      {
        name: 'a generated slug that is taken gets a number',
        method: 'POST',
        url: base,
        setup: (ctx) => createCollection(ctx, { title: 'Reds' }).then(() => {}),
        body: { title: 'REDS' },
        status: 201,
        expectBody: { slug: 'reds-2' },
      },
      { name: 'an unknown id is 404', method: 'GET', url: `${base}/nope`, status: 404, code: 'not_found' },
      {
        name: 'update of an unknown id is 404',
        method: 'PUT',
        url: `${base}/nope`,
        body: {},
        status: 404,
        code: 'not_found',
      },
      {
        name: 'delete of an unknown id is 404',
        method: 'DELETE',
        url: `${base}/nope`,
        status: 404,
        code: 'not_found',
      },
      {
        name: 'update is partial; seo merges; null clears',
        method: 'PUT',
        url: (ctx) => `${base}/${ctx.vars.collectionId}`,
        setup: (ctx) =>
          createCollection(ctx, { title: 'Reds', content: 'c', seo: { title: 'T', description: 'D' } }).then(
            () => {},
          ),
        body: { content: null, seo: { description: 'New' } },
        status: 200,
        expectBody: { title: 'Reds', content: null, seo: { title: 'T', description: 'New' } },
      },
      {
        name: 'update to a taken slug is 409',
        method: 'PUT',
        url: (ctx) => `${base}/${ctx.vars.collectionId}`,
        setup: async (ctx) => {
          await createCollection(ctx, { title: 'A', slug: 'a' })
          await createCollection(ctx, { title: 'B' })
        },
        body: { slug: 'a' },
        status: 409,
        code: 'conflict',
      },
      { name: 'page 0 is 400', method: 'GET', url: `${base}?page=0`, status: 400, code: 'validation_failed' },
      {
        name: 'limit 101 is 400',
        method: 'GET',
        url: `${base}?limit=101`,
        status: 400,
        code: 'validation_failed',
      },
      {
        name: 'read_only may list',
        method: 'GET',
        url: base,
        as: (ctx) => ctx.t.tenant.readOnly,
        status: 200,
        expectBody: { collections: [], total: 0 },
      },
      {
        name: 'read_only may not create (403 without collections:write)',
        method: 'POST',
        url: base,
        as: (ctx) => ctx.t.tenant.readOnly,
        body: { title: 'x' },
        status: 403,
        code: 'forbidden',
        check: (res, ctx) => {
          expect(res.body.requiredPermission).toBe('collections:write')
          expect(countRows(ctx.t.tenant.db, 'collections')).toBe(0)
        },
      },
      {
        name: 'the staff role may not delete',
        method: 'DELETE',
        url: (ctx) => `${base}/${ctx.vars.collectionId}`,
        setup: (ctx) => createCollection(ctx).then(() => {}),
        as: (ctx) => ctx.t.tenant.staff,
        status: 403,
        code: 'forbidden',
      },
      {
        name: 'no token is 401',
        method: 'GET',
        url: base,
        as: () => null,
        status: 401,
        code: 'unauthenticated',
      },
      {
        name: 'delete answers 204 with no body',
        method: 'DELETE',
        url: (ctx) => `${base}/${ctx.vars.collectionId}`,
        setup: (ctx) => createCollection(ctx).then(() => {}),
        status: 204,
        check: (res, ctx) => {
          expect(res.text).toBe('')
          expect(countRows(ctx.t.tenant.db, 'collections')).toBe(0)
        },
      },
    ])
  })
}

describe('collections: behaviour', () => {
  let t: TestApp
  beforeEach(async () => {
    t = await createTestApp()
  })
  afterEach(() => t.close())

  test('both paths serve the same records: created on one, read, changed and deleted on the other', async () => {
    const created = (await t.request('POST', '/collections', { body: { title: 'Reds' } })).body
    expect((await t.request('GET', `/collection/${created.id}`)).body).toEqual(created)
    const singular = await t.request('GET', '/collection')
    const plural = await t.request('GET', '/collections')
    expect(singular.body).toEqual(plural.body)
    expect(singular.body).toEqual({ collections: [created], total: 1 })
    const updated = await t.request('PUT', `/collection/${created.id}`, { body: { title: 'Big Reds' } })
    expect((await t.request('GET', `/collections/${created.id}`)).body).toEqual(updated.body)
    expect((await t.request('DELETE', `/collections/${created.id}`)).status).toBe(204)
    expect((await t.request('GET', `/collection/${created.id}`)).status).toBe(404)
  })

  test('membership: productIds in order, GET /product?collectionId= follows it, product delete removes it', async () => {
    const a = await createProduct(t, wine({ title: 'Zinfandel' }))
    const b = await createProduct(t, wine({ title: 'Albariño' }))
    const c = await createProduct(t, wine({ title: 'Malbec' }))
    const reds = (
      await t.request('POST', '/collection', { body: { title: 'Reds', productIds: [a.id, c.id] } })
    ).body
    const members = async (id: string) =>
      (await t.request('GET', `/product?collectionId=${id}`)).body.products.map((p: { id: string }) => p.id)
    // Collection order, not title order.
    expect(await members(reds.id)).toEqual([a.id, c.id])
    expect((await t.request('GET', `/product?collectionId=${reds.id}&q=malbec`)).body.total).toBe(1)
    expect(await members('no-such-collection')).toEqual([])

    const reordered = await t.request('PUT', `/collection/${reds.id}`, {
      body: { productIds: [c.id, b.id, a.id] },
    })
    expect(reordered.body.productIds).toEqual([c.id, b.id, a.id])
    expect(await members(reds.id)).toEqual([c.id, b.id, a.id])
    const containing = await t.request('GET', `/collection?productId=${b.id}`)
    expect(containing.body.collections.map((x: { id: string }) => x.id)).toEqual([reds.id])

    expect((await t.request('DELETE', `/product/${b.id}`)).status).toBe(204)
    expect((await t.request('GET', `/collection/${reds.id}`)).body.productIds).toEqual([c.id, a.id])
    const event = t.tenant.db.$client
      .query("SELECT payload FROM outbox_events WHERE object = 'product' AND action = 'delete'")
      .get() as { payload: string }
    expect(JSON.parse(event.payload).removedFromCollectionIds).toEqual([reds.id])

    // Deleting the collection leaves the products.
    await t.request('DELETE', `/collection/${reds.id}`)
    expect(countRows(t.tenant.db, 'products')).toBe(2)
    expect(countRows(t.tenant.db, 'collection_products')).toBe(0)
  })

  test('list: title order, q over title and slug, status filters, paging', async () => {
    for (const [title, webStatus] of [
      ['Whites', 'Available'],
      ['bubbles', 'Not Available'],
      ['Reds', 'Available'],
    ])
      await t.request('POST', '/collection', { body: { title, webStatus } })
    const titles = async (query: string) =>
      (await t.request('GET', `/collections?${query}`)).body.collections.map(
        (c: { title: string }) => c.title,
      )
    expect(await titles('')).toEqual(['bubbles', 'Reds', 'Whites'])
    expect(await titles('limit=2&page=2')).toEqual(['Whites'])
    expect((await t.request('GET', '/collections?limit=1')).body.total).toBe(3)
    expect(await titles('q=HITE')).toEqual(['Whites'])
    expect(await titles(`webStatus=${encodeURIComponent('Not Available')}`)).toEqual(['bubbles'])
  })

  test("another tenant's collection is 404 on both paths, and its products are unknown here", async () => {
    const other = await t.addTenant('other')
    const theirProduct = await createProduct(t, wine(), { as: other.owner, tenant: other })
    const theirs = (
      await t.request('POST', '/collection', { as: other.owner, tenant: other, body: { title: 'Theirs' } })
    ).body
    for (const base of paths) {
      for (const [method, body] of [
        ['GET', undefined],
        ['PUT', { title: 'Mine' }],
        ['DELETE', undefined],
      ] as const) {
        const res = await t.request(method, `${base}/${theirs.id}`, { body })
        expect(res.status).toBe(404)
      }
    }
    const withTheirProduct = await t.request('POST', '/collection', {
      body: { title: 'x', productIds: [theirProduct.id] },
    })
    expect(withTheirProduct.status).toBe(400)
    expect((await t.request('GET', `/product?collectionId=${theirs.id}`)).body.total).toBe(0)
    const still = await t.request('GET', `/collection/${theirs.id}`, { as: other.owner, tenant: other })
    expect(still.body).toEqual(theirs)
  })

  test('writes append audit entries and outbox events; a no-change update appends none', async () => {
    const p = await createProduct(t)
    const created = (await t.request('POST', '/collection', { body: { title: 'Reds' } })).body
    await t.request('PUT', `/collections/${created.id}`, { body: { productIds: [p.id] } })
    await t.request('PUT', `/collections/${created.id}`, { body: { productIds: [p.id], title: 'Reds' } })
    await t.request('DELETE', `/collection/${created.id}`)
    const entries = t.tenant.db.$client
      .query("SELECT action, metadata FROM audit_entries WHERE entity_type = 'collection' ORDER BY seq")
      .all() as { action: string; metadata: string }[]
    expect(entries.map((e) => e.action)).toEqual([
      'collection.create',
      'collection.update',
      'collection.delete',
    ])
    expect(JSON.parse(entries[1]!.metadata)).toEqual({ changes: { productIds: { from: [], to: [p.id] } } })
    const events = t.tenant.db.$client
      .query("SELECT action FROM outbox_events WHERE object = 'collection' ORDER BY seq")
      .all()
    expect(events).toEqual([{ action: 'create' }, { action: 'update' }, { action: 'delete' }])
  })
})
