// ERA analytics: report requests computed in the background (202 then 200), checked figure by
// figure against a small hand-made set of orders and shifts at two locations in two time zones.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { ERA_JOB } from '../../../src/modules/era/jobs'
import { recordOrderPayment } from '../../../src/modules/orders/lifecycle'
import { systemActor } from '../../../src/platform/foundation/actor'
import { countRows, createTestApp, type TestApp } from '../../harness'
import { jobFor, ok } from '../labor/helpers'

let t: TestApp
let ny: string
beforeEach(async () => {
  t = await createTestApp()
  ny = t.addLocation(t.tenant, {
    name: 'Manhattan',
    timezone: 'America/New_York',
  }).id
})
afterEach(() => t.close())

const sql = (query: string, ...params: (string | number)[]) => t.tenant.db.$client.query(query).run(...params)

const item = (title: string, unitPrice: number, quantity = 1) => ({
  lineType: 'open_item',
  openItemScope: 'food',
  title,
  unitPrice,
  quantity,
})

/** An order opened at `createdAt` (UTC), submitted. */
async function order(createdAt: string, lineItems: unknown[], extra: Record<string, unknown> = {}) {
  const created = await ok(t, 'POST', '/order', { locationId: t.tenant.locationId, lineItems, ...extra })
  await ok(t, 'POST', `/order/${created.id}/submit`)
  sql('UPDATE orders SET created_at = ? WHERE id = ?', createdAt, created.id)
  return created
}

async function shift(
  staff: any,
  jobId: string,
  clockIn: string,
  clockOut: string,
  businessDate: string,
  unpaidBreak?: [string, string],
) {
  const s = await ok(
    t,
    'POST',
    '/labor/shifts/clock-in',
    { laborJobId: jobId, locationId: t.tenant.locationId },
    staff,
  )
  if (unpaidBreak) {
    const b = await ok(t, 'POST', `/labor/shifts/${s.id}/breaks`, {}, staff)
    sql(
      'UPDATE labor_shift_breaks SET started_at = ?, ended_at = ? WHERE id = ?',
      ...unpaidBreak,
      b.breaks[0].id,
    )
    await ok(t, 'POST', `/labor/shifts/${s.id}/breaks/end`, undefined, staff)
  }
  await ok(t, 'POST', `/labor/shifts/${s.id}/clock-out`, undefined, staff)
  sql(
    'UPDATE labor_shifts SET clock_in_at = ?, clock_out_at = ?, business_date = ? WHERE id = ?',
    clockIn,
    clockOut,
    businessDate,
    s.id,
  )
  if (unpaidBreak)
    sql('UPDATE labor_shift_breaks SET started_at = ?, ended_at = ? WHERE shift_id = ?', ...unpaidBreak, s.id)
}

