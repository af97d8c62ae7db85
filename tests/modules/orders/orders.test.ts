// Orders over HTTP: create, read, list, header changes, lines and their pricing.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { countRows } from '../../harness'
import { createOrdersTestApp, inCalifornia, newOrder, type OrdersTestApp, ok } from './helpers'

let t: OrdersTestApp
beforeEach(async () => {
  t = await createOrdersTestApp()
})
afterEach(() => t.close())

describe('create and read', () => {
  test('creates a draft with the next number, defaults, an audit entry and an event', async () => {
    const order = await newOrder(t, { guestName: 'Table 4 guest', tableLabel: 'T4', seatCount: 2 })
    expect(order).toMatchObject({
      orderNumber: 1,
      status: 'draft',
      source: 'pos',
      fulfillmentMode: 'dine_in',
      assignedStaffUserId: t.tenant.owner.id,
      guestName: 'Table 4 guest',
      subtotal: 0,
      total: 0,
      balanceDue: 0,
      lineItems: [],
      appliedDiscounts: [],
      fulfillments: [],
      paymentIntentIds: [],
      fulfillmentStatus: 'unfulfilled',
      offPremise: null,
    })
    expect((await newOrder(t)).orderNumber).toBe(2)
    const events = t.tenant.db.$client.query("SELECT action FROM outbox_events WHERE object = 'order'").all()
    expect(events).toEqual([{ action: 'create' }, { action: 'create' }])
    expect(
      t.tenant.db.$client
        .query("SELECT count(*) AS n FROM audit_entries WHERE action = 'order.create'")
        .get(),
    ).toEqual({ n: 2 })
  })

  test('takes the location from x-location-id; without any location it is 400 and writes nothing', async () => {
    const res = await t.request('POST', '/order', {
      body: {},
      headers: { 'x-location-id': t.tenant.locationId },
    })
    expect(res.status).toBe(201)
    expect(res.body.locationId).toBe(t.tenant.locationId)
    const before = countRows(t.tenant.db, 'orders')
    const bad = await t.request('POST', '/order', { body: {} })
    expect(bad.status).toBe(400)
    expect(bad.body.errors[0].path).toBe('body/locationId')
    const unknown = await t.request('POST', '/order', { body: { locationId: 'nope' } })
    expect(unknown.status).toBe(400)
    expect(countRows(t.tenant.db, 'orders')).toBe(before)
    expect(countRows(t.tenant.db, 'order_sequences')).toBe(1)
    // A refused create gives no number away.
    expect((await newOrder(t)).orderNumber).toBe(2)
  })

  test('validation: unknown fields, bad enums, bad seat counts, unknown staff', async () => {
    for (const body of [
      { locationId: t.tenant.locationId, colour: 'red' },
      { locationId: t.tenant.locationId, source: 'fax' },
      { locationId: t.tenant.locationId, seatCount: 0 },
      { locationId: t.tenant.locationId, fundraising: { contributionType: 'percent' } },
      { locationId: t.tenant.locationId, assignedStaffUserId: 'nobody' },
    ]) {
      const res = await t.request('POST', '/order', { body })
      expect(res.status).toBe(400)
      expect(res.body.code).toBe('validation_failed')
    }
    expect(countRows(t.tenant.db, 'orders')).toBe(0)
  })

  test('creates with lines at once; a bad line refuses the whole order', async () => {
    await inCalifornia(t)
    const order = await newOrder(t, { lineItems: [{ sku: 'BURGER', quantity: 2 }, { sku: 'fries' }] })
    expect(order.lineItems.map((l: any) => [l.title, l.quantity, l.unitPrice])).toEqual([
      ['Burger', 2, 1250],
      ['Fries', 1, 450],
    ])
    // 2950 at 8.75% = 258.125 -> 258
    expect(order).toMatchObject({ subtotal: 2950, taxTotal: 258, total: 3208, balanceDue: 3208 })
    const bad = await t.request('POST', '/order', {
      body: { locationId: t.tenant.locationId, lineItems: [{ sku: 'BURGER' }, { sku: 'NOPE' }] },
    })
    expect(bad.status).toBe(400)
    expect(bad.body.errors[0].path).toBe('body/lineItems/1/sku')
    expect(countRows(t.tenant.db, 'orders')).toBe(1)
    expect(countRows(t.tenant.db, 'order_lines')).toBe(2)
  })

  test('permissions and tenant isolation', async () => {
    const order = await newOrder(t)
    expect((await t.request('POST', '/order', { as: t.tenant.readOnly, body: {} })).status).toBe(403)
    expect((await t.request('GET', `/order/${order.id}`, { as: t.tenant.readOnly })).status).toBe(200)
    expect((await t.request('GET', `/order/${order.id}`, { as: null })).status).toBe(401)
    const other = await t.addTenant('other')
    const res = await t.request('GET', `/order/${order.id}`, { as: other.owner, tenant: other })
    expect(res.status).toBe(404)
    expect(
      (await t.request('PUT', `/order/${order.id}`, { as: other.owner, tenant: other, body: {} })).status,
    ).toBe(404)
    expect(
      (
        await t.request('POST', `/order/${order.id}/line`, {
          as: other.owner,
          tenant: other,
          body: { sku: 'FRIES' },
        })
      ).status,
    ).toBe(404)
    expect((await t.request('GET', '/order/nope')).status).toBe(404)
  })

  test('an idempotency key makes a retried create return the first order', async () => {
    const headers = { 'idempotency-key': 'create-order-0001' }
    const body = { locationId: t.tenant.locationId, guestName: 'Ana' }
    const first = await t.request('POST', '/order', { body, headers })
    const again = await t.request('POST', '/order', { body, headers })
    expect(first.status).toBe(201)
    expect(again.status).toBe(201)
    expect(again.body.id).toBe(first.body.id)
    expect(countRows(t.tenant.db, 'orders')).toBe(1)
  })
})

