// Variants: SKU uniqueness, variant list updates, per-location inventory, bundles, money as
// integer cents, and the lookups the orders module prices lines with.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { findProductVariant, findVariant, findVariantBySku } from '../../../src/modules/products/variants'
import { boundTo, countRows, createTestApp, type TestApp } from '../../harness'
import { createProduct, wine } from './fixtures'

const variant = (sku: string, extra: Record<string, unknown> = {}) => ({
  title: sku,
  sku,
  price: 1000,
  ...extra,
})

describe('SKUs', () => {
  let t: TestApp
  beforeEach(async () => {
    t = await createTestApp()
  })
  afterEach(() => t.close())

  test('a SKU of another product is 409, case-insensitively, naming the holder; nothing is written', async () => {
    const first = await createProduct(t, wine({ variants: [variant('ZIN-750')] }))
    const res = await t.request('POST', '/product', { body: wine({ variants: [variant('zin-750')] }) })
    expect(res.status).toBe(409)
    expect(res.body).toMatchObject({ code: 'conflict', sku: 'ZIN-750', productId: first.id })
    expect(countRows(t.tenant.db, 'products')).toBe(1)
  })

  test('a SKU twice in one request is 409', async () => {
    const res = await t.request('POST', '/product', {
      body: wine({ variants: [variant('A-1'), variant('a-1')] }),
    })
    expect(res.status).toBe(409)
    expect(countRows(t.tenant.db, 'product_variants')).toBe(0)
  })

  test('an update to a SKU of another product is 409; one of its own variants may take it over', async () => {
    await createProduct(t, wine({ variants: [variant('OTHER')] }))
    const mine = await createProduct(t, wine({ variants: [variant('X-1'), variant('X-2')] }))
    const [v1, v2] = mine.variants
    const taken = await t.request('PUT', `/product/${mine.id}`, {
      body: { variants: [{ id: v1.id, sku: 'other' }, { id: v2.id }] },
    })
    expect(taken.status).toBe(409)
    // Swapping SKUs between the product's own variants is fine.
    const swapped = await t.request('PUT', `/product/${mine.id}`, {
      body: {
        variants: [
          { id: v1.id, sku: 'X-2' },
          { id: v2.id, sku: 'X-1' },
        ],
      },
    })
    expect(swapped.status).toBe(200)
    expect(swapped.body.variants.map((v: { id: string; sku: string }) => [v.id, v.sku])).toEqual([
      [v1.id, 'X-2'],
      [v2.id, 'X-1'],
    ])
    // A dropped variant's SKU is free for a new one in the same update.
    const reused = await t.request('PUT', `/product/${mine.id}`, {
      body: { variants: [{ id: v1.id }, variant('X-1', { title: 'New' })] },
    })
    expect(reused.status).toBe(200)
    expect(reused.body.variants.map((v: { sku: string }) => v.sku)).toEqual(['X-2', 'X-1'])
    expect(reused.body.variants[1].id).not.toBe(v2.id)
  })

  test('SKUs are unique per tenant, not across tenants', async () => {
    const other = await t.addTenant('other')
    await createProduct(t, wine({ variants: [variant('SAME')] }))
    await createProduct(t, wine({ variants: [variant('SAME')] }), { as: other.owner, tenant: other })
  })

  test('concurrent creates with one SKU: exactly one wins, the other is 409', async () => {
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        t.request('POST', '/product', { body: wine({ title: `Race ${i}`, variants: [variant('RACE')] }) }),
      ),
    )
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409])
    expect(countRows(t.tenant.db, 'product_variants')).toBe(1)
  })
})

