// Bulk imports of closed orders as history: a CSV of one row per line item grouped by the order's
// externalRef, or NDJSON nesting lines and payments; an order lands whole or not at all, a second
// apply changes nothing, totals are the lines' (given ones checked), and none of a live sale's
// consequences follow, while the reports count the orders.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { ERA_JOB } from '../../../src/modules/era/jobs'
import { countRows, createTestApp, type TestApp } from '../../harness'
import { openDrawer } from '../cash/helpers'
import { act } from '../payments/helpers'
import { csv, importErrors, imported, lineAndField } from './helpers'

let t: TestApp
beforeEach(async () => {
  t = await createTestApp()
})
afterEach(() => t.close())

const atMain = () => ({ headers: { 'x-location-id': t.tenant.locationId } })

const header = [
  'Order Number',
  'Created At',
  'Closed At',
  'Customer Number',
  'Lineitem name',
  'Lineitem sku',
  'Lineitem quantity',
  'Lineitem price',
  'Lineitem discount',
  'Tax Rate Bps',
  'Total',
  'Payment Method',
  'Payment Reference',
  'Card Brand',
  'Last4',
  'Payment Tip',
]
// W-1001: (2 × 4500 − 500 + 701 tax) + (2500 + 206 tax) + 300 tip = 12207. W-1002: 2800, cash.
const rows = [
  [
    'W-1001',
    '2022-05-01T18:00:00.000Z',
    '2022-05-01T19:30:00.000Z',
    'c-1',
    'Cabernet 2021',
    'CAB21',
    '2',
    '4500',
    '500',
    '825',
    '12207',
    'card',
    'pi_123',
    'Visa',
    '4242',
    '300',
  ],
  ['W-1001', '', '', '', 'Tasting fee', '', '1', '2500', '0', '825', '', '', '', '', '', ''],
  [
    'W-1002',
    '2022-06-10T12:00:00.000Z',
    '',
    '',
    'Rose 2023',
    '',
    '1',
    '2800',
    '',
    '0',
    '2800',
    'cash',
    '',
    '',
    '',
    '',
  ],
]

const audit = (action: string) =>
  t.tenant.db.$client
    .query<{ entity_id: string; metadata: string }, [string]>(
      'SELECT entity_id, metadata FROM audit_entries WHERE action = ? ORDER BY seq',
    )
    .all(action)
    .map((entry) => ({ entityId: entry.entity_id, ...JSON.parse(entry.metadata) }))

const outbox = (object: string) =>
  t.tenant.db.$client
    .query(`SELECT action FROM outbox_events WHERE object = '${object}' ORDER BY rowid`)
    .all()

async function importCustomer() {
  const done = await imported(
    t,
    csv([
      ['External ID', 'First Name', 'Last Name', 'Email'],
      ['c-1', 'Ada', 'Lovelace', 'ada@example.com'],
    ]),
    { kind: 'customers', mode: 'apply' },
  )
  expect(done).toMatchObject({ rowsApplied: 1 })
}

async function orderByRef(ref: string) {
  const list = (await t.request('GET', '/order?limit=100')).body.orders
  return list.find((o: any) => o.externalRef === ref)
}

