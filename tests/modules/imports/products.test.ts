// Bulk imports of products: one row per variant with its product's columns (Shopify and Commerce7
// exports), the rows of one product one record (imports/groups.ts) applied whole or not at all:
// the product upserted by id, else slug, each variant by id, else SKU; an NDJSON line a product
// nesting its variants; prices in integer minor units with bounds; audit and events.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { IMPORTS_JOB } from '../../../src/modules/imports/jobs'
import { workPendingImports } from '../../../src/modules/imports/service'
import { countRows, createTestApp, type TestApp } from '../../harness'
import { auditEntries, csv, eventActions, importErrors, imported, lineAndField, upload } from './helpers'

let t: TestApp
beforeEach(async () => {
  t = await createTestApp()
})
afterEach(() => t.close())

const audit = (action: string) => auditEntries(t, action)
const events = (object: string) => eventActions(t, object)
const variants = () =>
  t.tenant.db.$client.query<Record<string, any>, []>('SELECT * FROM product_variants ORDER BY sku').all()

// A 13-digit barcode that passes the Luhn check: a barcode, not a payment card.
const barcode = '4006381333932'
const header = [
  'Handle',
  'Title',
  'Type',
  'Body (HTML)',
  'Variant SKU',
  'Variant Title',
  'Variant Price',
  'Compare At Price',
  'Barcode',
  'Created At',
]
const rows = [
  [
    'cab-2019',
    'Cabernet 2019',
    'Wine',
    '<p>Dark fruit</p>',
    'CAB19-750',
    '750ml',
    '4500',
    '5000',
    barcode,
    '2019-09-01T12:00:00.000Z',
  ],
  // Shopify leaves the product's columns empty on its further variants.
  ['cab-2019', '', '', '', 'CAB19-1500', '1.5L', '9500', '', '', ''],
  ['logo-tee', 'Logo Tee', 'General Merchandise', '', 'TEE-S', 'Small', '2000', '', '', ''],
  ['logo-tee', 'Logo Tee', 'General Merchandise', '', 'TEE-M', 'Medium', '2000', '', '', ''],
]

async function product(slug: string) {
  const list = (await t.request('GET', '/product?limit=50')).body.products
  return list.find((p: any) => p.slug === slug)
}