describe('variant list updates', () => {
  let t: TestApp
  beforeEach(async () => {
    t = await createTestApp()
  })
  afterEach(() => t.close())

  test('entries with id change that variant, entries without add one, the rest are deleted', async () => {
    const p = await createProduct(t, wine({ variants: [variant('V-1'), variant('V-2'), variant('V-3')] }))
    const [v1, , v3] = p.variants
    const res = await t.request('PUT', `/product/${p.id}`, {
      body: {
        variants: [
          { id: v3.id, price: 1250, sortOrder: 0 },
          { id: v1.id, sortOrder: 1 },
          { title: 'Magnum', sku: 'V-4', price: 9000, volumeInML: 1500 },
        ],
      },
    })
    expect(res.status).toBe(200)
    expect(res.body.variants.map((v: { sku: string; price: number }) => [v.sku, v.price])).toEqual([
      ['V-3', 1250],
      ['V-1', 1000],
      ['V-4', 9000],
    ])
    expect(res.body.variants[2]).toMatchObject({ taxType: 'wine', sortOrder: 2, volumeInML: 1500 })
    expect(countRows(t.tenant.db, 'product_variants')).toBe(3)
    const audit = t.tenant.db.$client
      .query("SELECT metadata FROM audit_entries WHERE action = 'product.update'")
      .get() as { metadata: string }
    expect(Object.keys(JSON.parse(audit.metadata).changes)).toEqual(['variants'])
  })

  test('a new variant needs title, sku and price; a foreign or repeated id is 400; nothing changes', async () => {
    const p = await createProduct(t, wine({ variants: [variant('K-1')] }))
    const other = await createProduct(t, wine({ variants: [variant('K-2')] }))
    const cases: [unknown[], string][] = [
      [[{ sku: 'K-9', price: 1 }], 'body/variants/0/title'],
      [[{ id: p.variants[0].id }, { title: 'x', sku: 'K-9' }], 'body/variants/1/price'],
      [[{ id: other.variants[0].id }], 'body/variants/0/id'],
      [[{ id: p.variants[0].id }, { id: p.variants[0].id }], 'body/variants/1/id'],
      [[], 'body/variants'],
    ]
    for (const [variants, path] of cases) {
      const res = await t.request('PUT', `/product/${p.id}`, { body: { variants } })
      expect(res.status).toBe(400)
      expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path)
    }
    expect((await t.request('GET', `/product/${p.id}`)).body).toEqual(p)
  })

  test('a variant sent unchanged is no change: no audit entry, same updatedAt', async () => {
    const p = await createProduct(t, wine({ variants: [variant('U-1')] }))
    const res = await t.request('PUT', `/product/${p.id}`, {
      body: { variants: [{ id: p.variants[0].id, price: 1000, sku: 'U-1' }] },
    })
    expect(res.body).toEqual(p)
    expect(countRows(t.tenant.db, 'outbox_events')).toBe(1)
  })
})