describe('POST /imports (orders)', () => {
  test('CSV: each order closed with its lines and payments, its times kept, its customer found; one audit entry per order; no side effects', async () => {
    await importCustomer()
    const done = await imported(t, csv([header, ...rows]), { kind: 'orders', mode: 'apply' }, atMain())
    expect(done).toMatchObject({ state: 'succeeded', rowsRead: 3, rowsApplied: 3, rowsFailed: 0 })

    const customer = (await t.request('GET', '/customers?limit=10')).body.customers[0]
    const first = await orderByRef('W-1001')
    expect(first).toMatchObject({
      status: 'closed',
      importId: done.id,
      locationId: t.tenant.locationId,
      customerId: customer.id,
      customerName: 'Ada Lovelace',
      source: 'import',
      createdAt: '2022-05-01T18:00:00.000Z',
      closedAt: '2022-05-01T19:30:00.000Z',
      paidAt: '2022-05-01T19:30:00.000Z',
      subtotal: 11500,
      discountTotal: 500,
      taxTotal: 907,
      includedTaxTotal: 0,
      tipTotal: 300,
      total: 12207,
      amountPaid: 12207,
      balanceDue: 0,
    })
    expect(
      first.lineItems.map((l: any) => [
        l.title,
        l.sku,
        l.quantity,
        l.subtotal,
        l.discountAmount,
        l.taxAmount,
        l.total,
      ]),
    ).toEqual([
      ['Cabernet 2021', 'CAB21', 2, 9000, 500, 701, 9201],
      ['Tasting fee', null, 1, 2500, 0, 206, 2706],
    ])
    const payments = (await t.request('GET', `/order/${first.id}/payments`)).body.payments
    expect(payments).toHaveLength(1)
    expect(payments[0]).toMatchObject({
      id: first.paymentIntentIds[0],
      tender: 'card',
      status: 'captured',
      amount: 11907,
      tipAmount: 300,
      providerPaymentId: 'pi_123',
      cardBrand: 'Visa',
      cardLast4: '4242',
      capturedAt: '2022-05-01T19:30:00.000Z',
    })
    const second = await orderByRef('W-1002')
    expect(second).toMatchObject({ total: 2800, closedAt: '2022-06-10T12:00:00.000Z', customerId: null })

    const entries = audit('order.import')
    expect(entries.map((e) => [e.entityId, e.line, e.outcome, e.importId])).toEqual([
      [first.id, 2, 'created', done.id],
      [second.id, 4, 'created', done.id],
    ])
    expect(entries[0].paymentIntentIds).toEqual(first.paymentIntentIds)
    // History, not a sale: no events, no stock taken, no drawer entry, no gift card touched.
    expect(outbox('order')).toEqual([])
    expect(outbox('payment')).toEqual([])
    expect(countRows(t.tenant.db, 'inventory_movements')).toBe(0)
    expect(countRows(t.tenant.db, 'cash_drawer_entries')).toBe(0)
    expect(countRows(t.tenant.db, 'gift_card_transactions')).toBe(0)
  })

  test('the reports count imported orders (ERA metrics over their days)', async () => {
    await imported(
      t,
      csv([header, ...rows.map((r) => r.with(3, ''))]),
      { kind: 'orders', mode: 'apply' },
      atMain(),
    )
    const posted = await t.request('POST', '/era/v1/metrics', {
      body: { startBusinessDate: '2022-04-30', endBusinessDate: '2022-06-11' },
    })
    expect(posted.status).toBe(200)
    await t.platform.jobs.runNow(ERA_JOB)
    const report = (await t.request('GET', `/era/v1/metrics/${posted.body}`)).body as any[]
    const sum = (key: string) => report.reduce((total, row) => total + row[key], 0)
    expect(sum('ordersCount')).toBe(2)
    expect(sum('netSalesAmount')).toBe(8500 + 2500 + 2800)
    expect(sum('tipAmount')).toBe(300)
  })

  test('NDJSON nesting lines and payments: validate keeps nothing, apply lands the order; a nested value that is not plain fails its line', async () => {
    const order = {
      externalRef: 'N-1',
      createdAt: '2023-02-14T20:00:00.000Z',
      closedAt: '2023-02-14T22:00:00.000Z',
      source: 'pos',
      seatCount: 2,
      // 6000 with 10% Included (545), and 1800 with 150 Added: 7950 before the 1000 tip.
      lineItems: [
        {
          title: 'Tasting flight',
          quantity: 2,
          unitPrice: 3000,
          taxRateBps: 1000,
          taxCalculation: 'Included',
        },
        { title: 'Cheese plate', quantity: 1, unitPrice: 1800, taxAmount: 150 },
      ],
      payments: [
        { tender: 'gift_card', amount: 2000 },
        { tender: 'card', amount: 5950, tipAmount: 1000, providerPaymentId: 'ch_1', cardLast4: '1111' },
      ],
      total: 8950,
    }
    const broken = {
      externalRef: 'N-2',
      createdAt: '2023-02-15T20:00:00.000Z',
      lineItems: [{ title: 'Odd', quantity: 1, unitPrice: 100, extra: { deep: true } }],
    }
    const file = `${JSON.stringify(order)}\n${JSON.stringify(broken)}\n`
    const options = { ...atMain(), fileName: 'orders.ndjson', fileType: 'application/x-ndjson' }

    const dry = await imported(t, file, { kind: 'orders', mode: 'validate' }, options)
    expect(dry).toMatchObject({ format: 'ndjson', rowsRead: 2, rowsApplied: 1, rowsFailed: 1 })
    expect(countRows(t.tenant.db, 'orders')).toBe(0)
    expect(countRows(t.tenant.db, 'payment_intents')).toBe(0)
    expect(audit('order.import')).toEqual([])
    expect(await importErrors(t, dry.id)).toEqual([
      { line: 2, field: 'lineItems.0.extra', reason: 'must be a string, number, boolean or null' },
    ])

    const done = await imported(t, file, { kind: 'orders', mode: 'apply' }, options)
    expect(done).toMatchObject({ rowsApplied: 1, rowsFailed: 1 })
    const landed = await orderByRef('N-1')
    expect(landed).toMatchObject({
      source: 'pos',
      seatCount: 2,
      subtotal: 7800,
      taxTotal: 695,
      includedTaxTotal: 545,
      tipTotal: 1000,
      total: 8950,
      amountPaid: 8950,
      balanceDue: 0,
    })
    expect(landed.lineItems.map((l: any) => [l.taxCalculation, l.taxAmount, l.total])).toEqual([
      ['Included', 545, 6000],
      ['Added', 150, 1950],
    ])
    const payments = (await t.request('GET', `/order/${landed.id}/payments`)).body.payments
    expect(payments.map((p: any) => [p.tender, p.amount, p.tipAmount, p.providerPaymentId])).toEqual([
      ['gift_card', 2000, 0, null],
      ['card', 5950, 1000, 'ch_1'],
    ])
  })

  test('applying again changes nothing; a corrected order is replaced whole, with its events when asked', async () => {
    const file = csv([header, ...rows.map((r) => r.with(3, ''))])
    await imported(t, file, { kind: 'orders', mode: 'apply' }, atMain())
    const before = await orderByRef('W-1002')
    const again = await imported(t, file, { kind: 'orders', mode: 'apply' }, atMain())
    expect(again).toMatchObject({ rowsRead: 3, rowsApplied: 0, rowsUnchanged: 3, rowsFailed: 0 })
    expect(audit('order.import')).toHaveLength(2)
    expect(countRows(t.tenant.db, 'payment_intents')).toBe(2)
    expect(countRows(t.tenant.db, 'order_lines')).toBe(3)

    const corrected = csv([
      header,
      ...rows.slice(0, 2).map((r) => r.with(3, '')),
      rows[2]!.with(7, '3000').with(10, '3000'),
    ])
    const fixed = await imported(
      t,
      corrected,
      { kind: 'orders', mode: 'apply', emitEvents: 'true' },
      atMain(),
    )
    expect(fixed).toMatchObject({ rowsApplied: 1, rowsUnchanged: 2 })
    const after = await orderByRef('W-1002')
    expect(after).toMatchObject({
      id: before.id,
      orderNumber: before.orderNumber,
      total: 3000,
      importId: fixed.id,
    })
    expect(after.lineItems.map((l: any) => l.unitPrice)).toEqual([3000])
    const payments = (await t.request('GET', `/order/${after.id}/payments`)).body.payments
    expect(payments.map((p: any) => p.amount)).toEqual([3000])
    expect(countRows(t.tenant.db, 'payment_intents')).toBe(2)
    const last = audit('order.import').at(-1)
    expect(last).toMatchObject({
      entityId: after.id,
      outcome: 'updated',
      changes: { total: { from: 2800, to: 3000 } },
    })
    expect(outbox('order')).toEqual([{ action: 'update' }])
  })

  test('a refund since (the payments route) keeps the imported amounts, and a re-import keeps the refund; a changed order is refused', async () => {
    // W-1001 paid in cash this time, so that the refund goes through a drawer.
    const cashRows = rows.map((r) =>
      r
        .with(3, '')
        .with(11, r[11] ? 'cash' : '')
        .with(12, '')
        .with(13, '')
        .with(14, ''),
    )
    await imported(t, csv([header, ...cashRows]), { kind: 'orders', mode: 'apply' }, atMain())
    const order = await orderByRef('W-1001')
    await openDrawer(t)
    const refunded = await act(t, order.id, order.paymentIntentIds[0], 'refund', { amount: 1000 })
    expect(refunded.status).toBe(200)
    const after = (await t.request('GET', `/order/${order.id}`)).body
    // The line discount (500) has no applied discount behind it: repricing would have dropped it.
    expect(after).toMatchObject({
      status: 'closed',
      discountTotal: 500,
      total: 12207,
      amountPaid: 11207,
      balanceDue: 1000,
    })
    expect(after.lineItems.map((l: any) => l.discountAmount)).toEqual([500, 0])

    const again = await imported(t, csv([header, ...cashRows]), { kind: 'orders', mode: 'apply' }, atMain())
    expect(again).toMatchObject({ rowsUnchanged: 3, rowsFailed: 0 })
    expect((await t.request('GET', `/order/${order.id}`)).body).toMatchObject({
      amountPaid: 11207,
      balanceDue: 1000,
    })
    const changed = cashRows.slice(0, 2).map((r) => r.with(7, r[7] === '4500' ? '4600' : r[7]!).with(10, ''))
    const refused = await imported(t, csv([header, ...changed]), { kind: 'orders', mode: 'apply' }, atMain())
    expect(refused).toMatchObject({ rowsApplied: 0, rowsFailed: 2 })
    const errors = await importErrors(t, refused.id)
    expect(errors[0]).toMatchObject({
      line: 2,
      reason: expect.stringContaining('was refunded since it was imported'),
    })
    expect((await t.request('GET', `/order/${order.id}`)).body).toMatchObject({
      total: 12207,
      amountPaid: 11207,
    })
  })

  test('an imported payment that names no card, or another provider’s payment, is not refunded: 409, nothing changes', async () => {
    const order = (ref: string, payment: Record<string, unknown>) => ({
      externalRef: ref,
      createdAt: '2023-01-01T10:00:00.000Z',
      lineItems: [{ title: 'Wine', quantity: 1, unitPrice: 2000 }],
      payments: [payment],
    })
    const file = [
      order('G-1', { tender: 'gift_card' }),
      order('G-2', { tender: 'card', provider: 'square', providerPaymentId: 'sq_1' }),
      order('G-3', { tender: 'card' }),
    ]
      .map((o) => JSON.stringify(o))
      .join('\n')
    await imported(t, file, { kind: 'orders', mode: 'apply' }, { ...atMain(), fileName: 'orders.ndjson' })
    for (const ref of ['G-1', 'G-2', 'G-3']) {
      const landed = await orderByRef(ref)
      const refund = await act(t, landed.id, landed.paymentIntentIds[0], 'refund', { amount: 500 })
      expect(refund.status).toBe(409)
      expect(refund.body.detail).toContain('imported')
      expect((await t.request('GET', `/order/${landed.id}`)).body).toMatchObject({
        amountPaid: 2000,
        balanceDue: 0,
      })
    }
    expect(countRows(t.tenant.db, 'payment_refunds')).toBe(0)
  })

  test('failures name line, field and reason; an order whose rows fail leaves nothing, nor does one beside an unreadable row', async () => {
    const head = [
      'Order Number',
      'Created At',
      'Lineitem name',
      'Lineitem quantity',
      'Lineitem price',
      'Total',
      'Payment Method',
      'Payment Amount',
    ]
    const done = await imported(
      t,
      csv([
        head,
        ['X-1', '2022-01-01T10:00:00.000Z', 'Merlot', '1', '3000', '3100', 'cash', ''],
        ['X-1', '', 'Glass', '1', '0', '', '', ''],
        ['X-2', '2022-01-02T10:00:00.000Z', 'Syrah', 'x', '3000', '', 'cash', ''],
        ['X-2', '', 'Glass', '1', '500', '', '', ''],
        ['X-3', '2022-01-03T10:00:00.000Z', 'Pinot', '1', '4000', '', 'cash', '3000'],
        ['X-4', '2022-01-04T10:00:00.000Z', 'Riesling', '2', '1500', '3000', 'cash', ''],
        ['X-5', '2022-01-05T10:00:00.000Z', 'Zin', '1', '2000', '', 'cash', ''],
        ['X-5', '', 'Zin', '1', '2000', '', '', '', 'extra'],
        ['X-5', '', 'Port', '1', '900', '', '', ''],
        ['X-4', '2022-01-04T10:00:00.000Z', 'Riesling', '2', '1500', '3000', 'cash', ''],
      ]),
      { kind: 'orders', mode: 'apply' },
      atMain(),
    )
    expect(done).toMatchObject({ state: 'succeeded', rowsRead: 10, rowsApplied: 1, rowsFailed: 9 })
    const errors = await importErrors(t, done.id)
    expect(lineAndField(errors)).toEqual([
      [2, 'total'],
      [3, null],
      [4, 'line.quantity'],
      [5, null],
      [6, 'payment1.amount'],
      [8, null],
      [9, null],
      [10, null],
      [11, 'externalRef'],
    ])
    expect(errors[0].reason).toBe("is 3100 but the order's lines, shipping and payments make 3000")
    expect(errors[1].reason).toBe('not applied: its record failed at line 2')
    expect(errors[2].reason).toContain('whole number')
    expect(errors[4].reason).toContain('a closed order is paid in full')
    expect(errors[5].reason).toContain('line 9 beside its rows could not be read')
    expect(errors[8].reason).toContain('line 7 names the same record')
    // Only X-4 landed, whole; nothing of the others, not even a line or a payment.
    expect(countRows(t.tenant.db, 'orders')).toBe(1)
    expect(countRows(t.tenant.db, 'order_lines')).toBe(1)
    expect(countRows(t.tenant.db, 'payment_intents')).toBe(1)
    expect(audit('order.import').map((e) => e.line)).toEqual([7])
  })

  test('an order is never split between batches: 20 orders of 3 rows across the first batch of 50 land whole', async () => {
    const head = [
      'Order Number',
      'Created At',
      'Lineitem name',
      'Lineitem quantity',
      'Lineitem price',
      'Payment Method',
    ]
    const lines = Array.from({ length: 20 }, (_, n) =>
      ['A', 'B', 'C'].map((item) => [`B-${n}`, '2022-03-01T10:00:00.000Z', item, '1', '100', 'cash']),
    ).flat()
    const done = await imported(t, csv([head, ...lines]), { kind: 'orders', mode: 'apply' }, atMain())
    expect(done).toMatchObject({ rowsRead: 60, rowsApplied: 60, rowsFailed: 0 })
    const counts = t.tenant.db.$client
      .query<{ n: number }, []>('SELECT count(*) AS n FROM order_lines GROUP BY order_id')
      .all()
      .map((row) => row.n)
    expect(counts).toEqual(Array(20).fill(3))
    expect(audit('order.import').map((e) => e.line)).toEqual(Array.from({ length: 20 }, (_, n) => 2 + 3 * n))
  })

  test('a card number nested in an NDJSON order fails it, naming its column, and is kept nowhere', async () => {
    const order = {
      externalRef: 'C-1',
      createdAt: '2023-01-01T10:00:00.000Z',
      lineItems: [{ title: 'Wine', quantity: 1, unitPrice: 100 }],
      payments: [{ tender: 'card', cardNumber: '4242 4242 4242 4242' }],
    }
    const done = await imported(
      t,
      `${JSON.stringify(order)}\n`,
      { kind: 'orders', mode: 'apply' },
      {
        ...atMain(),
        fileName: 'orders.ndjson',
      },
    )
    expect(done).toMatchObject({ rowsApplied: 0, rowsFailed: 1 })
    const errors = await importErrors(t, done.id)
    expect(errors).toEqual([
      { line: 1, field: 'payment1.cardNumber', reason: expect.stringContaining('card number') },
    ])
    expect(countRows(t.tenant.db, 'orders')).toBe(0)
    const dump = t.tenant.db.$client.query('SELECT metadata FROM audit_entries').all()
    expect(JSON.stringify(dump)).not.toContain('4242')
  })

  test('location: it must exist and lie where the import was sent; an order taken here is never changed; scope hides the rest', async () => {
    const second = t.addLocation(t.tenant, { name: 'Tasting room' })
    const live = await t.request('POST', '/order', { body: { locationId: t.tenant.locationId } })
    expect(live.status).toBe(201)
    const head = [
      'Order Number',
      'Order ID',
      'Location',
      'Created At',
      'Lineitem name',
      'Lineitem quantity',
      'Lineitem price',
      'Payment Method',
    ]
    const file = csv([
      head,
      ['L-1', '', second.id, '2022-01-01T10:00:00.000Z', 'Wine', '1', '1000', 'cash'],
      ['L-2', '', 'no-such-location', '2022-01-01T10:00:00.000Z', 'Wine', '1', '1000', 'cash'],
      ['L-3', '', '', '2022-01-01T10:00:00.000Z', 'Wine', '1', '1000', 'cash'],
      ['L-4', live.body.id, '', '2022-01-01T10:00:00.000Z', 'Wine', '1', '1000', 'cash'],
    ])
    const atMainOnly = await imported(t, file, { kind: 'orders', mode: 'apply' }, atMain())
    expect(atMainOnly).toMatchObject({ rowsApplied: 1, rowsFailed: 3 })
    const errors = await importErrors(t, atMainOnly.id)
    expect(lineAndField(errors)).toEqual([
      [2, 'locationId'],
      [3, 'locationId'],
      [5, 'id'],
    ])
    expect(errors[0].reason).toContain('x-location-id')
    expect((await t.request('GET', `/order/${live.body.id}`)).body).toMatchObject({
      status: 'draft',
      importId: null,
    })

    // Sent tenant-wide, a row must name its location; one at another location lands there.
    const tenantWide = await imported(t, file, { kind: 'orders', mode: 'apply' })
    const wideErrors = await importErrors(t, tenantWide.id)
    expect(lineAndField(wideErrors)).toEqual([
      [3, 'locationId'],
      [4, 'locationId'],
      [5, 'id'],
    ])
    expect(wideErrors[1].reason).toContain('give locationId')
    const atSecond = await orderByRef('L-1')
    expect(atSecond.locationId).toBe(second.id)

    // Sent at the main location, a row naming none does not reach L-1 where it is.
    const moved = await imported(
      t,
      csv([head, ['L-1', '', '', '2022-01-01T10:00:00.000Z', 'Wine', '1', '1000', 'cash']]),
      { kind: 'orders', mode: 'apply' },
      atMain(),
    )
    expect(await importErrors(t, moved.id)).toEqual([
      { line: 2, field: 'externalRef', reason: "names an order at another location than the import's" },
    ])
    expect((await orderByRef('L-1')).locationId).toBe(second.id)

    const bound = await t.addStaff(t.tenant, { role: 'manager', locationId: second.id })
    const atFirst = await orderByRef('L-3')
    expect((await t.request('GET', `/order/${atFirst.id}`, { as: bound })).status).toBe(404)
    expect((await t.request('GET', `/order/${atSecond.id}`, { as: bound })).status).toBe(200)
  })
})