describe('list', () => {
  test('filters by q (number or name), location, created range; pages with a total', async () => {
    const a = await newOrder(t, { customerName: 'Maria Lopez' })
    const b = await newOrder(t, { guestName: 'Bob at the bar' })
    await newOrder(t, { guestName: 'Carla' })
    const list = async (qs: string) => ok(t.request('GET', `/order${qs}`))
    expect((await list('')).total).toBe(3)
    expect((await list('')).orders.map((o: any) => o.orderNumber)).toEqual([3, 2, 1])
    expect((await list('?q=lopez')).orders.map((o: any) => o.id)).toEqual([a.id])
    expect((await list('?q=2')).orders.map((o: any) => o.id)).toEqual([b.id])
    expect((await list('?q=%232')).orders.map((o: any) => o.id)).toEqual([b.id])
    expect((await list(`?locationId=${t.tenant.locationId}`)).total).toBe(3)
    expect((await list('?locationId=elsewhere')).total).toBe(0)
    expect((await list(`?createdAfter=${encodeURIComponent(b.createdAt)}`)).total).toBe(2)
    expect(
      (await list(`?createdBefore=${encodeURIComponent(b.createdAt)}`)).orders.map((o: any) => o.id),
    ).toEqual([a.id])
    const page = await list('?limit=2&page=2')
    expect(page.total).toBe(3)
    expect(page.orders.map((o: any) => o.orderNumber)).toEqual([1])
    expect((await t.request('GET', '/order?createdAfter=yesterday')).status).toBe(400)
    expect((await t.request('GET', '/order?limit=101')).status).toBe(400)
  })
})

describe('header', () => {
  test('partial update with audit; refused on a voided order with its status', async () => {
    const order = await newOrder(t)
    const updated = await ok(
      t.request('PUT', `/order/${order.id}`, { body: { tableLabel: 'T9', note: 'birthday' } }),
    )
    expect(updated).toMatchObject({ tableLabel: 'T9', note: 'birthday' })
    await ok(t.request('POST', `/order/${order.id}/void`, { body: { voidReasonName: 'test' } }))
    const res = await t.request('PUT', `/order/${order.id}`, { body: { note: 'x' } })
    expect(res.status).toBe(409)
    expect(res.body).toMatchObject({ code: 'conflict', currentStatus: 'voided' })
  })
})

