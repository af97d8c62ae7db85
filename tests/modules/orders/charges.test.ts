// Order charges through the real service: bottle deposits (taxed or not by the tenant setting),
// shipping (the configured rate for the order's weight and ship-to, taxed where it ships, an
// override behind its own permission), service charges (fixed, percent, taxable, gratuity; before
// or after discounts as the coupon says), and voids that take every part back to 0. Each worked
// example is checked to the cent by hand in its comments.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createTestApp, type TestApp, type TestResponse } from '../../harness'
import { ok as expectOk } from './helpers'

let t: TestApp
const ok = (method: string, path: string, body?: unknown, status = 200) =>
  expectOk(t.request(method, path, { body }), status)

const cabernet = { sku: 'CAB', quantity: 2 }
const eighteenPercent = { title: 'Large party 18%', chargeType: 'percent', value: 1800, taxable: true }

beforeAll(async () => {
  t = await createTestApp()
  const tax = { food: 875, wine: 875, generalMerchandise: 875, freight: 0, taxCalculation: 'Added' }
  await ok('POST', '/tax', { title: 'California', countryCode: 'US', stateCode: 'CA', ...tax }, 201)
  await ok(
    'POST',
    '/tax',
    { title: 'New York', countryCode: 'US', stateCode: 'NY', ...tax, wine: 800, food: 800, freight: 800 },
    201,
  )
  await ok('PUT', `/order/settings/locations/${t.tenant.locationId}`, { countryCode: 'US', stateCode: 'CA' })
  await ok(
    'POST',
    '/product',
    {
      title: 'Cabernet',
      type: 'Wine',
      variants: [
        { title: 'Bottle', sku: 'CAB', price: 3000, bottleDeposit: 10, weight: 3, hasShipping: true },
      ],
    },
    201,
  )
  await ok(
    'POST',
    '/shipping',
    {
      title: 'Domestic',
      regions: [
        { countryCode: 'US', stateCode: 'CA' },
        { countryCode: 'US', stateCode: 'NY' },
      ],
      services: [
        {
          title: 'Ground',
          code: 'GND',
          isDefault: true,
          rates: [
            { toWeight: 5, price: 1200 },
            { toWeight: 10, price: 1850 },
          ],
          topRate: { isWrapShipping: false, forEveryXWeight: 5, price: 300 },
        },
      ],
    },
    201,
  )
  await ok(
    'POST',
    '/coupon',
    {
      title: 'Ten percent, after service charges are figured',
      code: 'TENPOST',
      productDiscountType: 'Percentage Off',
      productDiscount: 1000,
      excludesServiceCharges: false,
      serviceChargeInteraction: 'post_discount',
    },
    201,
  )
  await ok(
    'POST',
    '/coupon',
    {
      title: 'Five off the wine only',
      code: 'FIVEOFF',
      productDiscountType: 'Dollar Off',
      productDiscount: 500,
      excludesServiceCharges: true,
      serviceChargeInteraction: 'pre_discount',
    },
    201,
  )
})
afterAll(() => t.close())

const setDepositsTaxable = (bottleDepositTaxable: boolean) =>
  ok('PUT', '/order-settings', { bottleDepositTaxable })

const newOrder = (body: Record<string, unknown>) =>
  ok('POST', '/order', { locationId: t.tenant.locationId, ...body }, 201)