describe('inventory', () => {
  let t: TestApp
  beforeEach(async () => {
    t = await createTestApp()
  })
  afterEach(() => t.close())

  const addLocation = async () => {
    return t.addLocation(t.tenant, { name: 'Cellar', timezone: 'UTC' }).id
  }

  test('rows per variant and location appear on the variant and on the product', async () => {
    const cellar = await addLocation()
    const p = await createProduct(
      t,
      wine({
        variants: [
          variant('I-1', {
            inventory: [
              { inventoryLocationId: t.tenant.locationId, availableForSaleCount: 24, reserveCount: 6 },
              { inventoryLocationId: cellar, availableForSaleCount: 120, allocatedCount: 30 },
            ],
          }),
          variant('I-2'),
        ],
      }),
    )
    const v = p.variants[0]
    expect(v.inventory).toHaveLength(2)
    expect(v.inventory).toContainEqual({
      productVariantId: v.id,
      inventoryLocationId: cellar,
      availableForSaleCount: 120,
      reserveCount: 0,
      allocatedCount: 30,
    })
    expect(p.variants[1].inventory).toEqual([])
    expect(p.inventory).toEqual(v.inventory)
  })

  test('sending inventory replaces the rows; hasInventory false clears them', async () => {
    const p = await createProduct(
      t,
      wine({
        variants: [
          variant('J-1', {
            inventory: [{ inventoryLocationId: t.tenant.locationId, availableForSaleCount: 5 }],
          }),
        ],
      }),
    )
    const id = p.variants[0].id
    const replaced = await t.request('PUT', `/product/${p.id}`, {
      body: {
        variants: [
          { id, inventory: [{ inventoryLocationId: t.tenant.locationId, availableForSaleCount: 9 }] },
        ],
      },
    })
    expect(replaced.body.inventory).toEqual([
      {
        productVariantId: id,
        inventoryLocationId: t.tenant.locationId,
        availableForSaleCount: 9,
        reserveCount: 0,
        allocatedCount: 0,
      },
    ])
    const kept = await t.request('PUT', `/product/${p.id}`, { body: { variants: [{ id, price: 1100 }] } })
    expect(kept.body.inventory).toHaveLength(1)
    const cleared = await t.request('PUT', `/product/${p.id}`, {
      body: { variants: [{ id, hasInventory: false }] },
    })
    expect(cleared.body.variants[0]).toMatchObject({ hasInventory: false, inventory: [] })
    expect(countRows(t.tenant.db, 'product_inventory')).toBe(0)
  })

  test('a caller bound to a location replaces its own stock only; naming another location is 403', async () => {
    const A = t.tenant.locationId
    const B = await addLocation()
    const p = await createProduct(
      t,
      wine({
        variants: [
          variant('K-1', {
            inventory: [
              { inventoryLocationId: A, availableForSaleCount: 5 },
              { inventoryLocationId: B, availableForSaleCount: 7 },
            ],
          }),
        ],
      }),
    )
    const id = p.variants[0].id
    const stock = async () =>
      Object.fromEntries(
        (await t.request('GET', `/product/${p.id}`)).body.inventory.map((row: any) => [
          row.inventoryLocationId,
          row.availableForSaleCount,
        ]),
      )
    for (const [i, { as, headers }] of (await boundTo(t, t.tenant, A)).entries()) {
      const put = (inventory: unknown) =>
        t.request('PUT', `/product/${p.id}`, { as, headers, body: { variants: [{ id, inventory }] } })
      expect((await put([{ inventoryLocationId: A, availableForSaleCount: 10 + i }])).status).toBe(200)
      expect(await stock()).toEqual({ [A]: 10 + i, [B]: 7 })
      expect((await put([])).status).toBe(200)
      expect(await stock()).toEqual({ [B]: 7 })
      expect((await put([{ inventoryLocationId: B, availableForSaleCount: 0 }])).status).toBe(403)
      expect(await stock()).toEqual({ [B]: 7 })
    }
    // A tenant-wide caller replaces every location's rows.
    await t.request('PUT', `/product/${p.id}`, {
      body: { variants: [{ id, inventory: [{ inventoryLocationId: A, availableForSaleCount: 1 }] }] },
    })
    expect(await stock()).toEqual({ [A]: 1 })
  })

  test('unknown locations, repeated locations, negative reserve and rows without hasInventory are 400', async () => {
    const loc = t.tenant.locationId
    const cases: [unknown, string][] = [
      [[{ inventoryLocationId: 'nowhere' }], 'body/variants/0/inventory/0/inventoryLocationId'],
      [
        [{ inventoryLocationId: loc }, { inventoryLocationId: loc }],
        'body/variants/0/inventory/1/inventoryLocationId',
      ],
      [[{ inventoryLocationId: loc, reserveCount: -1 }], 'body/variants/0/inventory/0/reserveCount'],
      [
        [{ inventoryLocationId: loc, availableForSaleCount: '3' }],
        'body/variants/0/inventory/0/availableForSaleCount',
      ],
    ]
    for (const [inventory, path] of cases) {
      const res = await t.request('POST', '/product', {
        body: wine({ variants: [variant('L-1', { inventory })] }),
      })
      expect(res.status).toBe(400)
      expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path)
    }
    const untracked = await t.request('POST', '/product', {
      body: {
        title: 'Soup',
        type: 'Food',
        variants: [variant('SOUP', { inventory: [{ inventoryLocationId: loc }] })],
      },
    })
    expect(untracked.status).toBe(400)
    expect(untracked.body.errors[0].path).toBe('body/variants/0/inventory')
    expect(countRows(t.tenant.db, 'products')).toBe(0)
  })
})