describe('POST /imports (products)', () => {
  test('rows of one product make one product with its variants; createdAt kept; one audit entry per row; no events', async () => {
    const done = await imported(t, csv([header, ...rows]), { kind: 'products', mode: 'apply' })
    expect(done).toMatchObject({ state: 'succeeded', rowsRead: 4, rowsApplied: 4, rowsFailed: 0 })
    expect(countRows(t.tenant.db, 'products')).toBe(2)
    const cab = await product('cab-2019')
    expect(cab).toMatchObject({
      title: 'Cabernet 2019',
      type: 'Wine',
      content: '<p>Dark fruit</p>',
      createdAt: '2019-09-01T12:00:00.000Z',
    })
    expect(
      cab.variants.map((v: any) => [
        v.sku,
        v.title,
        v.price,
        v.comparePrice,
        v.upcCode,
        v.taxType,
        v.sortOrder,
      ]),
    ).toEqual([
      ['CAB19-750', '750ml', 4500, 5000, barcode, 'wine', 0],
      ['CAB19-1500', '1.5L', 9500, null, null, 'wine', 1],
    ])
    const tee = await product('logo-tee')
    expect(tee.variants.map((v: any) => v.sku)).toEqual(['TEE-S', 'TEE-M'])

    const entries = audit('product.import')
    expect(entries).toHaveLength(4)
    expect(entries.map((e) => e.entity_id)).toEqual([cab.id, cab.id, tee.id, tee.id])
    expect(JSON.parse(entries[0]!.metadata)).toMatchObject({
      importId: done.id,
      line: 2,
      outcome: 'created',
      sku: 'CAB19-750',
      changes: { product: { created: true }, variant: { created: true } },
    })
    // Each variant's entry names its product's first line.
    expect(JSON.parse(entries[1]!.metadata)).toMatchObject({
      line: 2,
      sku: 'CAB19-1500',
      changes: { variant: { created: true } },
    })
    expect(JSON.parse(entries[1]!.metadata).changes.product).toBeUndefined()
    expect(entries[0]!.staff_user_id).toBe(t.tenant.owner.id)
    expect(audit('product.create')).toEqual([])
    expect(events('product')).toEqual([])
  })

  test('applying the same file again changes nothing; a changed price is one update', async () => {
    const file = csv([header, ...rows])
    await imported(t, file, { kind: 'products', mode: 'apply' })
    const before = variants()
    const again = await imported(t, file, { kind: 'products', mode: 'apply' })
    expect(again).toMatchObject({ rowsApplied: 0, rowsUnchanged: 4, rowsFailed: 0 })
    expect(variants()).toEqual(before)
    expect(audit('product.import')).toHaveLength(4)

    const repriced = [...rows[1]!]
    repriced[6] = '8900'
    const changed = await imported(t, csv([header, repriced]), { kind: 'products', mode: 'apply' })
    expect(changed).toMatchObject({ rowsApplied: 1, rowsUnchanged: 0 })
    expect(JSON.parse(audit('product.import').at(-1)!.metadata)).toMatchObject({
      outcome: 'updated',
      changes: { variant: { price: { from: 9500, to: 8900 } } },
    })
    expect(countRows(t.tenant.db, 'product_variants')).toBe(4)
  })

  test('validate is a dry run: every row checked, nothing kept', async () => {
    const bad = ['bad', 'Bad', '', '', 'BAD-1', '', '12.50', '', '', '']
    const done = await imported(t, csv([header, ...rows, bad]), { kind: 'products' })
    expect(done).toMatchObject({ mode: 'validate', rowsRead: 5, rowsApplied: 4, rowsFailed: 1 })
    expect(countRows(t.tenant.db, 'products')).toBe(0)
    expect(countRows(t.tenant.db, 'product_variants')).toBe(0)
    expect(audit('product.import')).toEqual([])
  })

  test('NDJSON with our ids kept, and events when asked', async () => {
    const productId = '01a21ec9-0000-7000-8000-000000000001'
    const line = {
      productId,
      title: 'Rosé 2023',
      type: 'Wine',
      variants: [
        { sku: 'ROSE-23', price: 2800 },
        { sku: 'ROSE-23-MAG', title: 'Magnum', price: 6000, volumeInML: 1500 },
      ],
    }
    const done = await imported(
      t,
      JSON.stringify(line),
      { kind: 'products', mode: 'apply', emitEvents: 'true' },
      { fileType: 'application/x-ndjson', fileName: 'products.ndjson' },
    )
    // One line, one product: its two variants are one applied row.
    expect(done).toMatchObject({ format: 'ndjson', rowsRead: 1, rowsApplied: 1, rowsFailed: 0 })
    const rose = (await t.request('GET', `/product/${productId}`)).body
    expect(rose).toMatchObject({ slug: 'rose-2023', title: 'Rosé 2023' })
    expect(rose.variants.map((v: any) => [v.sku, v.title, v.volumeInML])).toEqual([
      ['ROSE-23', 'Default', null],
      ['ROSE-23-MAG', 'Magnum', 1500],
    ])
    expect(events('product')).toEqual(['create', 'update'])
  })
})