/** The totals identity and every total as the sum of its breakdown. */
function expectConsistent(order: any) {
  const sum = (values: number[]) => values.reduce((a, b) => a + b, 0)
  const lines = order.lineItems
  const charges = order.serviceCharges
  expect(sum(lines.map((l: any) => l.subtotal))).toBe(order.subtotal)
  const shippingDiscount = order.shipping?.discountAmount ?? 0
  expect(sum([...lines, ...charges].map((x: any) => x.discountAmount)) + shippingDiscount).toBe(
    order.discountTotal,
  )
  expect(sum(order.appliedDiscounts.map((d: any) => d.amount))).toBe(order.discountTotal)
  expect(sum(charges.map((c: any) => c.amount))).toBe(order.serviceChargeTotal)
  expect(sum(lines.map((l: any) => l.bottleDepositAmount))).toBe(order.bottleDepositTotal)
  expect(order.shipping?.amount ?? 0).toBe(order.shippingTotal)
  expect(sum([...lines, ...charges].map((x: any) => x.taxAmount)) + (order.shipping?.taxAmount ?? 0)).toBe(
    order.taxTotal,
  )
  expect(order.total).toBe(
    order.subtotal -
      order.discountTotal +
      order.serviceChargeTotal +
      order.shippingTotal +
      order.bottleDepositTotal +
      (order.taxTotal - order.includedTaxTotal) +
      order.tipTotal +
      (order.fundraising?.contributionAmountCents ?? 0),
  )
}