describe('bundles', () => {
  let t: TestApp
  beforeEach(async () => {
    t = await createTestApp()
  })
  afterEach(() => t.close())

  test('a Bundle lists variants of other products; they cannot be removed while bundled', async () => {
    const red = await createProduct(t, wine({ variants: [variant('B-RED')] }))
    const white = await createProduct(t, wine({ variants: [variant('B-WHITE')] }))
    const pack = await createProduct(t, {
      title: 'Duo pack',
      type: 'Bundle',
      variants: [variant('B-DUO', { price: 5500 })],
      bundleItems: [
        { productVariantId: red.variants[0].id, quantity: 1 },
        { productVariantId: white.variants[0].id, quantity: 2 },
      ],
    })
    expect(pack.bundleItems).toEqual([
      { productVariantId: red.variants[0].id, productId: red.id, quantity: 1 },
      { productVariantId: white.variants[0].id, productId: white.id, quantity: 2 },
    ])
    expect(pack.variants[0]).toMatchObject({
      hasShipping: true,
      hasInventory: false,
      taxType: 'generalMerchandise',
    })

    const del = await t.request('DELETE', `/product/${red.id}`)
    expect(del.status).toBe(409)
    expect(del.body.bundleProductIds).toEqual([pack.id])
    const drop = await t.request('PUT', `/product/${white.id}`, {
      body: { variants: [variant('B-WHITE-2')] },
    })
    expect(drop.status).toBe(409)
    const nest = await t.request('PUT', `/product/${red.id}`, { body: { type: 'Bundle' } })
    expect(nest.status).toBe(409)

    const emptied = await t.request('PUT', `/product/${pack.id}`, { body: { bundleItems: [] } })
    expect(emptied.body.bundleItems).toEqual([])
    expect((await t.request('DELETE', `/product/${red.id}`)).status).toBe(204)
    // Deleting the bundle itself never needs its members' consent.
    await t.request('PUT', `/product/${pack.id}`, {
      body: { bundleItems: [{ productVariantId: white.variants[0].id, quantity: 1 }] },
    })
    expect((await t.request('DELETE', `/product/${pack.id}`)).status).toBe(204)
    expect(countRows(t.tenant.db, 'product_bundle_items')).toBe(0)
  })

  test('bundle item rules: only on a Bundle, known variants, once each, no self, no nesting', async () => {
    const wineP = await createProduct(t, wine({ variants: [variant('N-1')] }))
    const bundle = await createProduct(t, { title: 'Box', type: 'Bundle', variants: [variant('N-BOX')] })
    const item = (id: string) => ({ productVariantId: id, quantity: 1 })
    const cases: [Record<string, unknown>, string][] = [
      [{ ...wine(), bundleItems: [item(wineP.variants[0].id)] }, 'body/bundleItems'],
      [
        { title: 'B', type: 'Bundle', variants: [variant('N-2')], bundleItems: [item('nope')] },
        'body/bundleItems/0/productVariantId',
      ],
      [
        {
          title: 'B',
          type: 'Bundle',
          variants: [variant('N-3')],
          bundleItems: [item(wineP.variants[0].id), item(wineP.variants[0].id)],
        },
        'body/bundleItems/1/productVariantId',
      ],
      [
        {
          title: 'B',
          type: 'Bundle',
          variants: [variant('N-4')],
          bundleItems: [item(bundle.variants[0].id)],
        },
        'body/bundleItems/0/productVariantId',
      ],
      [
        {
          title: 'B',
          type: 'Bundle',
          variants: [variant('N-5')],
          bundleItems: [{ productVariantId: wineP.variants[0].id, quantity: 0 }],
        },
        'body/bundleItems/0/quantity',
      ],
    ]
    for (const [body, path] of cases) {
      const res = await t.request('POST', '/product', { body })
      expect(res.status).toBe(400)
      expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path)
    }
    const self = await t.request('PUT', `/product/${bundle.id}`, {
      body: { bundleItems: [item(bundle.variants[0].id)] },
    })
    expect(self.status).toBe(400)
    await t.request('PUT', `/product/${bundle.id}`, { body: { bundleItems: [item(wineP.variants[0].id)] } })
    const unbundle = await t.request('PUT', `/product/${bundle.id}`, { body: { type: 'Wine' } })
    expect(unbundle.status).toBe(400)
    const both = await t.request('PUT', `/product/${bundle.id}`, { body: { type: 'Wine', bundleItems: [] } })
    expect(both.status).toBe(200)
    expect(countRows(t.tenant.db, 'products')).toBe(2)
  })
})