/** The hand-made week: Main is in Los Angeles (UTC−8 in early March), Manhattan in New York. */
async function handMade() {
  // O1, 1 March: 2 burgers and fries, 2 guests, paid with a 3.00 tip.
  const o1 = await order('2025-03-01T20:00:00.000Z', [item('Burger', 1500, 2), item('Fries', 500)], {
    seatCount: 2,
  })
  recordOrderPayment(t.tenant.db, systemActor(t.tenant.id, 'payments'), {
    orderId: o1.id,
    paymentIntentId: 'pi_1',
    amount: 3500,
    tipAmount: 300,
  })
  // O2, 1 March 21:00 in LA (2 March in UTC): a burger voided after it was sent, and a salad.
  const o2 = await order('2025-03-02T05:00:00.000Z', [item('Burger', 1500), item('Salad', 900)])
  await ok(t, 'POST', `/order/${o2.id}/line/${o2.lineItems[0].id}/void`, { voidReasonName: 'Kitchen error' })
  // O3, 2 March: fries twice, then the whole order voided.
  const o3 = await order('2025-03-02T19:00:00.000Z', [item('Fries', 500, 2)])
  await ok(t, 'POST', `/order/${o3.id}/void`, { voidReasonName: 'Walked out' })
  // O4, 1 March 23:30 in LA: a salad with 10% off.
  await ok(t, 'POST', '/coupon', {
    title: 'Ten off',
    code: 'TENOFF',
    productDiscountType: 'Percentage Off',
    productDiscount: 1000,
  })
  const o4 = await order('2025-03-02T07:30:00.000Z', [item('Salad', 900)])
  await ok(t, 'POST', `/order/${o4.id}/discount`, { couponCode: 'TENOFF' })
  // A draft on 1 March is not a sale.
  const draft = await ok(t, 'POST', '/order', {
    locationId: t.tenant.locationId,
    lineItems: [item('Burger', 1500)],
  })
  sql('UPDATE orders SET created_at = ? WHERE id = ?', '2025-03-01T21:00:00.000Z', draft.id)
  // Manhattan, 1 March 23:00 in New York (2 March 04:00 UTC): a glass of wine.
  const wine = await ok(t, 'POST', '/order', { locationId: ny, lineItems: [item('Wine', 1200)] })
  await ok(t, 'POST', `/order/${wine.id}/submit`)
  sql('UPDATE orders SET created_at = ? WHERE id = ?', '2025-03-02T04:00:00.000Z', wine.id)
  // Outside the range: 3 March in LA.
  await order('2025-03-03T20:00:00.000Z', [item('Burger', 1500)])

  // Labor, 1 March: a server 08:00–16:30 with a 30-minute unpaid break at 18.00/h (8 h = 144.00),
  // a manager 4 h at 30.00/h on a job excluded from the labor summary.
  const server = await jobFor(t, t.tenant.staff, { title: 'Server', defaultWageAmount: 1800 })
  await shift(
    t.tenant.staff,
    server.job.id,
    '2025-03-01T16:00:00.000Z',
    '2025-03-02T00:30:00.000Z',
    '2025-03-01',
    ['2025-03-01T20:00:00.000Z', '2025-03-01T20:30:00.000Z'],
  )
  const manager = await jobFor(t, t.tenant.manager, {
    title: 'Manager',
    defaultWageAmount: 3000,
    excludeFromLaborSummary: true,
  })
  await shift(
    t.tenant.manager,
    manager.job.id,
    '2025-03-01T17:00:00.000Z',
    '2025-03-01T21:00:00.000Z',
    '2025-03-01',
  )
  return { server, manager }
}

async function report(kind: string, path: string, body: unknown) {
  const posted = await t.request('POST', `/era/v1/${kind}${path}`, { body })
  expect(posted.status).toBe(200)
  expect(posted.headers.get('content-type')).toContain('application/json')
  const id = posted.body as string
  expect(typeof id).toBe('string')
  const pending = await t.request('GET', `/era/v1/${kind}/${id}`)
  expect(pending.status).toBe(202)
  expect(pending.body).toMatchObject({ reportRequestId: id, status: 'pending' })
  expect(pending.headers.get('retry-after')).toBe('1')
  await t.platform.jobs.runNow(ERA_JOB)
  const done = await t.request('GET', `/era/v1/${kind}/${id}`)
  expect(done.status).toBe(200)
  return done.body as any[]
}

const range = { startBusinessDate: '2025-03-01', endBusinessDate: '2025-03-02' }