describe('worked examples, to the cent', () => {
  test('in the store, CRV taxed: 2 bottles, 10% coupon post_discount that reaches service charges, 18% taxable charge', async () => {
    await setDepositsTaxable(true)
    const order = await newOrder({ lineItems: [cabernet] })
    // 2 × 30.00 = 60.00; CRV 2 × 0.10 = 0.20; tax 8.75% on 60.20 = 5.2675 -> 5.27
    expect(order).toMatchObject({ subtotal: 6000, bottleDepositTotal: 20, taxTotal: 527, total: 6547 })
    expect(order.lineItems[0]).toMatchObject({ bottleDeposit: 10, bottleDepositAmount: 20, total: 6547 })
    expect(order.shipping).toBeNull()
    await ok('POST', `/order/${order.id}/discount`, { couponCode: 'TENPOST' })
    const charged = await ok('POST', `/order/${order.id}/service-charges`, eighteenPercent)
    // The charge is figured after the coupon's part of the lines: 10% of 60.00 = 6.00, so 18% of
    // 54.00 = 9.72. The coupon then reaches the charge too: 10% of (60.00 + 9.72) = 6.972 -> 6.97,
    // split 6.00 to the line and 0.97 to the charge (largest remainders: 599.83 and 97.17).
    // Line tax 8.75% of (54.00 + 0.20 CRV) = 4.7425 -> 4.74; charge tax 8.75% of 8.75 = 0.7656 -> 0.77.
    expect(charged.serviceCharges).toEqual([
      expect.objectContaining({
        title: 'Large party 18%',
        chargeType: 'percent',
        value: 1800,
        taxable: true,
        gratuity: false,
        taxCode: 'food',
        taxRateBps: 875,
        amount: 972,
        discountAmount: 97,
        taxAmount: 77,
        total: 952,
        createdByStaffUserId: t.tenant.owner.id,
      }),
    ])
    expect(charged.lineItems[0]).toMatchObject({ discountAmount: 600, taxAmount: 474, total: 5894 })
    expect(charged.appliedDiscounts[0].amount).toBe(697)
    // 60.00 − 6.97 + 9.72 + 0 + 0.20 + 5.51 = 68.46
    expect(charged).toMatchObject({
      subtotal: 6000,
      discountTotal: 697,
      serviceChargeTotal: 972,
      shippingTotal: 0,
      bottleDepositTotal: 20,
      taxTotal: 551,
      tipTotal: 0,
      total: 6846,
      balanceDue: 6846,
    })
    expectConsistent(charged)
    // Removing the charge takes its amount, discount and tax back out.
    const removed = await ok('DELETE', `/order/${order.id}/service-charges/${charged.serviceCharges[0].id}`)
    // 60.00 − 6.00 + 0.20 + 8.75% of 54.20 (4.74) = 58.94
    expect(removed).toMatchObject({ serviceCharges: [], discountTotal: 600, taxTotal: 474, total: 5894 })
    expectConsistent(removed)
  })

  test('a gratuity and a fixed charge with a $5 coupon that excludes service charges (pre_discount), CRV untaxed', async () => {
    await setDepositsTaxable(false)
    const order = await newOrder({ lineItems: [{ sku: 'CAB', quantity: 1 }] })
    await ok('POST', `/order/${order.id}/discount`, { couponCode: 'FIVEOFF' })
    await ok('POST', `/order/${order.id}/service-charges`, {
      title: 'Corkage',
      chargeType: 'fixed',
      value: 2500,
    })
    const charged = await ok('POST', `/order/${order.id}/service-charges`, {
      title: 'Auto-gratuity 20%',
      chargeType: 'percent',
      value: 2000,
      gratuity: true,
    })
    // Gratuity on the subtotal before the coupon: 20% of 30.00 = 6.00; corkage 25.00, neither
    // taxed nor discounted. Line: 30.00 − 5.00 = 25.00, tax 8.75% = 2.1875 -> 2.19 (the 0.10
    // deposit untaxed). 30.00 − 5.00 + 31.00 + 0.10 + 2.19 = 58.29
    expect(charged.serviceCharges.map((c: any) => [c.amount, c.discountAmount, c.taxAmount])).toEqual([
      [2500, 0, 0],
      [600, 0, 0],
    ])
    expect(charged).toMatchObject({
      subtotal: 3000,
      discountTotal: 500,
      serviceChargeTotal: 3100,
      bottleDepositTotal: 10,
      taxTotal: 219,
      total: 5829,
    })
    expectConsistent(charged)
  })

  test('shipped to New York: the rate for 9 lbs, taxed there, following the weight; an override; a void takes every part to 0', async () => {
    await setDepositsTaxable(false)
    const order = await newOrder({
      fulfillmentMode: 'shipping',
      shipTo: { countryCode: 'us', stateCode: 'ny' },
      lineItems: [{ sku: 'CAB', quantity: 3 }],
    })
    // 3 × 3 lbs = 9 lbs: the 10 lb band of Ground, 18.50. Wine taxed at New York's 8%: 90.00 ×
    // 8% = 7.20; freight 8% of 18.50 = 1.48; deposits 0.30 untaxed.
    // 90.00 + 18.50 + 0.30 + 7.20 + 1.48 = 117.48
    expect(order.lineItems[0]).toMatchObject({ taxRateBps: 800, taxAmount: 720, bottleDepositAmount: 30 })
    expect(order.shipping).toEqual({
      shipTo: { countryCode: 'US', stateCode: 'NY' },
      serviceId: expect.any(String),
      serviceTitle: 'Ground',
      rate: 1850,
      override: null,
      amount: 1850,
      discountAmount: 0,
      taxAmount: 148,
    })
    expect(order).toMatchObject({
      subtotal: 9000,
      shippingTotal: 1850,
      bottleDepositTotal: 30,
      taxTotal: 868,
      total: 11748,
    })
    expectConsistent(order)

    // One bottle: 3 lbs, the 5 lb band, 12.00 (freight tax 0.96); 30.00 + 12.00 + 0.10 + 2.40 + 0.96
    const lighter = await ok('PUT', `/order/${order.id}/line/${order.lineItems[0].id}`, { quantity: 1 })
    expect(lighter).toMatchObject({ shippingTotal: 1200, bottleDepositTotal: 10, taxTotal: 336, total: 4546 })
    expect(lighter.shipping).toMatchObject({ rate: 1200, amount: 1200, taxAmount: 96 })

    // Shipping to California instead re-rates the line (8.75%) and the freight (0%).
    const moved = await ok('PUT', `/order/${order.id}`, { shipTo: { countryCode: 'US', stateCode: 'CA' } })
    // 30.00 + 12.00 + 0.10 + 8.75% of 30.00 (2.625 -> 2.63) = 44.73
    expect(moved.lineItems[0]).toMatchObject({ taxRateBps: 875, taxAmount: 263 })
    expect(moved).toMatchObject({ shippingTotal: 1200, taxTotal: 263, total: 4473 })

    // An override needs orders:shipping-override: staff hold orders:write only.
    const refused = await t.request('PUT', `/order/${order.id}`, {
      as: t.tenant.staff,
      body: { shippingOverride: 500 },
    })
    expect(refused.status).toBe(403)
    const overridden = await expectOk(
      t.request('PUT', `/order/${order.id}`, { as: t.tenant.manager, body: { shippingOverride: 500 } }),
    )
    expect(overridden.shipping).toMatchObject({ rate: 1200, override: 500, amount: 500, taxAmount: 0 })
    expect(overridden).toMatchObject({ shippingTotal: 500, total: 3773 })
    expectConsistent(overridden)

    await ok('POST', `/order/${order.id}/service-charges`, {
      title: 'Packing',
      chargeType: 'fixed',
      value: 300,
    })
    const voided = await ok('POST', `/order/${order.id}/void`, { voidReasonName: 'Customer cancelled' })
    expect(voided).toMatchObject({
      status: 'voided',
      subtotal: 0,
      discountTotal: 0,
      serviceChargeTotal: 0,
      shippingTotal: 0,
      bottleDepositTotal: 0,
      taxTotal: 0,
      total: 0,
    })
    expect(voided.shipping).toMatchObject({ amount: 0, taxAmount: 0 })
    expect(voided.serviceCharges[0]).toMatchObject({ amount: 0, taxAmount: 0, total: 0 })
    expect(voided.lineItems[0]).toMatchObject({ bottleDepositAmount: 0, total: 0 })
    expectConsistent(voided)
  })

  test('coupons with shipping terms: free shipping leaves no freight tax; a product and shipping discount share one cap', async () => {
    await setDepositsTaxable(false)
    const coupon = (code: string, terms: Record<string, unknown>) =>
      ok('POST', '/coupon', { title: code, code, productDiscountType: 'No Discount', ...terms }, 201)
    await coupon('FREESHIP', { shippingDiscountType: 'Free' })
    await coupon('TENANDSHIP', {
      productDiscountType: 'Percentage Off',
      productDiscount: 1000,
      shippingDiscountType: 'Dollar Off',
      shippingDiscount: 500,
      maxDiscountAmount: 1100,
    })
    const shipped = () =>
      newOrder({
        fulfillmentMode: 'shipping',
        shipTo: { countryCode: 'US', stateCode: 'NY' },
        lineItems: [{ sku: 'CAB', quantity: 3 }],
      })

    // 90.00 of wine, 18.50 of shipping taken whole: no freight tax. 90.00 + 0.30 + 7.20 = 97.50
    const free = await shipped()
    const freed = await ok('POST', `/order/${free.id}/discount`, { couponCode: 'FREESHIP' })
    expect(freed.shipping).toMatchObject({ amount: 1850, discountAmount: 1850, taxAmount: 0 })
    expect(freed.appliedDiscounts[0]).toMatchObject({ shippingDiscountType: 'Free', amount: 1850 })
    expect(freed).toMatchObject({ shippingTotal: 1850, discountTotal: 1850, taxTotal: 720, total: 9750 })
    expectConsistent(freed)

    // 10% of 90.00 = 9.00 from the wine; 5.00 off shipping, capped at 11.00 − 9.00 = 2.00.
    // Wine 81.00 taxed 8% = 6.48; freight 8% of 16.50 = 1.32.
    // 90.00 − 11.00 + 18.50 + 0.30 + 6.48 + 1.32 = 105.60
    const capped = await shipped()
    const both = await ok('POST', `/order/${capped.id}/discount`, { couponCode: 'TENANDSHIP' })
    expect(both.lineItems[0]).toMatchObject({ discountAmount: 900, taxAmount: 648 })
    expect(both.shipping).toMatchObject({ amount: 1850, discountAmount: 200, taxAmount: 132 })
    expect(both).toMatchObject({ discountTotal: 1100, taxTotal: 780, total: 10560 })
    expectConsistent(both)

    // The shipping discount follows the order: one bottle ships for 12.00, and now all 5.00 off
    // (10% of 30.00 = 3.00, cap leaves 8.00, the 5.00 fits): wine 27.00 + 0.10 + 2.16 tax;
    // freight 8% of 7.00 = 0.56. 27.00 + 7.00 + 0.10 + 2.16 + 0.56 = 36.82
    const lighter = await ok('PUT', `/order/${capped.id}/line/${both.lineItems[0].id}`, { quantity: 1 })
    expect(lighter.shipping).toMatchObject({ amount: 1200, discountAmount: 500, taxAmount: 56 })
    expect(lighter).toMatchObject({ discountTotal: 800, total: 3682 })
    expectConsistent(lighter)

    // Paid, then refunded whole: the shipping comes back net of its discount.
    const payment = await expectOk(
      t.request('POST', `/order/${capped.id}/payments`, {
        body: { tender: 'card', amount: 3682, paymentMethod: 'tok_visa' },
        headers: { 'idempotency-key': `pay-${capped.id}` },
      }),
      201,
    )
    await expectOk(
      t.request('POST', `/order/${capped.id}/payments/${payment.id}/refund`, {
        body: {},
        headers: { 'idempotency-key': `refund-${capped.id}` },
      }),
    )
    const event = t.tenant.db.$client
      .query("SELECT payload FROM outbox_events WHERE action = 'refund' AND aggregate_id = ?")
      .get(capped.id) as { payload: string }
    expect(JSON.parse(event.payload).refundedParts).toEqual({
      lines: 2700,
      serviceCharges: 0,
      shipping: 700,
      bottleDeposits: 10,
      tax: 272,
      contribution: 0,
      tip: 0,
    })
  })

  test('a shipping order with no ship-to, or one no configuration covers, is charged no shipping', async () => {
    const unshipped = await newOrder({ fulfillmentMode: 'shipping', lineItems: [cabernet] })
    expect(unshipped.shipping).toMatchObject({ shipTo: null, rate: null, amount: 0 })
    const uncovered = await ok('PUT', `/order/${unshipped.id}`, {
      shipTo: { countryCode: 'US', stateCode: 'TX' },
    })
    expect(uncovered.shipping).toMatchObject({ serviceId: null, rate: null, amount: 0 })
    expectConsistent(uncovered)
  })

  /** The parts of the 75.47 order both refund examples pay: one cabernet line and a 10.00 fee. */
  const partsOfCabernetWithFee = {
    lines: 6000,
    serviceCharges: 1000,
    shipping: 0,
    bottleDeposits: 20,
    tax: 527,
    contribution: 0,
  }

  test('paid in full with a service charge and deposits, then refunded in two steps: each refund gives back its parts, the balance is the whole total again', async () => {
    await setDepositsTaxable(true)
    const order = await newOrder({ lineItems: [cabernet] })
    const charged = await ok('POST', `/order/${order.id}/service-charges`, {
      title: 'Event fee',
      chargeType: 'fixed',
      value: 1000,
    })
    // 60.00 + 10.00 + 0.20 + 8.75% of 60.20 (5.27) = 75.47
    expect(charged.total).toBe(7547)
    const payment = await expectOk(
      t.request('POST', `/order/${order.id}/payments`, {
        body: { tender: 'card', amount: 7547, paymentMethod: 'tok_visa' },
        headers: { 'idempotency-key': `pay-${order.id}` },
      }),
      201,
    )
    expect((await ok('GET', `/order/${order.id}`)).status).toBe('paid')
    const refund = (body: Record<string, unknown>, key: string) =>
      expectOk(
        t.request('POST', `/order/${order.id}/payments/${payment.id}/refund`, {
          body,
          headers: { 'idempotency-key': `${key}-${order.id}` },
        }),
      )
    const partsOfRefunds = () =>
      (
        t.tenant.db.$client
          .query(
            "SELECT metadata FROM audit_entries WHERE entity_id = ? AND action = 'order.payment.refund' ORDER BY rowid",
          )
          .all(order.id) as { metadata: string }[]
      ).map((row) => JSON.parse(row.metadata).refundedParts)
    await refund({ amount: 1000 }, 'part')
    // 10.00 over the parts 60.00 | 10.00 | 0 | 0.20 | 5.27 (of 75.47): 795.02, 132.50, 0, 2.65,
    // 69.83; floors 998, the two cents to the largest remainders (tax .83, deposits .65).
    expect(partsOfRefunds()).toEqual([
      { lines: 795, serviceCharges: 132, shipping: 0, bottleDeposits: 3, tax: 70, contribution: 0, tip: 0 },
    ])
    await refund({}, 'rest')
    const [first, rest] = partsOfRefunds()
    // The rest is what was left paid of each part: together the two give each part back whole.
    expect(rest).toEqual({
      lines: 5205,
      serviceCharges: 868,
      shipping: 0,
      bottleDeposits: 17,
      tax: 457,
      contribution: 0,
      tip: 0,
    })
    for (const [part, amount] of Object.entries(partsOfCabernetWithFee))
      expect(first[part] + rest[part]).toBe(amount)
    const event = t.tenant.db.$client
      .query(
        "SELECT payload FROM outbox_events WHERE action = 'refund' AND aggregate_id = ? ORDER BY seq DESC",
      )
      .get(order.id) as { payload: string }
    expect(JSON.parse(event.payload).refundedParts).toEqual(rest)
    const refunded = await ok('GET', `/order/${order.id}`)
    expect(refunded).toMatchObject({ amountPaid: 0, balanceDue: 7547, total: 7547 })
  })

  test('paid in two payments, refunded a cent at a time and then the rest: each part comes back to the cent', async () => {
    await setDepositsTaxable(true)
    const order = await newOrder({ lineItems: [cabernet] })
    await ok('POST', `/order/${order.id}/service-charges`, {
      title: 'Event fee',
      chargeType: 'fixed',
      value: 1000,
    })
    // Parts of 75.47: lines 60.00, service charge 10.00, deposits 0.20, tax 5.27.
    const pay = (amount: number, key: string) =>
      expectOk(
        t.request('POST', `/order/${order.id}/payments`, {
          body: { tender: 'card', amount, paymentMethod: 'tok_visa' },
          headers: { 'idempotency-key': `${key}-${order.id}` },
        }),
        201,
      )
    await pay(3001, 'first')
    const payment = await pay(4546, 'second')
    const refund = (body: Record<string, unknown>, key: string) =>
      expectOk(
        t.request('POST', `/order/${order.id}/payments/${payment.id}/refund`, {
          body,
          headers: { 'idempotency-key': `${key}-${order.id}` },
        }),
      )
    for (const n of [1, 2, 3]) await refund({ amount: 1 }, `cent-${n}`)
    await refund({ amount: 4543 }, 'rest-of-second')
    const parts = (
      t.tenant.db.$client
        .query(
          "SELECT metadata FROM audit_entries WHERE entity_id = ? AND action = 'order.payment.refund' ORDER BY rowid",
        )
        .all(order.id) as { metadata: string }[]
    ).map((row) => JSON.parse(row.metadata).refundedParts as Record<string, number>)
    // Each cent goes to the part with the largest share, the lines.
    expect(parts.slice(0, 3).map((p) => p.lines)).toEqual([1, 1, 1])
    const refundedOf = (part: string) => parts.reduce((sum, p) => sum + p[part]!, 0)
    expect(parts.map((p) => Object.values(p).reduce((a, b) => a + b, 0))).toEqual([1, 1, 1, 4543])
    // What the first payment paid, 30.01, is still paid: with what came back, each part is whole.
    const left = t.tenant.db.$client.query('SELECT paid_parts FROM orders WHERE id = ?').get(order.id) as {
      paid_parts: string
    }
    const paidLeft = JSON.parse(left.paid_parts) as Record<string, number>
    for (const [part, amount] of Object.entries(partsOfCabernetWithFee))
      expect(refundedOf(part) + paidLeft[part]!).toBe(amount)
    expect(Object.values(paidLeft).reduce((a, b) => a + b, 0)).toBe(3001)
  })
})