describe('per-row failures', () => {
  test('each failed row by line, field and reason; a failing row fails its product’s other rows, a row without a handle its neighbours', async () => {
    await imported(t, csv([header, rows[2]!]), { kind: 'products', mode: 'apply' })
    const file = csv([
      header,
      // The product's first row fails, so its other row is not applied either.
      ['new-wine', 'New Wine', 'Wine', '', 'NEW-750', '750ml', '45.00', '', '', ''],
      ['new-wine', '', '', '', 'NEW-1500', '1.5L', '9000', '', '', ''],
      ['neg', 'Negative', '', '', 'NEG-1', '', '-1', '', '', ''],
      ['huge', 'Huge', '', '', 'HUGE-1', '', '10000000001', '', '', ''],
      ['', 'No Handle', '', '', 'NOH-1', '', '100', '', '', ''],
      ['other', 'Other', '', '', 'TEE-S', '', '100', '', '', ''],
      ['shirt', 'Shirt', 'Shirts', '', 'SHIRT-1', '', '100', '', '', ''],
      ['card', 'Card', '', '4111 1111 1111 1111', 'CARD-1', '', '100', '', '', ''],
      ['BAD HANDLE', 'Bad', '', '', 'BAD-1', '', '100', '', '', ''],
      ['fine', 'Fine', '', '', 'FINE-1', '', '100', '', '', ''],
      // The rows of one product are applied as one: its second variant fails, so its first goes too.
      ['grouped', 'Grouped', '', '', 'GRP-1', '', '100', '', '', ''],
      ['grouped', '', '', '', 'TEE-S', '', '100', '', '', ''],
    ])
    const done = await imported(t, file, { kind: 'products', mode: 'apply' })
    expect(done).toMatchObject({ state: 'succeeded', rowsApplied: 1, rowsFailed: 11 })
    const errors = await importErrors(t, done.id)
    expect(lineAndField(errors)).toEqual([
      [2, 'variant.price'],
      [3, null],
      [4, 'variant.price'],
      // A row without a handle may have been a row of the product either side: they fail with it.
      [5, null],
      [6, 'slug'],
      [7, null],
      [8, 'type'],
      [9, 'content'],
      [10, 'slug'],
      [12, null],
      [13, 'variant.sku'],
    ])
    expect(errors[0].reason).toContain('whole number')
    expect(errors[1].reason).toBe('not applied: its record failed at line 2')
    expect(errors[3].reason).toContain('line 6 beside its rows could not be read')
    expect(errors[9].reason).toBe('not applied: its record failed at line 13')
    expect(errors[7].reason).toContain('card number')
    expect(JSON.stringify(errors)).not.toContain('4111')
    expect(
      (await t.request('GET', '/product?limit=50')).body.products.map((p: any) => p.slug).sort(),
    ).toEqual(['fine', 'logo-tee'])
    expect(countRows(t.tenant.db, 'product_variants')).toBe(2)
  })

  test('a variant named by id under another product’s handle fails; the SKU and the product stay', async () => {
    await imported(t, csv([header, ...rows]), { kind: 'products', mode: 'apply' })
    const tee = await product('logo-tee')
    const done = await imported(
      t,
      csv([
        ['Handle', 'Variant ID', 'SKU', 'Price'],
        ['cab-2019', tee.variants[0].id, 'TEE-S', '2000'],
      ]),
      { kind: 'products', mode: 'apply' },
    )
    expect(done).toMatchObject({ rowsApplied: 0, rowsFailed: 1 })
    expect(await importErrors(t, done.id)).toEqual([
      { line: 2, field: 'variant.id', reason: 'this is a variant of another product' },
    ])
    expect((await product('logo-tee')).variants).toEqual(tee.variants)
  })
})

