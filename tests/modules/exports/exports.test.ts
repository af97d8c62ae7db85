// Streaming exports: GET /exports/{kind} as CSV or NDJSON, every record once across pages,
// filtered by time, by the caller's locations and by the kind's read permission.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { parse } from 'csv-parse/sync'
import { countRows, createTestApp, type TestApp } from '../../harness'
import { openDrawer } from '../cash/helpers'
import { issueCard } from '../gift-cards/helpers'
import { csv, imported } from '../imports/helpers'
import { jobFor } from '../labor/helpers'
import { orderOf, pay } from '../payments/helpers'

let t: TestApp
beforeEach(async () => {
  t = await createTestApp()
})
afterEach(() => t.close())

const rowsOf = (text: string) => parse(text, { columns: true }) as Record<string, string>[]

async function ok(method: string, path: string, body?: unknown, as = t.tenant.owner) {
  const res = await t.request(method, path, { body, as })
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`)
  return res.body
}

const item = (title: string, unitPrice: number, quantity = 1) => ({
  lineType: 'open_item',
  openItemScope: 'food',
  title,
  unitPrice,
  quantity,
})

describe('GET /exports/customers', () => {
  test('CSV with a header, every customer once across pages, in creation order; NDJSON alike', async () => {
    const people = Array.from({ length: 1203 }, (_, i) => [
      `c-${i}`,
      'Guest',
      `N${i}`,
      `g${i}@example.com`,
      `2020-01-01T00:00:${String(i % 60).padStart(2, '0')}.000Z`,
    ])
    const done = await imported(
      t,
      csv([['External ID', 'First Name', 'Last Name', 'Email', 'Created At'], ...people]),
      {
        kind: 'customers',
        mode: 'apply',
      },
    )
    expect(done.rowsApplied).toBe(1203)

    const res = await t.request('GET', '/exports/customers')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8')
    expect(res.headers.get('content-disposition')).toMatch(
      /^attachment; filename="customers-\d{4}-\d\d-\d\d\.csv"$/,
    )
    const rows = rowsOf(res.text)
    expect(rows).toHaveLength(1203)
    expect(new Set(rows.map((r) => r.externalRef)).size).toBe(1203)
    const order = rows.map((r) => `${r.createdAt} ${r.id}`)
    expect(order).toEqual([...order].sort())
    expect(rows[0]).toMatchObject({ firstName: 'Guest', marketingOptIn: 'false', status: 'active' })

    const ndjson = await t.request(
      'GET',
      '/exports/customers?format=ndjson&from=2020-01-01T00:00:10.000Z&to=2020-01-01T00:00:20.000Z',
    )
    expect(ndjson.headers.get('content-type')).toBe('application/x-ndjson')
    const lines = ndjson.text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(lines.length).toBe(
      people.filter((p) => p[4]! >= '2020-01-01T00:00:10' && p[4]! < '2020-01-01T00:00:20').length,
    )
    expect(lines[0]).toMatchObject({ firstName: 'Guest', marketingOptIn: false })
  })

  test('a cell a spreadsheet would run as a formula is defused; no customers is a header alone', async () => {
    expect((await t.request('GET', '/exports/customers')).text.trim().split('\n')).toHaveLength(1)
    await ok('POST', '/customers', {
      firstName: '=HYPERLINK("http://x")',
      lastName: 'Doe',
      email: 'd@example.com',
    })
    const [row] = rowsOf((await t.request('GET', '/exports/customers')).text)
    expect(row!.firstName).toBe('\'=HYPERLINK("http://x")')
  })

  test('bad input and permission: 400 for to before from or a bad format, 403 without customers:read, nothing of another tenant', async () => {
    expect(
      (await t.request('GET', '/exports/customers?from=2020-02-01T00:00:00Z&to=2020-01-01T00:00:00Z')).status,
    ).toBe(400)
    expect((await t.request('GET', '/exports/customers?format=xlsx')).status).toBe(400)
    expect((await t.request('GET', '/exports/customers?from=yesterday')).status).toBe(400)
    await ok('POST', '/customers', { firstName: 'Mine', lastName: 'Only', email: 'mine@example.com' })
    const other = await t.addTenant('other')
    const theirs = await t.request('GET', '/exports/customers', { as: other.owner, tenant: other })
    expect(rowsOf(theirs.text)).toEqual([])
    const bare = await t.addStaff(t.tenant, { role: 'staff' })
    expect((await t.request('GET', '/exports/audit-log', { as: bare })).status).toBe(403)
  })
})

describe('GET /exports/orders', () => {
  test('one row per line with the order’s totals, only the caller’s locations, and GETs write nothing', async () => {
    const second = t.addLocation(t.tenant, { name: 'Second' })
    const here = await ok('POST', '/order', {
      locationId: t.tenant.locationId,
      lineItems: [item('Burger', 1500, 2), item('Fries', 500)],
    })
    const there = await ok('POST', '/order', { locationId: second.id, lineItems: [item('Wine', 1200)] })
    const rows = rowsOf((await t.request('GET', '/exports/orders')).text)
    expect(
      rows.map((r) => [r.orderId, r.lineTitle, r.lineQuantity, r.lineSubtotal, r.orderSubtotal]),
    ).toEqual(
      [
        [here.id, 'Burger', '2', '3000', '3500'],
        [here.id, 'Fries', '1', '500', '3500'],
        [there.id, 'Wine', '1', '1200', '1200'],
      ].sort((a, b) => (a[0]! < b[0]! ? -1 : a[0]! > b[0]! ? 1 : 0)),
    )

    const bound = await t.addStaff(t.tenant, { role: 'manager', locationId: second.id })
    const audits = countRows(t.tenant.db, 'audit_entries')
    const seen = rowsOf((await t.request('GET', '/exports/orders', { as: bound })).text)
    expect(seen.map((r) => r.orderId)).toEqual([there.id])
    const narrowed = await t.request('GET', '/exports/orders', {
      headers: { 'x-location-id': t.tenant.locationId },
    })
    expect(new Set(rowsOf(narrowed.text).map((r) => r.orderId))).toEqual(new Set([here.id]))
    const auditSeen = rowsOf((await t.request('GET', '/exports/audit-log', { as: bound })).text)
    expect(auditSeen.every((r) => r.locationId === '' || r.locationId === second.id)).toBe(true)
    expect(countRows(t.tenant.db, 'audit_entries')).toBe(audits)
  })
})

describe('GET /exports/payments, /exports/gift-card-ledger, /exports/shifts', () => {
  test('each streams its records and needs its own read permission', async () => {
    await openDrawer(t, { startingBalance: 10_000 })
    const order = await orderOf(t, 2500)
    const paid = await pay(t, order.id, { tender: 'cash', amount: 2500 })
    expect(paid.status).toBe(201)
    const payments = rowsOf((await t.request('GET', '/exports/payments')).text)
    expect(payments.map((p) => [p.orderId, p.tender, p.amount])).toEqual([[order.id, 'cash', '2500']])

    const card = await issueCard(t, 4000)
    const ledger = rowsOf((await t.request('GET', '/exports/gift-card-ledger?format=csv')).text)
    expect(
      ledger
        .filter((e) => e.giftCardId === card.id)
        .map((e) => Number(e.amountDelta))
        .reduce((a, b) => a + b, 0),
    ).toBe(4000)
    expect((await t.request('GET', '/exports/gift-card-ledger', { as: t.tenant.staff })).status).toBe(403)

    const { job } = await jobFor(t, t.tenant.staff)
    await ok(
      'POST',
      '/labor/shifts/clock-in',
      { laborJobId: job.id, locationId: t.tenant.locationId },
      t.tenant.staff,
    )
    const shifts = rowsOf((await t.request('GET', '/exports/shifts')).text)
    expect(shifts.map((s) => [s.staffUserId, s.status])).toEqual([[t.tenant.staff.id, 'active']])
    const other = await t.addTenant('other')
    expect(
      rowsOf((await t.request('GET', '/exports/shifts', { as: other.owner, tenant: other })).text),
    ).toEqual([])
  })
})