describe('POST /order/{id}/service-charges and DELETE .../{serviceChargeId}', () => {
  let orderId: string
  beforeAll(async () => {
    orderId = (await newOrder({ lineItems: [cabernet] })).id
  })

  test.each([
    ['a percent above 100%', { ...eighteenPercent, value: 10_001 }],
    ['a value of 0', { ...eighteenPercent, value: 0 }],
    ['a fractional value', { ...eighteenPercent, value: 1.5 }],
    ['an unknown charge type', { ...eighteenPercent, chargeType: 'ratio' }],
    ['no title', { chargeType: 'fixed', value: 100 }],
    ['an unknown field', { ...eighteenPercent, waived: true }],
    ['an unknown tax code', { ...eighteenPercent, taxCode: 'beer' }],
    ['a fixed amount past the money bound', { title: 'x', chargeType: 'fixed', value: 10_000_000_001 }],
  ])('%s is 400 and writes nothing', async (_name, body) => {
    const res = await t.request('POST', `/order/${orderId}/service-charges`, { body })
    expect(res.status).toBe(400)
    expect(countCharges(orderId)).toBe(0)
  })

  test('read-only staff are 403 on both routes', async () => {
    const add = await t.request('POST', `/order/${orderId}/service-charges`, {
      as: t.tenant.readOnly,
      body: eighteenPercent,
    })
    expect(add.status).toBe(403)
    const charged = await ok('POST', `/order/${orderId}/service-charges`, eighteenPercent)
    const remove = await t.request(
      'DELETE',
      `/order/${orderId}/service-charges/${charged.serviceCharges[0].id}`,
      { as: t.tenant.readOnly },
    )
    expect(remove.status).toBe(403)
    await ok('DELETE', `/order/${orderId}/service-charges/${charged.serviceCharges[0].id}`)
  })

  test('an unknown charge, or one of another order, is 404', async () => {
    const other = await newOrder({ lineItems: [cabernet] })
    const charged = await ok('POST', `/order/${other.id}/service-charges`, eighteenPercent)
    for (const path of [
      `/order/${orderId}/service-charges/nope`,
      `/order/${orderId}/service-charges/${charged.serviceCharges[0].id}`,
    ])
      expect((await t.request('DELETE', path)).status).toBe(404)
  })

  test('another tenant’s order is 404 on both routes', async () => {
    const globex = await t.addTenant('globex-charges')
    const res = await t.request('POST', `/order/${orderId}/service-charges`, {
      as: globex.owner,
      tenant: globex,
      body: eighteenPercent,
    })
    expect(res.status).toBe(404)
    const del = await t.request('DELETE', `/order/${orderId}/service-charges/x`, {
      as: globex.owner,
      tenant: globex,
    })
    expect(del.status).toBe(404)
  })

  test('a closed or voided order is 409 with its status', async () => {
    const order = await newOrder({ lineItems: [cabernet] })
    await ok('POST', `/order/${order.id}/void`, { voidReasonName: 'Mistake' })
    const res: TestResponse = await t.request('POST', `/order/${order.id}/service-charges`, {
      body: eighteenPercent,
    })
    expect(res.status).toBe(409)
    expect(res.body.currentStatus).toBe('voided')
  })

  test('adding and removing are audited and emit order update events in their transaction', async () => {
    const charged = await ok('POST', `/order/${orderId}/service-charges`, eighteenPercent)
    const chargeId = charged.serviceCharges.at(-1).id
    await ok('DELETE', `/order/${orderId}/service-charges/${chargeId}`)
    const audit = t.tenant.db.$client
      .query(
        "SELECT action, metadata FROM audit_entries WHERE entity_id = ? AND action LIKE 'order.service_charge.%' ORDER BY rowid",
      )
      .all(orderId) as { action: string; metadata: string }[]
    expect(audit.at(-2)!.action).toBe('order.service_charge.add')
    expect(JSON.parse(audit.at(-2)!.metadata)).toMatchObject({
      serviceChargeId: chargeId,
      chargeType: 'percent',
    })
    expect(audit.at(-1)!.action).toBe('order.service_charge.remove')
    expect(JSON.parse(audit.at(-1)!.metadata)).toMatchObject({ serviceChargeId: chargeId, amount: 1080 })
    const events = t.tenant.db.$client
      .query("SELECT payload FROM outbox_events WHERE object = 'order' AND aggregate_id = ? ORDER BY rowid")
      .all(orderId) as { payload: string }[]
    const last = JSON.parse(events.at(-1)!.payload)
    expect(last.serviceCharges).toEqual([])
    expect(JSON.parse(events.at(-2)!.payload).serviceChargeTotal).toBe(1080)
  })
})

