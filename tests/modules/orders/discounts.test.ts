// Coupons applied to orders by code: eligibility, approval, stacking, caps, removal.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { todayIn } from '../../../src/platform/foundation/dates'
import { countRows } from '../../harness'
import { coupon, createOrdersTestApp, inCalifornia, newOrder, type OrdersTestApp, ok } from './helpers'

let t: OrdersTestApp
beforeEach(async () => {
  t = await createOrdersTestApp()
  await inCalifornia(t)
})
afterEach(() => t.close())

const apply = (orderId: string, body: Record<string, unknown>, as = t.tenant.staff) =>
  t.request('POST', `/order/${orderId}/discount`, { body, as })

describe('applying coupons', () => {
  test('stacked percentage then amount, capped, tax on what is left, then removed', async () => {
    t.catalog.coupons.push(
      coupon({
        code: 'TENOFF',
        productDiscountType: 'Percentage Off',
        productDiscount: 1000,
        actionMessage: '10% off',
      }),
      coupon({ code: 'FIVE', productDiscountType: 'Dollar Off', productDiscount: 500 }),
      coupon({
        code: 'HALF',
        productDiscountType: 'Percentage Off',
        productDiscount: 5000,
        maxDiscountAmount: 300,
      }),
    )
    // burger 1250 + cab 4800 = 6050
    const order = await newOrder(t, { lineItems: [{ sku: 'BURGER' }, { sku: 'CAB-BTL' }] })
    const ten = await ok(apply(order.id, { couponCode: 'tenoff' }))
    expect(ten.appliedDiscounts[0]).toMatchObject({
      sourceType: 'coupon',
      code: 'TENOFF',
      scope: 'order',
      discountType: 'percentage',
      value: 1000,
      amount: 605,
      actionMessage: '10% off',
      stackingScope: 'sequential',
    })
    // 605 spread in proportion 1250:4800 -> 125 / 480
    expect(ten.lineItems.map((l: any) => l.discountAmount)).toEqual([125, 480])
    const five = await ok(apply(order.id, { couponCode: 'FIVE' }))
    expect(five.appliedDiscounts.map((d: any) => d.amount)).toEqual([605, 500])
    const half = await ok(apply(order.id, { couponCode: 'HALF' }))
    expect(half.appliedDiscounts[2]).toMatchObject({
      amount: 300,
      eligibilitySummary: expect.stringContaining('capped at 3.00'),
    })
    expect(half.discountTotal).toBe(1405)
    const [burger, cab] = half.lineItems
    expect(burger.discountAmount + cab.discountAmount).toBe(1405)
    // tax per line on the discounted amount: food 8.75%, wine 10%
    const tax = (net: number, bps: number) => Math.floor((2 * net * bps + 10_000) / 20_000)
    expect(burger.taxAmount).toBe(tax(1250 - burger.discountAmount, 875))
    expect(cab.taxAmount).toBe(tax(4800 - cab.discountAmount, 1000))
    expect(half.total).toBe(6050 - 1405 + burger.taxAmount + cab.taxAmount)
    const removed = await ok(
      t.request('DELETE', `/order/${order.id}/discount/${half.appliedDiscounts[0].id}`),
    )
    // Without the 10%, FIVE and HALF now see the full amount: 500, then 50% of 5550 capped at 300.
    expect(removed.appliedDiscounts.map((d: any) => [d.code, d.amount])).toEqual([
      ['FIVE', 500],
      ['HALF', 300],
    ])
    expect(removed.discountTotal).toBe(800)
    expect((await t.request('DELETE', `/order/${order.id}/discount/nope`)).status).toBe(404)
  })

  test('a line coupon and a product coupon reduce only their lines', async () => {
    t.catalog.coupons.push(
      coupon({
        code: 'WINE20',
        productDiscountType: 'Percentage Off',
        productDiscount: 2000,
        appliesTo: 'Product',
        appliesToObjectIds: ['p-CAB-BTL'],
      }),
      coupon({
        code: 'REDS',
        productDiscountType: 'Dollar Off',
        productDiscount: 100,
        appliesTo: 'Collection',
        appliesToObjectIds: ['col-red'],
      }),
      coupon({ code: 'ONE', productDiscountType: 'Dollar Off', productDiscount: 200 }),
    )
    const order = await newOrder(t, { lineItems: [{ sku: 'BURGER' }, { sku: 'CAB-BTL' }] })
    const wine = await ok(apply(order.id, { couponCode: 'WINE20' }))
    expect(wine.lineItems.map((l: any) => l.discountAmount)).toEqual([0, 960])
    const reds = await ok(apply(order.id, { couponCode: 'REDS' }))
    expect(reds.lineItems.map((l: any) => l.discountAmount)).toEqual([0, 1060])
    const line = await ok(apply(order.id, { couponCode: 'ONE', lineItemId: order.lineItems[0].id }))
    expect(line.appliedDiscounts[2]).toMatchObject({
      scope: 'line',
      lineItemId: order.lineItems[0].id,
      amount: 200,
    })
    expect(line.lineItems.map((l: any) => l.discountAmount)).toEqual([200, 1060])
    const fries = await newOrder(t, { lineItems: [{ sku: 'FRIES' }] })
    const none = await apply(fries.id, { couponCode: 'WINE20' })
    expect(none.status).toBe(409)
    expect(none.body.reason).toBe('no_eligible_items')
  })

  test('refusals: unknown code 400; disabled, dated, minimum, combinability, duplicates 409 with a reason', async () => {
    const today = todayIn('America/Los_Angeles')
    t.catalog.coupons.push(
      coupon({ code: 'OFF', status: 'Disabled' }),
      coupon({ code: 'LATER', startDate: '2999-01-01' }),
      coupon({ code: 'PAST', endDate: '2000-01-01' }),
      coupon({ code: 'TODAY', startDate: today, endDate: today }),
      coupon({ code: 'BIG', minimumCartAmount: 10_000 }),
      coupon({ code: 'SOLO', combinability: 'exclusive' }),
    )
    const order = await newOrder(t, { lineItems: [{ sku: 'BURGER' }] })
    const unknown = await apply(order.id, { couponCode: 'NOPE' })
    expect(unknown.status).toBe(400)
    expect(unknown.body.errors[0].path).toBe('body/couponCode')
    for (const [code, reason] of [
      ['OFF', 'disabled'],
      ['LATER', 'not_started'],
      ['PAST', 'expired'],
      ['BIG', 'minimum_not_met'],
    ]) {
      const res = await apply(order.id, { couponCode: code })
      expect({ code, status: res.status, reason: res.body.reason }).toEqual({ code, status: 409, reason })
    }
    await ok(apply(order.id, { couponCode: 'TODAY' }))
    expect((await apply(order.id, { couponCode: 'TODAY' })).body.reason).toBe('already_applied')
    expect((await apply(order.id, { couponCode: 'SOLO' })).body.reason).toBe('not_combinable')
    expect(countRows(t.tenant.db, 'order_discounts')).toBe(1)
  })

  test('usage limits count other orders that are not voided; per-customer limits need a customer', async () => {
    t.catalog.coupons.push(
      coupon({ code: 'ONCE', usageLimitType: 'Total', usageLimit: 1 }),
      coupon({ code: 'MINE', usageLimitType: 'Per Customer', usageLimit: 1 }),
    )
    const first = await newOrder(t, { lineItems: [{ sku: 'BURGER' }], customerId: 'cust-1' })
    const second = await newOrder(t, { lineItems: [{ sku: 'BURGER' }], customerId: 'cust-1' })
    const third = await newOrder(t, { lineItems: [{ sku: 'BURGER' }], customerId: 'cust-2' })
    const anonymous = await newOrder(t, { lineItems: [{ sku: 'BURGER' }] })
    await ok(apply(first.id, { couponCode: 'ONCE' }))
    expect((await apply(second.id, { couponCode: 'ONCE' })).body.reason).toBe('usage_limit_reached')
    await ok(t.request('POST', `/order/${first.id}/void`, { body: { voidReasonName: 'test' } }))
    await ok(apply(second.id, { couponCode: 'ONCE' }))
    await ok(apply(second.id, { couponCode: 'MINE' }))
    expect((await apply(third.id, { couponCode: 'MINE' })).status).toBe(200)
    const again = await newOrder(t, { lineItems: [{ sku: 'BURGER' }], customerId: 'cust-2' })
    // The coupons engine names the per-customer limit apart from the total one.
    expect((await apply(again.id, { couponCode: 'MINE' })).body.reason).toBe('customer_usage_limit_reached')
    expect((await apply(anonymous.id, { couponCode: 'MINE' })).body.reason).toBe('customer_required')
  })

  test('manager approval: needs a named active staff user holding discounts:approve', async () => {
    t.catalog.coupons.push(coupon({ code: 'COMP', requiresManagerApproval: true }), coupon({ code: 'PLAIN' }))
    const order = await newOrder(t, { lineItems: [{ sku: 'BURGER' }] })
    const missing = await apply(order.id, { couponCode: 'COMP' })
    expect(missing.status).toBe(403)
    const notManager = await apply(order.id, {
      couponCode: 'COMP',
      managerApprovedByStaffUserId: t.tenant.staff.id,
    })
    expect(notManager.status).toBe(403)
    const unknown = await apply(order.id, { couponCode: 'COMP', managerApprovedByStaffUserId: 'nobody' })
    expect(unknown.status).toBe(400)
    const elsewhere = await t.addStaff(t.tenant, { role: 'manager', locationId: (await otherLocation()).id })
    const wrongPlace = await apply(order.id, {
      couponCode: 'COMP',
      managerApprovedByStaffUserId: elsewhere.id,
    })
    expect(wrongPlace.status).toBe(403)
    expect(countRows(t.tenant.db, 'order_discounts')).toBe(0)
    const approved = await ok(
      apply(order.id, { couponCode: 'COMP', managerApprovedByStaffUserId: t.tenant.manager.id }),
    )
    expect(approved.appliedDiscounts[0]).toMatchObject({
      requiresManagerApproval: true,
      managerApprovedByStaffUserId: t.tenant.manager.id,
      amount: 500,
    })
    const audit = t.tenant.db.$client
      .query("SELECT metadata FROM audit_entries WHERE action = 'order.discount.apply'")
      .get() as { metadata: string }
    expect(JSON.parse(audit.metadata)).toMatchObject({ approvedBy: t.tenant.manager.id, code: 'COMP' })
    const needless = await apply(order.id, {
      couponCode: 'PLAIN',
      managerApprovedByStaffUserId: t.tenant.manager.id,
    })
    expect(needless.status).toBe(400)
    expect((await apply(order.id, { couponCode: 'PLAIN' }, t.tenant.readOnly)).status).toBe(403)
  })

  test('amounts follow the order: a minimum no longer met gives 0 with the reason; discounts never exceed the paid-for total', async () => {
    t.catalog.coupons.push(coupon({ code: 'MIN', productDiscount: 300, minimumCartAmount: 1500 }))
    const order = await newOrder(t, { lineItems: [{ sku: 'BURGER' }, { sku: 'FRIES' }] })
    const applied = await ok(apply(order.id, { couponCode: 'MIN' }))
    expect(applied.discountTotal).toBe(300)
    const smaller = await ok(t.request('DELETE', `/order/${order.id}/line/${order.lineItems[1].id}`))
    expect(smaller.appliedDiscounts[0]).toMatchObject({
      amount: 0,
      eligibilitySummary: expect.stringContaining('at least 15.00'),
    })
    expect(smaller.discountTotal).toBe(0)
  })

  test('a Store coupon may be applied before the order has discountable lines: 0 until it has', async () => {
    t.catalog.coupons.push(coupon({ code: 'EARLY', productDiscount: 300 }))
    const order = await newOrder(t)
    const early = await ok(apply(order.id, { couponCode: 'EARLY' }))
    expect(early.appliedDiscounts[0]).toMatchObject({ amount: 0 })
    expect(early.discountTotal).toBe(0)
    const withBurger = await ok(t.request('POST', `/order/${order.id}/line`, { body: { sku: 'BURGER' } }))
    expect(withBurger.appliedDiscounts[0].amount).toBe(300)
    expect(withBurger.lineItems.map((l: any) => l.discountAmount)).toEqual([300])
  })
})

async function otherLocation() {
  return t.addLocation(t.tenant, {
    name: 'Second',
    timezone: 'America/Los_Angeles',
  })
}
