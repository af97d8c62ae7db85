// The orders routes of the real service app, over the real adapters: inventory depletion and
// its reversal, gift card issuance on payment, the OpenAPI description and the route table.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { recordOrderPayment } from '../../../src/modules/orders/lifecycle'
import { others } from '../../../src/modules/orders/others'
import { systemActor } from '../../../src/platform/foundation/actor'
import { countRows, createTestApp, type TestApp } from '../../harness'

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

describe('orders in the service app', () => {
  test('a paid gift card line issues a real gift card with the order as its purchase', async () => {
    const order = await ok('POST', '/order', {
      locationId: t.tenant.locationId,
      lineItems: [
        {
          lineType: 'open_item',
          title: 'Gift card',
          unitPrice: 2500,
          giftCardSale: { recipientName: 'Ana' },
        },
      ],
    })
    await ok('POST', `/order/${order.id}/submit`)
    const paid = recordOrderPayment(t.tenant.db, systemActor(t.tenant.id, 'payments'), {
      orderId: order.id,
      paymentIntentId: 'pi_gc',
      amount: 2500,
      tipAmount: 0,
    })
    expect(paid.status).toBe('paid')
    const card = t.tenant.db.$client
      .query(
        'SELECT initial_amount AS amount, recipient_name AS name, purchased_on_order_id AS orderId FROM gift_cards',
      )
      .get()
    expect(card).toEqual({ amount: 2500, name: 'Ana', orderId: order.id })
  })

  test('catalog lines price from real product variants; unavailable products and unknown SKUs are refused', async () => {
    const pizza = await ok('POST', '/product', {
      title: 'Margherita',
      type: 'Food',
      variants: [
        { title: 'Small', sku: 'PIZ-S', price: 1400 },
        { title: 'Large', sku: 'PIZ-L', price: 1900 },
      ],
    })
    const hidden = await ok('POST', '/product', {
      title: 'Old special',
      type: 'Food',
      adminStatus: 'Not Available',
      variants: [{ title: 'One', sku: 'OLD-1', price: 900 }],
    })
    const order = await ok('POST', '/order', { locationId: t.tenant.locationId })
    const withLine = await ok('POST', `/order/${order.id}/line`, { sku: 'piz-l', quantity: 2 })
    expect(withLine.lineItems[0]).toMatchObject({
      productId: pizza.id,
      productVariantId: pizza.variants[1].id,
      sku: 'PIZ-L',
      title: 'Margherita',
      sizeName: 'Large',
      unitPrice: 1900,
      taxCode: 'food',
      category: 'Food',
      subtotal: 3800,
    })
    const byId = await ok('POST', `/order/${order.id}/line`, { productVariantId: pizza.variants[0].id })
    expect(byId.lineItems[1]).toMatchObject({ unitPrice: 1400, sizeName: 'Small' })
    expect(byId.subtotal).toBe(5200)
    const priced = await t.request('POST', `/order/${order.id}/line`, {
      body: { sku: 'PIZ-L', unitPrice: 1 },
    })
    expect(priced.status).toBe(400)
    const unavailable = await t.request('POST', `/order/${order.id}/line`, {
      body: { sku: hidden.variants[0].sku },
    })
    expect(unavailable.status).toBe(400)
    expect(unavailable.body.detail).toContain('not available')
    const unknown = await t.request('POST', `/order/${order.id}/line`, { body: { sku: 'NOPE' } })
    expect(unknown.status).toBe(400)
    expect(countRows(t.tenant.db, 'order_lines')).toBe(2)
    // Collection membership reaches orders, for coupons that apply to collections.
    const pizzas = await ok('POST', '/collection', { title: 'Pizzas', productIds: [pizza.id] })
    expect(others.findVariant(t.tenant.db, { sku: 'PIZ-S' })?.collectionIds).toEqual([pizzas.id])
  })

  test('submitting depletes the recipe stock of catalog lines; voiding a line puts it back', async () => {
    const pizza = await ok('POST', '/product', {
      title: 'Margherita',
      type: 'Food',
      variants: [{ title: 'Whole', sku: 'PIZ-W', price: 1600 }],
    })
    const flour = await ok('POST', '/inventory/ingredients', { code: 'FLOUR', name: 'Flour', baseUnit: 'g' })
    await ok('POST', `/inventory/ingredients/${flour.id}/receivings`, {
      locationId: t.tenant.locationId,
      quantity: 10_000,
      unitCost: 1,
    })
    await ok('POST', '/inventory/recipes', {
      kind: 'menu_item',
      title: 'Margherita',
      productId: pizza.id,
      yieldQuantity: 1,
      components: [{ ingredientId: flour.id, quantity: 250 }],
    })
    const onHand = async () =>
      (await ok('GET', `/inventory/ingredients/${flour.id}`)).stocks.find(
        (s: any) => s.locationId === t.tenant.locationId,
      ).onHandQuantity
    const order = await ok('POST', '/order', {
      locationId: t.tenant.locationId,
      lineItems: [{ sku: 'PIZ-W', quantity: 3 }],
    })
    expect(await onHand()).toBe(10_000)
    await ok('POST', `/order/${order.id}/submit`)
    expect(await onHand()).toBe(10_000 - 750)
    await ok('POST', `/order/${order.id}/line/${order.lineItems[0].id}/void`, { voidReasonName: 'Burnt' })
    expect(await onHand()).toBe(10_000)
  })

  test('tax comes from the Tax record of the location’s state; coupons from the coupons module', async () => {
    await ok('POST', '/tax', {
      title: 'California',
      countryCode: 'US',
      stateCode: 'CA',
      freight: 0,
      food: 875,
      generalMerchandise: 725,
      wine: 1000,
      taxCalculation: 'Added',
    })
    await ok('POST', '/tax', {
      title: 'United States',
      countryCode: 'US',
      freight: 0,
      food: 500,
      generalMerchandise: 500,
      wine: 500,
      taxCalculation: 'Added',
    })
    await ok('PUT', `/order/settings/locations/${t.tenant.locationId}`, {
      countryCode: 'US',
      stateCode: 'CA',
    })
    await ok('POST', '/product', {
      title: 'Cabernet',
      type: 'Wine',
      variants: [{ title: 'Bottle', sku: 'CAB', price: 4000 }],
    })
    await ok('POST', '/coupon', {
      title: 'Ten percent off',
      code: 'TENOFF',
      productDiscountType: 'Percentage Off',
      productDiscount: 1000,
      maxDiscountAmount: 500,
    })
    await ok('POST', '/coupon', {
      title: 'Off',
      code: 'OFF',
      productDiscountType: 'Dollar Off',
      productDiscount: 100,
      status: 'Disabled',
    })
    const order = await ok('POST', '/order', {
      locationId: t.tenant.locationId,
      lineItems: [{ sku: 'CAB', quantity: 2 }],
    })
    expect(order.lineItems[0]).toMatchObject({ taxCode: 'wine', taxRateBps: 1000, taxCalculation: 'Added' })
    expect(order).toMatchObject({ subtotal: 8000, taxTotal: 800, total: 8800 })
    const discounted = await ok('POST', `/order/${order.id}/discount`, { couponCode: 'tenoff' })
    // 10% of 8000 = 800, capped at 500; tax on 7500 = 750
    expect(discounted.appliedDiscounts[0]).toMatchObject({
      code: 'TENOFF',
      discountType: 'percentage',
      value: 1000,
      amount: 500,
    })
    expect(discounted).toMatchObject({ discountTotal: 500, taxTotal: 750, total: 8250, balanceDue: 8250 })
    const disabled = await t.request('POST', `/order/${order.id}/discount`, { body: { couponCode: 'OFF' } })
    expect(disabled.status).toBe(409)
    expect(disabled.body.reason).toBe('disabled')
    // Another state of the same country falls back to the country-wide rate.
    await ok('PUT', `/order/settings/locations/${t.tenant.locationId}`, {
      countryCode: 'US',
      stateCode: 'OR',
    })
    const oregon = await ok('POST', '/order', {
      locationId: t.tenant.locationId,
      lineItems: [{ sku: 'CAB' }],
    })
    expect(oregon.lineItems[0].taxRateBps).toBe(500)
  })

  test('customers: an order names a real customer, takes their name, and follows them through a merge', async () => {
    const ana = await ok('POST', '/customer', {
      firstName: 'Ana',
      lastName: 'Ruiz',
      email: 'ana@example.test',
    })
    const dup = await ok('POST', '/customer', {
      firstName: 'Ana',
      lastName: 'R.',
      email: 'ana2@example.test',
    })
    const order = await ok('POST', '/order', { locationId: t.tenant.locationId, customerId: dup.id })
    expect(order).toMatchObject({ customerId: dup.id, customerName: 'Ana R.' })
    const unknown = await t.request('POST', '/order', {
      body: { locationId: t.tenant.locationId, customerId: 'nobody' },
    })
    expect(unknown.status).toBe(400)
    expect(unknown.body.errors[0].path).toBe('body/customerId')
    await ok('POST', '/customer/merge', {
      primaryCustomerId: ana.id,
      sourceCustomerIds: [dup.id],
      confirmation: 'MERGE',
    })
    expect((await ok('GET', `/order/${order.id}`)).customerId).toBe(ana.id)
    // A merged-away id still names the primary.
    const later = await ok('POST', '/order', { locationId: t.tenant.locationId, customerId: dup.id })
    expect(later).toMatchObject({ customerId: ana.id, customerName: 'Ana Ruiz' })
    const found = await ok('GET', `/customer?locationId=${t.tenant.locationId}`)
    expect(found.customers.map((c: any) => c.id)).toContain(ana.id)
  })

  test('the OpenAPI description documents the computed fields and the rounding rule', async () => {
    const spec = (await t.request('GET', '/openapi.json', { as: null })).body
    const create = spec.paths['/order'].post
    expect(create.description).toContain('rounded half-up')
    const text = JSON.stringify(spec)
    for (const phrase of [
      'includedTaxTotal',
      'balanceDue',
      'contributionAmountCents',
      'quantityFulfilled',
      'eligibilitySummary',
    ])
      expect(text).toContain(phrase)
    for (const path of [
      '/order/{id}/line',
      '/order/{id}/submit',
      '/order/{id}/void',
      '/order/{id}/discount',
      '/order/{id}/fulfillment/all',
      '/order/{id}/fulfillment/{fulfillmentId}',
    ])
      expect(Object.keys(spec.paths)).toContain(path)
  })
})