describe('/order-settings and the shipping override on create', () => {
  test('settings: defaults, set by taxes:write (staff 403), audited', async () => {
    const set = await ok('PUT', '/order-settings', { bottleDepositTaxable: true })
    expect(set).toEqual({ bottleDepositTaxable: true, updatedAt: expect.any(String) })
    expect(await ok('GET', '/order-settings')).toEqual(set)
    const refused = await t.request('PUT', '/order-settings', {
      as: t.tenant.staff,
      body: { bottleDepositTaxable: false },
    })
    expect(refused.status).toBe(403)
    expect(
      (await t.request('PUT', '/order-settings', { body: { bottleDepositTaxable: 'yes' } })).status,
    ).toBe(400)
    expect((await t.request('PUT', '/order-settings', { body: {} })).status).toBe(400)
    const audit = t.tenant.db.$client
      .query("SELECT count(*) AS n FROM audit_entries WHERE action = 'order.settings.update'")
      .get() as { n: number }
    expect(audit.n).toBeGreaterThan(0)
    const globex = await t.addTenant('globex-settings')
    expect(await expectOk(t.request('GET', '/order-settings', { as: globex.owner, tenant: globex }))).toEqual(
      {
        bottleDepositTaxable: false,
        updatedAt: null,
      },
    )
  })

  test('creating an order with a shipping override needs orders:shipping-override', async () => {
    const body = {
      locationId: t.tenant.locationId,
      fulfillmentMode: 'shipping',
      shipTo: { countryCode: 'US', stateCode: 'CA' },
      shippingOverride: 0,
      lineItems: [cabernet],
    }
    const refused = await t.request('POST', '/order', { as: t.tenant.staff, body })
    expect(refused.status).toBe(403)
    const made = await expectOk(t.request('POST', '/order', { as: t.tenant.manager, body }), 201)
    // Free shipping by override: the 18.50 rate (6 lbs) is shown, 0 charged.
    expect(made.shipping).toMatchObject({ rate: 1850, override: 0, amount: 0 })
    expect((await t.request('POST', '/order', { body: { ...body, shippingOverride: -1 } })).status).toBe(400)
  })
})

const countCharges = (orderId: string) =>
  (
    t.tenant.db.$client
      .query('SELECT count(*) AS n FROM order_service_charges WHERE order_id = ?')
      .get(orderId) as { n: number }
  ).n