describe('ERA metrics against hand-made orders and shifts', () => {
  test('by day and restaurant', async () => {
    await handMade()
    const rows = await report('metrics', '/day', range)
    const main1 = rows.find((r) => r.restaurantGuid === t.tenant.locationId && r.periodStart === '2025-03-01')
    expect(main1).toEqual({
      restaurantGuid: t.tenant.locationId,
      periodStart: '2025-03-01',
      periodEnd: '2025-03-01',
      // O1 3500 + O2 900 + O4 900 − 90
      netSalesAmount: 5210,
      grossSalesAmount: 5300,
      discountAmount: 90,
      taxAmount: 0,
      tipAmount: 300,
      ordersCount: 3,
      guestCount: 4,
      voidOrdersCount: 0,
      voidItemsCount: 1,
      voidAmount: 1500,
      hourlyJobTotalPay: 14_400,
      avgOrderValue: 1737, // 5210 / 3 = 1736.67
      avgGuestAmount: 1303, // 5210 / 4 = 1302.5, half-up
      hourlyJobTotalHours: 8,
      laborCostPercentBps: 27_639, // 14400 / 5210
    })
    const main2 = rows.find((r) => r.restaurantGuid === t.tenant.locationId && r.periodStart === '2025-03-02')
    expect(main2).toMatchObject({
      netSalesAmount: 0,
      ordersCount: 0,
      voidOrdersCount: 1,
      voidItemsCount: 2,
      voidAmount: 1000,
      avgOrderValue: null,
      hourlyJobTotalHours: 0,
      laborCostPercentBps: null,
    })
    const ny1 = rows.find((r) => r.restaurantGuid === ny && r.periodStart === '2025-03-01')
    expect(ny1).toMatchObject({ netSalesAmount: 1200, ordersCount: 1, guestCount: 1, hourlyJobTotalPay: 0 })
    expect(rows).toHaveLength(4)
  })

  test('custom range, one restaurant, and restaurants added together', async () => {
    await handMade()
    const [main] = await report('metrics', '', { ...range, restaurantIds: [t.tenant.locationId] })
    expect(main).toMatchObject({
      restaurantGuid: t.tenant.locationId,
      periodStart: '2025-03-01',
      periodEnd: '2025-03-02',
      netSalesAmount: 5210,
      ordersCount: 3,
      voidOrdersCount: 1,
      voidAmount: 2500,
    })
    const all = await report('metrics', '/month', { ...range, groupBy: [] })
    expect(all).toHaveLength(1)
    expect(all[0]).toMatchObject({
      restaurantGuid: null,
      periodStart: '2025-03-01',
      periodEnd: '2025-03-02',
      netSalesAmount: 6410,
      ordersCount: 4,
    })
  })
})