describe('lines', () => {
  test('catalog lines price from the variant; a sent price is refused and writes nothing', async () => {
    await inCalifornia(t)
    const order = await newOrder(t)
    const res = await t.request('POST', `/order/${order.id}/line`, { body: { sku: 'BURGER', unitPrice: 1 } })
    expect(res.status).toBe(400)
    expect(res.body.errors[0].path).toBe('body/unitPrice')
    expect(countRows(t.tenant.db, 'order_lines')).toBe(0)
    const priced = await ok(
      t.request('POST', `/order/${order.id}/line`, { body: { productVariantId: 'v-CAB-BTL', quantity: 2 } }),
    )
    expect(priced.lineItems[0]).toMatchObject({
      lineType: 'catalog',
      sendStatus: 'new',
      title: 'Cabernet',
      sizeName: 'Bottle',
      sku: 'CAB-BTL',
      unitPrice: 4800,
      taxCode: 'wine',
      taxRateBps: 1000,
      taxCalculation: 'Added',
      category: 'Wine',
      pricingStrategyApplied: 'base',
      subtotal: 9600,
      taxAmount: 960,
      total: 10560,
    })
    expect(priced).toMatchObject({ subtotal: 9600, taxTotal: 960, total: 10560, balanceDue: 10560 })
  })

  test('catalog refusals: unknown, mismatched product, not for sale, both price fields', async () => {
    const order = await newOrder(t)
    for (const [body, path] of [
      [{ sku: 'NOPE' }, 'body/sku'],
      [{ productVariantId: 'v-FRIES', productId: 'p-BURGER' }, 'body/productId'],
      [{ sku: 'GONE' }, 'body/sku'],
      [{}, 'body/productVariantId'],
      [{ sku: 'FRIES', openItemScope: 'food' }, 'body/openItemScope'],
      [{ sku: 'FRIES', quantity: 0 }, 'body/quantity'],
    ] as const) {
      const res = await t.request('POST', `/order/${order.id}/line`, { body })
      expect(res.status).toBe(400)
      expect(res.body.errors[0].path).toBe(path)
    }
    expect(countRows(t.tenant.db, 'order_lines')).toBe(0)
  })

  test('open items need a title, price and scope; their scope sets the tax code', async () => {
    await inCalifornia(t)
    const order = await newOrder(t)
    const missing = await t.request('POST', `/order/${order.id}/line`, {
      body: { lineType: 'open_item', title: 'Corkage', unitPrice: 1500 },
    })
    expect(missing.status).toBe(400)
    expect(missing.body.errors[0].path).toBe('body/openItemScope')
    const priced = await ok(
      t.request('POST', `/order/${order.id}/line`, {
        body: { lineType: 'open_item', title: 'Corkage', unitPrice: 1500, openItemScope: 'wine' },
      }),
    )
    expect(priced.lineItems[0]).toMatchObject({
      title: 'Corkage',
      unitPrice: 1500,
      openItemScope: 'wine',
      taxCode: 'wine',
      taxRateBps: 1000,
      pricingStrategyApplied: 'open_price',
      total: 1650,
    })
  })

  test('nested modifiers, portions and pre-modifiers price per unit, times quantity', async () => {
    await inCalifornia(t)
    const order = await newOrder(t)
    const priced = await ok(
      t.request('POST', `/order/${order.id}/line`, {
        body: {
          sku: 'BURGER',
          quantity: 2,
          seatNumber: 1,
          course: 'mains',
          routing: { prepStationIds: ['grill'] },
          modifiers: [
            { title: 'Cheddar', priceDelta: 100, groupTitle: 'Cheese' },
            {
              title: 'Bacon',
              priceDelta: 250,
              preModifierLabel: 'Extra',
              preModifierPosition: 'prefix',
              modifiers: [{ title: 'Crispy', priceDelta: 50 }],
            },
            { title: 'Avocado', priceDelta: 175, portionPriceMultiplier: 0.5, portionLabel: 'Half' },
            { title: 'Pickles', priceDelta: 60, pricingStrategy: 'no_charge', defaultApplied: true },
          ],
        },
      }),
    )
    const line = priced.lineItems[0]
    // per unit: 1250 + 100 + (250 + 50) + 88 (87.5 half-up) + 0 = 1738; ×2 = 3476
    expect(line.modifiers.map((m: any) => m.amount)).toEqual([100, 300, 88, 0])
    expect(line.modifiers[1].modifiers[0]).toMatchObject({ title: 'Crispy', amount: 50 })
    expect(line).toMatchObject({ modifierTotal: 488, subtotal: 3476, seatNumber: 1, course: 'mains' })
    expect(line.routing).toMatchObject({ prepStationIds: ['grill'], assemblyLineId: null })
    // 3476 × 0.0875 = 304.15 -> 304
    expect(priced).toMatchObject({ subtotal: 3476, taxTotal: 304, total: 3780 })
    const openPriceMissing = await t.request('POST', `/order/${order.id}/line`, {
      body: { sku: 'FRIES', modifiers: [{ title: 'Market', pricingStrategy: 'open_price' }] },
    })
    expect(openPriceMissing.status).toBe(400)
    expect(openPriceMissing.body.errors[0].path).toBe('body/modifiers/0/openPriceAmount')
    const negative = await t.request('POST', `/order/${order.id}/line`, {
      body: { sku: 'FRIES', modifiers: [{ title: 'No fries', priceDelta: -500 }] },
    })
    expect(negative.status).toBe(400)
    const tooDeep = await t.request('POST', `/order/${order.id}/line`, {
      body: {
        sku: 'FRIES',
        modifiers: [
          {
            title: 'a',
            modifiers: [{ title: 'b', modifiers: [{ title: 'c', modifiers: [{ title: 'd' }] }] }],
          },
        ],
      },
    })
    expect(tooDeep.status).toBe(400)
  })

  test('included tax at a French location: prices hold the tax, total is the price', async () => {
    await ok(
      t.request('PUT', `/order/settings/locations/${t.tenant.locationId}`, { body: { countryCode: 'FR' } }),
    )
    const order = await newOrder(t, { lineItems: [{ sku: 'BURGER' }, { sku: 'CAB-BTL' }] })
    // burger 1250 at 10% incl: 1250 - round(1250/1.1 = 1136.36) = 114; wine 4800 at 20%: 4800 - 4000 = 800
    expect(order.lineItems.map((l: any) => [l.taxCalculation, l.taxAmount, l.total])).toEqual([
      ['Included', 114, 1250],
      ['Included', 800, 4800],
    ])
    expect(order).toMatchObject({ subtotal: 6050, taxTotal: 914, includedTaxTotal: 914, total: 6050 })
  })

  test('no tax place or untaxed products give rate 0', async () => {
    const order = await newOrder(t, { lineItems: [{ sku: 'BURGER' }] })
    expect(order.lineItems[0]).toMatchObject({ taxRateBps: 0, taxAmount: 0 })
    await inCalifornia(t)
    const gift = await newOrder(t, { lineItems: [{ sku: 'GIFT' }] })
    expect(gift.lineItems[0]).toMatchObject({ taxCode: null, taxRateBps: 0 })
    expect(gift.total).toBe(5000)
  })

  test('update and remove unsent lines; sent lines are 409 with their status', async () => {
    const order = await newOrder(t, { lineItems: [{ sku: 'BURGER' }, { sku: 'FRIES' }] })
    const [burger, fries] = order.lineItems
    const updated = await ok(
      t.request('PUT', `/order/${order.id}/line/${burger.id}`, { body: { quantity: 3, note: 'no salt' } }),
    )
    expect(updated.lineItems[0]).toMatchObject({ quantity: 3, note: 'no salt', subtotal: 3750 })
    const priceOnCatalog = await t.request('PUT', `/order/${order.id}/line/${burger.id}`, {
      body: { unitPrice: 5 },
    })
    expect(priceOnCatalog.status).toBe(400)
    const removed = await ok(t.request('DELETE', `/order/${order.id}/line/${fries.id}`))
    expect(removed.lineItems).toHaveLength(1)
    expect(removed.subtotal).toBe(3750)
    await ok(t.request('POST', `/order/${order.id}/submit`))
    for (const [method, body] of [
      ['PUT', { quantity: 1 }],
      ['DELETE', undefined],
    ] as const) {
      const res = await t.request(method, `/order/${order.id}/line/${burger.id}`, { body })
      expect(res.status).toBe(409)
      expect(res.body.currentStatus).toBe('sent')
    }
    expect((await t.request('DELETE', `/order/${order.id}/line/nope`)).status).toBe(404)
  })

  test('line writes need orders:write', async () => {
    const order = await newOrder(t)
    const res = await t.request('POST', `/order/${order.id}/line`, {
      as: t.tenant.readOnly,
      body: { sku: 'FRIES' },
    })
    expect(res.status).toBe(403)
  })
})
