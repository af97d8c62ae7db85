// Coupons on orders in the service app, through the real coupons, clubs, club memberships, tags
// and customers: Club and Customer Tag coupons, stacking and caps, line coupons, usage limits.
// Whether a coupon applies and for how much is the coupons engine's (src/modules/coupons/apply.ts).
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { todayIn } from '../../../src/platform/foundation/dates'
import { countRows, createTestApp, type TestApp } from '../../harness'
import { makeClub, makeCustomer, makeTag } from '../customers/helpers'

let t: TestApp
beforeEach(async () => {
  t = await createTestApp()
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
  await ok('PUT', `/order/settings/locations/${t.tenant.locationId}`, { countryCode: 'US', stateCode: 'CA' })
})
afterEach(() => t.close())

async function ok(method: string, path: string, body?: unknown) {
  const res = await t.request(method, path, { body })
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`)
  return res.body
}

const product = (title: string, sku: string, price: number, type = 'Food') =>
  ok('POST', '/product', { title, type, variants: [{ title: 'Regular', sku, price }] })

const coupon = (code: string, body: Record<string, unknown>) =>
  ok('POST', '/coupon', { title: `Coupon ${code}`, code, ...body })

const order = (body: Record<string, unknown>) =>
  ok('POST', '/order', { locationId: t.tenant.locationId, ...body })

const apply = (orderId: string, body: Record<string, unknown>) =>
  t.request('POST', `/order/${orderId}/discount`, { body })

describe('coupons available to a Club or a Customer Tag', () => {
  test('a Club coupon applies to a live member’s order (on hold too) and is refused for others', async () => {
    await product('Burger', 'BURGER', 1250)
    const wineClub = await makeClub(t)
    const otherClub = await makeClub(t)
    const member = await makeCustomer(t)
    const stranger = await makeCustomer(t)
    const otherMember = await makeCustomer(t)
    const membership = await ok('POST', '/club-membership', {
      customerId: member.id,
      clubId: wineClub.id,
      orderDeliveryMethod: 'Pickup',
    })
    await ok('POST', '/club-membership', {
      customerId: otherMember.id,
      clubId: otherClub.id,
      orderDeliveryMethod: 'Pickup',
    })
    await coupon('CLUB20', {
      productDiscountType: 'Percentage Off',
      productDiscount: 2000,
      availableTo: 'Club',
      availableToObjectIds: [wineClub.id],
    })
    const lines = [{ sku: 'BURGER', quantity: 2 }]

    const mine = await order({ customerId: member.id, lineItems: lines })
    const applied = await ok('POST', `/order/${mine.id}/discount`, { couponCode: 'club20' })
    // 20% of 2500 = 500; tax 8.75% of 2000 = 175
    expect(applied.appliedDiscounts[0]).toMatchObject({ code: 'CLUB20', amount: 500 })
    expect(applied).toMatchObject({ subtotal: 2500, discountTotal: 500, taxTotal: 175, total: 2175 })

    for (const customerId of [stranger.id, otherMember.id, undefined]) {
      const theirs = await order({ customerId, lineItems: lines })
      const refused = await apply(theirs.id, { couponCode: 'CLUB20' })
      expect({ status: refused.status, reason: refused.body.reason }).toEqual({
        status: 409,
        reason: 'not_available_to_customer',
      })
    }

    // A membership on hold is still a membership; a cancelled one is not.
    const holdUntil = todayIn('UTC', new Date(Date.now() + 30 * 86_400_000))
    await ok('POST', `/club-membership/${membership.id}/hold`, { holdUntil })
    const onHold = await order({ customerId: member.id, lineItems: lines })
    expect((await apply(onHold.id, { couponCode: 'CLUB20' })).status).toBe(200)
    await ok('POST', `/club-membership/${membership.id}/cancel`, {})
    const cancelled = await order({ customerId: member.id, lineItems: lines })
    expect((await apply(cancelled.id, { couponCode: 'CLUB20' })).body.reason).toBe(
      'not_available_to_customer',
    )
    expect(countRows(t.tenant.db, 'order_discounts')).toBe(2)
  })

  test('a Customer Tag coupon applies to a tagged customer’s order and is refused once the tag is gone', async () => {
    await product('Burger', 'BURGER', 1250)
    const vip = await makeTag(t, 'VIP')
    const regular = await makeTag(t, 'Regular')
    const tagged = await makeCustomer(t)
    const untagged = await makeCustomer(t)
    await ok('POST', `/customers/${tagged.id}/tags`, { tagId: vip.id })
    await ok('POST', `/customers/${untagged.id}/tags`, { tagId: regular.id })
    await coupon('VIPFIVE', {
      productDiscountType: 'Dollar Off',
      productDiscount: 500,
      availableTo: 'Customer Tag',
      availableToObjectIds: [vip.id],
    })
    const lines = [{ sku: 'BURGER' }]

    const theirs = await order({ customerId: tagged.id, lineItems: lines })
    const applied = await ok('POST', `/order/${theirs.id}/discount`, { couponCode: 'VIPFIVE' })
    expect(applied).toMatchObject({ discountTotal: 500, taxTotal: 66, total: 1250 - 500 + 66 })

    const other = await order({ customerId: untagged.id, lineItems: lines })
    const refused = await apply(other.id, { couponCode: 'VIPFIVE' })
    expect(refused.status).toBe(409)
    expect(refused.body.reason).toBe('not_available_to_customer')

    await ok('DELETE', `/customers/${tagged.id}/tags/${vip.id}`)
    const later = await order({ customerId: tagged.id, lineItems: lines })
    expect((await apply(later.id, { couponCode: 'VIPFIVE' })).body.reason).toBe('not_available_to_customer')
    // The discount already applied stays: availability is judged when a coupon is applied.
    expect((await ok('GET', `/order/${theirs.id}`)).discountTotal).toBe(500)
  })
})

describe('stacking, caps and line coupons with real coupons', () => {
  test('10% then 5.00 then 50% capped at 3.00, in order applied; removing one reprices the rest', async () => {
    await product('Burger', 'BURGER', 1250)
    await product('Cabernet', 'CAB', 4800, 'Wine')
    await coupon('TENOFF', { productDiscountType: 'Percentage Off', productDiscount: 1000 })
    await coupon('FIVE', { productDiscountType: 'Dollar Off', productDiscount: 500 })
    await coupon('HALF', {
      productDiscountType: 'Percentage Off',
      productDiscount: 5000,
      maxDiscountAmount: 300,
    })
    await coupon('SOLO', {
      productDiscountType: 'Dollar Off',
      productDiscount: 100,
      combinability: 'exclusive',
    })
    const o = await order({ lineItems: [{ sku: 'BURGER' }, { sku: 'CAB' }] })
    // 6050: 10% = 605, spread 1250:4800 -> 125 / 480
    const ten = await ok('POST', `/order/${o.id}/discount`, { couponCode: 'TENOFF' })
    expect(ten.appliedDiscounts[0]).toMatchObject({ discountType: 'percentage', value: 1000, amount: 605 })
    expect(ten.lineItems.map((l: any) => l.discountAmount)).toEqual([125, 480])
    await ok('POST', `/order/${o.id}/discount`, { couponCode: 'FIVE' })
    const half = await ok('POST', `/order/${o.id}/discount`, { couponCode: 'HALF' })
    expect(half.appliedDiscounts.map((d: any) => [d.code, d.amount])).toEqual([
      ['TENOFF', 605],
      ['FIVE', 500],
      ['HALF', 300],
    ])
    expect(half.appliedDiscounts[2].eligibilitySummary).toContain('capped at 3.00')
    expect(half.discountTotal).toBe(1405)
    const [burger, cab] = half.lineItems
    expect(burger.discountAmount + cab.discountAmount).toBe(1405)
    const tax = (net: number, bps: number) => Math.floor((2 * net * bps + 10_000) / 20_000)
    expect(half.taxTotal).toBe(tax(1250 - burger.discountAmount, 875) + tax(4800 - cab.discountAmount, 1000))
    expect(half.total).toBe(6050 - 1405 + half.taxTotal)
    // An exclusive coupon cannot join; the same coupon twice is refused.
    expect((await apply(o.id, { couponCode: 'SOLO' })).body.reason).toBe('not_combinable')
    expect((await apply(o.id, { couponCode: 'FIVE' })).body.reason).toBe('already_applied')
    const removed = await ok('DELETE', `/order/${o.id}/discount/${half.appliedDiscounts[0].id}`)
    expect(removed.appliedDiscounts.map((d: any) => [d.code, d.amount])).toEqual([
      ['FIVE', 500],
      ['HALF', 300],
    ])
    expect(removed.discountTotal).toBe(800)
  })

  test('Product, Collection, Set Price and Free coupons reduce only their lines; a line coupon its line', async () => {
    const burger = await product('Burger', 'BURGER', 1250)
    const cab = await product('Cabernet', 'CAB', 4800, 'Wine')
    await product('Fries', 'FRIES', 450)
    const reds = await ok('POST', '/collection', { title: 'Reds', productIds: [cab.id] })
    await coupon('WINE20', {
      productDiscountType: 'Percentage Off',
      productDiscount: 2000,
      appliesTo: 'Product',
      appliesToObjectIds: [cab.id],
    })
    await coupon('REDS', {
      productDiscountType: 'Dollar Off',
      productDiscount: 100,
      appliesTo: 'Collection',
      appliesToObjectIds: [reds.id],
    })
    await coupon('BURGER10', {
      productDiscountType: 'Set Price',
      productDiscount: 1000,
      appliesTo: 'Product',
      appliesToObjectIds: [burger.id],
    })
    await coupon('FREEBIE', { productDiscountType: 'Free' })
    const o = await order({ lineItems: [{ sku: 'BURGER', quantity: 2 }, { sku: 'CAB' }, { sku: 'FRIES' }] })
    const [burgerLine, cabLine, friesLine] = o.lineItems
    const wine = await ok('POST', `/order/${o.id}/discount`, { couponCode: 'WINE20' })
    expect(wine.lineItems.map((l: any) => l.discountAmount)).toEqual([0, 960, 0])
    const red = await ok('POST', `/order/${o.id}/discount`, { couponCode: 'REDS' })
    expect(red.lineItems.map((l: any) => l.discountAmount)).toEqual([0, 1060, 0])
    // Set Price 10.00 a burger: 2 × (12.50 − 10.00) = 5.00
    const set = await ok('POST', `/order/${o.id}/discount`, { couponCode: 'BURGER10' })
    expect(set.appliedDiscounts[2]).toMatchObject({ discountType: 'set_price', value: 1000, amount: 500 })
    expect(set.lineItems.map((l: any) => l.discountAmount)).toEqual([500, 1060, 0])
    // Free on one line: the fries.
    const free = await ok('POST', `/order/${o.id}/discount`, {
      couponCode: 'FREEBIE',
      lineItemId: friesLine.id,
    })
    expect(free.appliedDiscounts[3]).toMatchObject({
      scope: 'line',
      lineItemId: friesLine.id,
      discountType: 'percentage',
      value: 10_000,
      amount: 450,
    })
    expect(free.lineItems.map((l: any) => l.discountAmount)).toEqual([500, 1060, 450])
    expect(free.discountTotal).toBe(2010)
    // A Product coupon named for a line it does not cover is refused.
    const other = await order({ lineItems: [{ sku: 'BURGER' }, { sku: 'CAB' }] })
    const wrongLine = await apply(other.id, { couponCode: 'WINE20', lineItemId: other.lineItems[0].id })
    expect(wrongLine.body.reason).toBe('no_eligible_items')
    expect(cabLine.productId).toBe(cab.id)
    expect(burgerLine.productId).toBe(burger.id)
  })

  test('usage limits count other orders not voided, per customer for Per Customer coupons', async () => {
    await product('Burger', 'BURGER', 1250)
    await coupon('ONCE', {
      productDiscountType: 'Dollar Off',
      productDiscount: 100,
      usageLimitType: 'Total',
      usageLimit: 1,
    })
    await coupon('MINE', {
      productDiscountType: 'Dollar Off',
      productDiscount: 100,
      usageLimitType: 'Per Customer',
      usageLimit: 1,
    })
    const ana = await makeCustomer(t)
    const ben = await makeCustomer(t)
    const lines = [{ sku: 'BURGER' }]
    const first = await order({ customerId: ana.id, lineItems: lines })
    const second = await order({ customerId: ana.id, lineItems: lines })
    await ok('POST', `/order/${first.id}/discount`, { couponCode: 'ONCE' })
    await ok('POST', `/order/${first.id}/discount`, { couponCode: 'MINE' })
    expect((await apply(second.id, { couponCode: 'ONCE' })).body.reason).toBe('usage_limit_reached')
    expect((await apply(second.id, { couponCode: 'MINE' })).body.reason).toBe('customer_usage_limit_reached')
    const bens = await order({ customerId: ben.id, lineItems: lines })
    expect((await apply(bens.id, { couponCode: 'MINE' })).status).toBe(200)
    const anonymous = await order({ lineItems: lines })
    expect((await apply(anonymous.id, { couponCode: 'MINE' })).body.reason).toBe('customer_required')
    await ok('POST', `/order/${first.id}/void`, { voidReasonName: 'test' })
    expect((await apply(second.id, { couponCode: 'ONCE' })).status).toBe(200)
    expect((await apply(second.id, { couponCode: 'MINE' })).status).toBe(200)
  })
})