describe('ERA check, labor and menu reports', () => {
  test('checks: one row per submitted order, voided ones flagged', async () => {
    await handMade()
    const rows = await report('check', '/day', { ...range, restaurantIds: [t.tenant.locationId] })
    expect(rows.map((r) => [r.businessDate, r.netSalesAmount, r.voided, r.guestCount])).toEqual([
      ['2025-03-01', 3500, false, 2],
      ['2025-03-01', 900, false, 1],
      ['2025-03-02', 0, true, 1],
      ['2025-03-01', 810, false, 1],
    ])
    expect(rows[0]).toMatchObject({ tipAmount: 300, totalAmount: 3800, itemCount: 3, status: 'paid' })
    expect(rows[1]).toMatchObject({ voidItemsCount: 1, voidAmount: 1500 })
  })

  test('labor: hours and cost by job, excluded jobs listed but kept out of metrics', async () => {
    const { server, manager } = await handMade()
    const rows = await report('labor', '/day', range)
    expect(rows).toEqual([
      expect.objectContaining({
        restaurantGuid: t.tenant.locationId,
        periodStart: '2025-03-01',
        laborJobId: server.job.id,
        jobTitle: 'Server',
        excludedFromLaborSummary: false,
        shiftsCount: 1,
        regularHours: 8,
        paidMinutes: 480,
        unpaidBreakMinutes: 30,
        laborCost: 14_400,
      }),
      expect.objectContaining({
        laborJobId: manager.job.id,
        regularHours: 4,
        laborCost: 12_000,
        excludedFromLaborSummary: true,
      }),
    ])
    const byEmployee = await report('labor', '/week', { ...range, groupBy: ['EMPLOYEE'] })
    expect(byEmployee.map((r) => [r.staffUserId, r.laborCost, r.periodStart, r.restaurantGuid])).toEqual([
      [t.tenant.staff.id, 14_400, '2025-03-01', null],
      [t.tenant.manager.id, 12_000, '2025-03-01', null],
    ])
  })

  test('labor: cost is the sum of the payCents the shifts API reports, fractions of a second and all', async () => {
    // Server at 18.00/h: 16:00:00.250 to 00:30:00.999 less an unpaid 20:00:00.700–20:30:00.100
    // break is 30600.749 − 1799.4 = 28801.349 s: 28801 s, 14400.5 → 14401.
    const server = await jobFor(t, t.tenant.staff, { title: 'Server', defaultWageAmount: 1800 })
    await shift(
      t.tenant.staff,
      server.job.id,
      '2025-03-01T16:00:00.250Z',
      '2025-03-02T00:30:00.999Z',
      '2025-03-01',
      ['2025-03-01T20:00:00.700Z', '2025-03-01T20:30:00.100Z'],
    )
    // Sommelier at 10.00 a second: 1.613 s and 1.999 s are 1 s each, 1000 each (not 1613 and 1999).
    const sommelier = await jobFor(t, t.tenant.manager, { title: 'Sommelier', defaultWageAmount: 3_600_000 })
    for (const [clockIn, clockOut] of [
      ['2025-03-01T17:00:00.000Z', '2025-03-01T17:00:01.613Z'],
      ['2025-03-01T18:00:00.999Z', '2025-03-01T18:00:02.998Z'],
    ] as const)
      await shift(t.tenant.manager, sommelier.job.id, clockIn, clockOut, '2025-03-01')

    const { shifts } = await ok(t, 'GET', '/labor/shifts?from=2025-03-01&to=2025-03-01')
    expect(shifts.map((s: any) => [s.jobRole, s.paidSeconds, s.breakSeconds, s.payCents]).sort()).toEqual([
      ['Server', 28_801, 1799, 14_401],
      ['Sommelier', 1, 0, 1000],
      ['Sommelier', 1, 0, 1000],
    ])
    const payOf = (jobId: string) =>
      shifts.filter((s: any) => s.laborJobId === jobId).reduce((a: number, s: any) => a + s.payCents, 0)

    const rows = await report('labor', '/day', { ...range, restaurantIds: [t.tenant.locationId] })
    expect(rows).toEqual([
      expect.objectContaining({
        laborJobId: server.job.id,
        regularHours: 8,
        paidMinutes: 480,
        unpaidBreakMinutes: 29,
        laborCost: payOf(server.job.id),
      }),
      expect.objectContaining({
        laborJobId: sommelier.job.id,
        shiftsCount: 2,
        regularHours: 0,
        paidMinutes: 0,
        laborCost: payOf(sommelier.job.id),
      }),
    ])
    expect(rows.map((r) => r.laborCost)).toEqual([14_401, 2000])
    const [metrics] = await report('metrics', '', { ...range, restaurantIds: [t.tenant.locationId] })
    expect(metrics.hourlyJobTotalPay).toBe(16_401)
  })

  test('the OpenAPI document says labor figures are sums of the shifts’ figures', async () => {
    const spec = (await t.request('GET', '/openapi.json', { as: null })).body
    const labor = spec.paths['/era/v1/labor/{param}'].post.description
    expect(labor).toContain('`laborCost` (cents: the sum of the shifts’ `payCents`')
    expect(labor).toContain('`paidMinutes` (that sum in whole minutes, truncated)')
    expect(spec.paths['/era/v1/metrics/{param}'].post.description).toContain(
      '`hourlyJobTotalPay` (the sum of the shifts’ `payCents`)',
    )
  })

  test('the OpenAPI document types the metrics rows: exactly the members a row has, all required', async () => {
    await handMade()
    const spec = (await t.request('GET', '/openapi.json', { as: null })).body
    const answer = spec.paths['/era/v1/metrics/{param}'].get.responses['200'].content['application/json']
    expect(answer.schema.items).toEqual({ $ref: '#/components/schemas/EraMetricsRow' })
    const row = spec.components.schemas.EraMetricsRow
    const members = Object.keys(row.properties).sort()
    expect([...row.required].sort()).toEqual(members)
    // Grouped by restaurant and added together, on days with orders and a day without (null averages).
    for (const groupBy of [['RESTAURANT'], []]) {
      const rows = await report('metrics', '/day', { ...range, startBusinessDate: '2025-02-28', groupBy })
      expect(rows.some((found) => found.avgOrderValue === null)).toBe(true)
      for (const found of rows) expect(Object.keys(found).sort()).toEqual(members)
    }
  })

  test('menu: item sales by product, voids apart', async () => {
    await handMade()
    const rows = await report('menu', '', { ...range, restaurantIds: [t.tenant.locationId] })
    const byName = Object.fromEntries(rows.map((r) => [r.itemName, r]))
    expect(byName.Burger).toMatchObject({
      quantitySold: 2,
      netSalesAmount: 3000,
      voidItemsCount: 1,
      voidAmount: 1500,
    })
    expect(byName.Salad).toMatchObject({
      quantitySold: 2,
      grossSalesAmount: 1800,
      discountAmount: 90,
      netSalesAmount: 1710,
    })
    expect(byName.Fries).toMatchObject({
      quantitySold: 1,
      netSalesAmount: 500,
      voidItemsCount: 2,
      voidAmount: 1000,
    })
    expect(rows.map((r) => r.itemName)).toEqual(['Burger', 'Salad', 'Fries'])
  })
})