describe('money is integer cents', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await createTestApp()
  })
  afterAll(() => t.close())

  test('worked example: $45.00 is 4500, a $0.10 deposit is 10, and both come back exactly', async () => {
    const p = await createProduct(
      t,
      wine({ variants: [variant('M-1', { price: 4500, bottleDeposit: 10, costOfGood: 1234 })] }),
    )
    expect(p.variants[0]).toMatchObject({ price: 4500, bottleDeposit: 10, costOfGood: 1234 })
    expect(findVariant(t.tenant.db, p.variants[0].id)).toMatchObject({ price: 4500, bottleDeposit: 10 })
  })

  test('property: any cents amount round-trips exactly; fractions and numeric strings are refused', async () => {
    let i = 0
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 10_000_000_000 }),
        fc.oneof(
          fc.double({ min: 0.001, max: 1e6, noNaN: true }).filter((d) => !Number.isInteger(d)),
          fc.constant('45.00'),
        ),
        async (cents, bad) => {
          const sku = `P-${++i}`
          const ok = await t.request('POST', '/product', {
            body: wine({ variants: [variant(sku, { price: cents, comparePrice: cents })] }),
          })
          expect(ok.status).toBe(201)
          expect(ok.body.variants[0].price).toBe(cents)
          expect(findVariantBySku(t.tenant.db, sku)!.comparePrice).toBe(cents)
          const refused = await t.request('POST', '/product', {
            body: wine({ variants: [variant(`${sku}-bad`, { price: bad })] }),
          })
          expect(refused.status).toBe(400)
        },
      ),
      { numRuns: 30 },
    )
  })
})

describe('lookups for orders', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await createTestApp()
  })
  afterAll(() => t.close())

  test('findVariant, findVariantBySku and findProductVariant answer the variant with its product facts', async () => {
    const p = await createProduct(t, {
      title: 'Olive oil',
      type: 'Food',
      adminStatus: 'Not Available',
      variants: [variant('OIL-500', { price: 1800 })],
    })
    const v = p.variants[0]
    const found = findVariant(t.tenant.db, v.id)
    expect(found).toMatchObject({
      id: v.id,
      productId: p.id,
      sku: 'OIL-500',
      price: 1800,
      taxType: 'food',
      product: {
        id: p.id,
        title: 'Olive oil',
        type: 'Food',
        adminStatus: 'Not Available',
        availableTo: 'Everyone',
      },
    })
    expect(findVariantBySku(t.tenant.db, 'oil-500')?.id).toBe(v.id)
    expect(findVariantBySku(t.tenant.db, 'OIL-5')).toBeUndefined()
    expect(findVariant(t.tenant.db, 'nope')).toBeUndefined()
    expect(findProductVariant(t.tenant.db, p.id, v.id)?.id).toBe(v.id)
    expect(findProductVariant(t.tenant.db, 'other-product', v.id)).toBeUndefined()
  })
})