describe('batches', () => {
  /** A row of one variant: handle, title, SKU and a price. */
  const row = (handle: string, title: string, sku: string) => [
    handle,
    title,
    '',
    '',
    sku,
    '',
    '100',
    '',
    '',
    '',
  ]
  /** Uploaded for applying, then stopped after its first batch (FIRST_BATCH_ROWS in service.ts, 50 rows). */
  async function stoppedAfterFirstBatch(file: string) {
    const res = await upload(t, file, { kind: 'products', mode: 'apply' })
    const stop = new AbortController()
    const working = workPendingImports(t.tenant.db, t.tenant.id, stop.signal)
    stop.abort()
    await working
    return res
  }

  test('a product’s rows are never split between two batches: a stop after the first keeps them together', async () => {
    const file = csv([
      header,
      ...Array.from({ length: 49 }, (_, i) => row(`p-${i}`, `P ${i}`, `SKU-${i}`)),
      // Lines 51 to 53: the first batch (FIRST_BATCH_ROWS in service.ts, 50 rows) ends inside them.
      row('big', 'Big', 'BIG-1'),
      row('big', '', 'BIG-2'),
      row('big', '', 'BIG-3'),
      ...Array.from({ length: 10 }, (_, i) => row(`q-${i}`, `Q ${i}`, `Q-${i}`)),
    ])
    const res = await stoppedAfterFirstBatch(file)
    expect((await t.request('GET', `/imports/${res.body.id}`)).body).toMatchObject({
      state: 'running',
      rowsRead: 52,
      rowsApplied: 52,
    })
    expect((await product('big')).variants.map((v: any) => v.sku)).toEqual(['BIG-1', 'BIG-2', 'BIG-3'])

    await t.platform.jobs.runNow(IMPORTS_JOB)
    expect((await t.request('GET', `/imports/${res.body.id}`)).body).toMatchObject({
      state: 'succeeded',
      rowsRead: 62,
      rowsApplied: 62,
      rowsFailed: 0,
    })
    expect(audit('product.import')).toHaveLength(62)
  })

  test('a product named again after the stop is still the same record named twice: refused, not applied', async () => {
    const file = csv([
      header,
      row('twice', 'Twice', 'TWICE-1'),
      ...Array.from({ length: 49 }, (_, i) => row(`p-${i}`, `P ${i}`, `SKU-${i}`)),
      // After the first batch (FIRST_BATCH_ROWS in service.ts, 50 rows), where the stop falls.
      ...Array.from({ length: 5 }, (_, i) => row(`q-${i}`, `Q ${i}`, `Q-${i}`)),
      row('twice', 'Twice again', 'TWICE-2'),
    ])
    const res = await stoppedAfterFirstBatch(file)
    expect((await t.request('GET', `/imports/${res.body.id}`)).body).toMatchObject({
      state: 'running',
      rowsRead: 50,
    })

    await t.platform.jobs.runNow(IMPORTS_JOB)
    expect((await t.request('GET', `/imports/${res.body.id}`)).body).toMatchObject({
      state: 'succeeded',
      rowsRead: 56,
      rowsApplied: 55,
      rowsFailed: 1,
    })
    const [error, ...more] = await importErrors(t, res.body.id)
    expect(more).toEqual([])
    expect(error).toMatchObject({ line: 57, field: 'slug' })
    expect(error.reason).toStartWith('line 2 names the same record')
    const skus = t.tenant.db.$client
      .query("SELECT sku FROM product_variants WHERE sku LIKE 'TWICE-%'")
      .all()
      .map((r: any) => r.sku)
    expect(skus).toEqual(['TWICE-1'])
  })
})

describe('security', () => {
  test('another tenant’s import of the same ids touches only its own catalogue; a location-bound manager is refused', async () => {
    const productId = '01a21ec9-0000-7000-8000-000000000002'
    const file = JSON.stringify({ productId, title: 'House Red', variants: [{ sku: 'RED-1', price: 1500 }] })
    const ndjson = { fileType: 'application/x-ndjson', fileName: 'p.ndjson' }
    await imported(t, file, { kind: 'products', mode: 'apply' }, ndjson)
    const other = await t.addTenant('other')
    const theirs = await imported(
      t,
      JSON.stringify({ productId, title: 'Their Red', variants: [{ sku: 'RED-1', price: 99 }] }),
      { kind: 'products', mode: 'apply' },
      { ...ndjson, as: other.owner, tenant: other },
    )
    expect(theirs).toMatchObject({ rowsApplied: 1, rowsFailed: 0 })
    expect((await t.request('GET', `/product/${productId}`)).body).toMatchObject({
      title: 'House Red',
      variants: [expect.objectContaining({ price: 1500 })],
    })
    expect(
      (await t.request('GET', `/product/${productId}`, { as: other.owner, tenant: other })).body,
    ).toMatchObject({ title: 'Their Red', variants: [expect.objectContaining({ price: 99 })] })

    const second = t.addLocation(t.tenant, { name: 'Second' })
    const bound = await t.addStaff(t.tenant, { role: 'manager', locationId: second.id })
    expect((await upload(t, file, { kind: 'products' }, { ...ndjson, as: bound })).status).toBe(403)
  })
})