describe('ERA requests', () => {
  test('validation: dates, order, span, restaurants, groupBy, unknown fields, time range', async () => {
    for (const [path, body] of [
      ['/day', { startBusinessDate: '2025-02-30', endBusinessDate: '2025-03-01' }],
      ['/day', { startBusinessDate: '2025-03-02', endBusinessDate: '2025-03-01' }],
      ['/day', { startBusinessDate: '2020-01-01', endBusinessDate: '2025-03-01' }],
      ['/day', { ...range, restaurantIds: ['nowhere'] }],
      ['/day', { ...range, groupBy: ['JOB'] }],
      ['/day', { ...range, colour: 'red' }],
      ['/day', { endBusinessDate: '2025-03-01' }],
      ['/fortnight', range],
    ] as const) {
      const res = await t.request('POST', `/era/v1/metrics${path}`, { body })
      expect(res.status).toBe(400)
      expect(res.body.code).toBe('validation_failed')
    }
    expect(countRows(t.tenant.db, 'era_report_requests')).toBe(0)
    // Toast's YYYYMMDD is accepted.
    const toast = await t.request('POST', '/era/v1/labor/day', {
      body: { startBusinessDate: '20250301', endBusinessDate: '20250302' },
    })
    expect(toast.status).toBe(200)
  })

  test('analytics:read is required; ids are per family and per tenant', async () => {
    expect((await t.request('POST', '/era/v1/metrics/day', { as: t.tenant.staff, body: range })).status).toBe(
      403,
    )
    const id = (await t.request('POST', '/era/v1/metrics/day', { as: t.tenant.manager, body: range })).body
    expect((await t.request('GET', `/era/v1/metrics/${id}`, { as: t.tenant.staff })).status).toBe(403)
    expect((await t.request('GET', `/era/v1/labor/${id}`)).status).toBe(404)
    expect((await t.request('GET', '/era/v1/metrics/nope')).status).toBe(404)
    const other = await t.addTenant('other')
    expect((await t.request('GET', `/era/v1/metrics/${id}`, { tenant: other, as: other.owner })).status).toBe(
      404,
    )
    await t.platform.jobs.runNow(ERA_JOB)
    expect((await t.request('GET', `/era/v1/metrics/${id}`, { tenant: other, as: other.owner })).status).toBe(
      404,
    )
    const rows = (await t.request('GET', `/era/v1/metrics/${id}`)).body
    expect(rows).toHaveLength(4) // two days × two restaurants, all zero
    expect(rows.every((r: any) => r.netSalesAmount === 0)).toBe(true)
  })

  test('a job that grants analytics:read opens ERA for a staff user at that location', async () => {
    await jobFor(t, t.tenant.staff, { title: 'Shift lead', accessPrimitives: { grants: ['analytics:read'] } })
    const headers = { 'x-location-id': t.tenant.locationId }
    const res = await t.request('POST', '/era/v1/metrics/day', { as: t.tenant.staff, headers, body: range })
    expect(res.status).toBe(200)
    // Location-bound: only that location is reported, and naming another is 403.
    const other = await t.request('POST', '/era/v1/metrics/day', {
      as: t.tenant.staff,
      headers,
      body: { ...range, restaurantIds: [ny] },
    })
    expect(other.status).toBe(403)
    await t.platform.jobs.runNow(ERA_JOB)
    const rows = (await t.request('GET', `/era/v1/metrics/${res.body}`, { as: t.tenant.staff, headers })).body
    expect(rows.map((r: any) => r.restaurantGuid)).toEqual([t.tenant.locationId, t.tenant.locationId])
  })
})
