// Dynamic collections: filled with the products their conditions match when created or changed,
// kept up to date by product writes (each change audited on the collection), validation,
// permissions and tenant isolation.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { createTestApp, type TestApp } from '../../harness'
import { createProduct, wine } from '../products/fixtures'

let t: TestApp
beforeEach(async () => {
  t = await createTestApp()
})
afterEach(() => t.close())

async function ok(method: string, path: string, body?: unknown) {
  const res = await t.request(method, path, { body })
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`)
  return res.body
}

const dynamic = (conditions: unknown[], extra: Record<string, unknown> = {}) =>
  ok('POST', '/collection', {
    title: `C${Math.random().toString(36).slice(2, 8)}`,
    type: 'Dynamic',
    conditions,
    ...extra,
  })

const price = (p: number) => ({ variants: [{ title: '750ml', sku: `SKU-${p}-${Math.random()}`, price: p }] })

describe('dynamic collections: worked examples', () => {
  let cab: any
  let pinot: any
  let tee: any
  beforeEach(async () => {
    cab = await createProduct(t, wine({ title: 'Estate Cabernet', ...price(6500) }))
    pinot = await createProduct(t, wine({ title: 'Anderson Pinot', ...price(3800) }))
    tee = await createProduct(t, wine({ title: 'Logo Tee', type: 'General Merchandise', ...price(2500) }))
  })

  const examples: [string, unknown[], Record<string, unknown>, () => string[]][] = [
    [
      'type equals Wine, in title order',
      [{ field: 'type', operator: 'equals', value: 'Wine' }],
      {},
      () => [pinot.id, cab.id],
    ],
    [
      'lowest price at least $40',
      [{ field: 'price', operator: 'greaterThanOrEqual', value: 4000 }],
      {},
      () => [cab.id],
    ],
    [
      'title contains (any case)',
      [{ field: 'title', operator: 'contains', value: 'PINOT' }],
      {},
      () => [pinot.id],
    ],
    [
      'All: wine under $50',
      [
        { field: 'type', operator: 'equals', value: 'Wine' },
        { field: 'price', operator: 'lessThan', value: 5000 },
      ],
      {},
      () => [pinot.id],
    ],
    [
      'Any: merchandise or over $60',
      [
        { field: 'type', operator: 'equals', value: 'General Merchandise' },
        { field: 'price', operator: 'greaterThan', value: 6000 },
      ],
      { appliesToCondition: 'Any' },
      () => [cab.id, tee.id],
    ],
  ]
  for (const [name, conditions, extra, expected] of examples)
    test(name, async () => {
      const collection = await dynamic(conditions, extra)
      expect(collection).toMatchObject({ type: 'Dynamic', conditions, productIds: expected() })
      expect((await ok('GET', `/collection/${collection.id}`)).productIds).toEqual(expected())
    })

  test('product creates, changes and deletes keep the collection current, each audited', async () => {
    const reds = await dynamic([{ field: 'title', operator: 'contains', value: 'cabernet' }])
    expect(reds.productIds).toEqual([cab.id])
    const reserve = await createProduct(t, wine({ title: 'Reserve Cabernet' }))
    expect((await ok('GET', `/collection/${reds.id}`)).productIds).toEqual([cab.id, reserve.id])
    await ok('PUT', `/product/${cab.id}`, { title: 'Estate Merlot' })
    expect((await ok('GET', `/collection/${reds.id}`)).productIds).toEqual([reserve.id])
    await ok('DELETE', `/product/${reserve.id}`)
    expect((await ok('GET', `/collection/${reds.id}`)).productIds).toEqual([])
    const audit = t.tenant.db.$client
      .query(
        "SELECT metadata FROM audit_entries WHERE action = 'collection.update' AND entity_id = ? ORDER BY seq",
      )
      .all(reds.id)
      .map((r: any) => JSON.parse(r.metadata))
    expect(audit).toEqual([
      { byConditions: true, added: [reserve.id] },
      { byConditions: true, removed: [cab.id] },
    ])
    const events = t.tenant.db.$client
      .query("SELECT count(*) AS n FROM outbox_events WHERE object = 'collection' AND action = 'update'")
      .get()
    expect(events).toEqual({ n: 2 })
  })

  test('changing the conditions refills; switching to Manual keeps the products as the list', async () => {
    const collection = await dynamic([{ field: 'type', operator: 'equals', value: 'Wine' }])
    const merch = await ok('PUT', `/collection/${collection.id}`, {
      conditions: [{ field: 'type', operator: 'equals', value: 'General Merchandise' }],
    })
    expect(merch.productIds).toEqual([tee.id])
    const manual = await ok('PUT', `/collection/${collection.id}`, { type: 'Manual' })
    expect(manual).toMatchObject({
      type: 'Manual',
      conditions: [],
      appliesToCondition: null,
      productIds: [tee.id],
    })
    await createProduct(t, wine({ title: 'Another Tee', type: 'General Merchandise' }))
    expect((await ok('GET', `/collection/${collection.id}`)).productIds).toEqual([tee.id])
    const again = await ok('PUT', `/collection/${collection.id}`, {
      type: 'Dynamic',
      conditions: [{ field: 'title', operator: 'equals', value: 'Estate Cabernet' }],
    })
    expect(again.productIds).toEqual([cab.id])
  })

  test('a Manual collection is untouched by product writes', async () => {
    const manual = await ok('POST', '/collection', { title: 'Picks', productIds: [tee.id] })
    await createProduct(t, wine())
    await ok('PUT', `/product/${tee.id}`, { title: 'Renamed Tee' })
    expect((await ok('GET', `/collection/${manual.id}`)).productIds).toEqual([tee.id])
  })
})

describe('dynamic collections: validation and security', () => {
  const refused: [string, Record<string, unknown>, string][] = [
    ['Dynamic without conditions', { type: 'Dynamic' }, 'body/conditions'],
    [
      'an unknown product field',
      { type: 'Dynamic', conditions: [{ field: 'color', operator: 'equals', value: 'red' }] },
      'body/conditions/0/field',
    ],
    [
      'an operator the field does not allow',
      { type: 'Dynamic', conditions: [{ field: 'price', operator: 'contains', value: 'x' }] },
      'body/conditions/0/operator',
    ],
    [
      'a value that does not suit',
      { type: 'Dynamic', conditions: [{ field: 'price', operator: 'greaterThan', value: 'x' }] },
      'body/conditions/0/value',
    ],
    [
      'productIds on a Dynamic collection',
      { type: 'Dynamic', conditions: [{ field: 'type', operator: 'equals', value: 'Wine' }], productIds: [] },
      'body/productIds',
    ],
    [
      'conditions on a Manual collection',
      { conditions: [{ field: 'type', operator: 'equals', value: 'Wine' }] },
      'body/conditions',
    ],
  ]
  for (const [name, body, path] of refused)
    test(`${name} is 400 naming ${path}`, async () => {
      const res = await t.request('POST', '/collection', { body: { title: 'X', ...body } })
      expect(res.status).toBe(400)
      expect(res.body.errors[0].path).toBe(path)
      expect(t.tenant.db.$client.query('SELECT count(*) AS n FROM collections').get()).toEqual({ n: 0 })
    })

  test('productIds on an existing Dynamic collection is 400 and changes nothing', async () => {
    const product = await createProduct(t)
    const collection = await dynamic([{ field: 'type', operator: 'equals', value: 'Wine' }])
    const res = await t.request('PUT', `/collection/${collection.id}`, { body: { productIds: [] } })
    expect(res.status).toBe(400)
    expect((await ok('GET', `/collection/${collection.id}`)).productIds).toEqual([product.id])
  })

  test('read_only may not create a Dynamic collection (403)', async () => {
    const res = await t.request('POST', '/collection', {
      as: t.tenant.readOnly,
      body: {
        title: 'X',
        type: 'Dynamic',
        conditions: [{ field: 'type', operator: 'equals', value: 'Wine' }],
      },
    })
    expect(res.status).toBe(403)
  })

  test('another tenant’s products never join; its collection is 404 here', async () => {
    const other = await t.addTenant('other')
    await createProduct(t, wine(), { as: other.owner, tenant: other })
    const collection = await dynamic([{ field: 'type', operator: 'equals', value: 'Wine' }])
    expect(collection.productIds).toEqual([])
    const res = await t.request('PUT', `/collection/${collection.id}`, {
      as: other.owner,
      tenant: other,
      body: { conditions: [{ field: 'type', operator: 'equals', value: 'General Merchandise' }] },
    })
    expect(res.status).toBe(404)
  })
})
