// A release of three members worked by hand: one shipped to Washington, one picking up at the
// (California) location, one shipped in California whose card declines, then retried with a new
// card. Every cent of each order and charge is computed here from the setup:
//
// Items: 2 × Pinot at the catalog 45.00 + 1 × Chardonnay at the release price 32.00
//   = 90.00 + 32.00 = 122.00 (the subtotal; shipping is not a line).
// Member coupon 15% on the two wines: 90.00 × 15% = 13.50 and 32.00 × 15% = 4.80 → 18.30.
// Net wine: 90.00 − 13.50 = 76.50 and 32.00 − 4.80 = 27.20.
// Shipped orders ship to the member's address and carry the order's shipping charge: 3 bottles ×
//   3 lb = 9 lb → Ground up to 10 lb = 18.50 (`shippingTotal`), taxed at the ship-to's `freight`
//   rate. No bottle deposits (the wines have none), no service charges.
// Tax rounds half up per line and on shipping.
//
// Shipped to WA (6.5% on wine and freight): 76.50 → 4.9725 → 4.97; 27.20 → 1.768 → 1.77;
//   shipping 18.50 → 1.2025 → 1.20; tax 4.97 + 1.77 + 1.20 = 7.94.
//   Total 122.00 − 18.30 + 18.50 + 7.94 = 130.14.
// Pickup in CA (8.75%, no shipping): 76.50 → 6.69375 → 6.69; 27.20 → 2.38; tax 9.07.
//   Total 122.00 − 18.30 + 9.07 = 112.77.
// Shipped to CA (8.75% on wine, freight 0%): 6.69 + 2.38 + shipping 0 = tax 9.07.
//   Total 122.00 − 18.30 + 18.50 + 9.07 = 131.27.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createTestApp, type TestApp } from '../../harness'
import { activeRelease, member, ok, processNow, type Winery, winery } from './setup'

let t: TestApp
let w: Winery
let shipped: { customerId: string; membershipId: string }
let pickup: { customerId: string; membershipId: string }
let declined: { customerId: string; membershipId: string }
let releaseId: string

beforeAll(async () => {
  t = await createTestApp()
  w = await winery(t)
  shipped = await member(t, w.clubId, { method: 'Ship', state: 'WA' })
  pickup = await member(t, w.clubId, { method: 'Pickup' })
  declined = await member(t, w.clubId, { method: 'Ship', state: 'CA', token: 'tok_chargeCustomerFail' })
  releaseId = await activeRelease(t, w)
})
afterAll(() => t.close())

const shipmentOf = async (membershipId: string) =>
  (await ok(t, 'GET', `/club/${w.clubId}/releases/${releaseId}/shipments`)).clubShipments.find(
    (s: any) => s.membershipId === membershipId,
  )

const paymentsOf = (orderId: string) =>
  t.tenant.db.$client
    .query(
      'SELECT status, amount, tip_amount AS tip FROM payment_intents WHERE order_id = ? ORDER BY created_at',
    )
    .all(orderId)

describe('club release: worked example', () => {
  test('the shipped member: items, member discount, Ground shipping charge, Washington tax; charged 130.14', async () => {
    await processNow(t, w.clubId, releaseId)
    const shipment = await shipmentOf(shipped.membershipId)
    expect(shipment).toMatchObject({ status: 'Processed', reason: null, attempts: 1, amount: 13014 })
    const order = await ok(t, 'GET', `/order/${shipment.orderId}`)
    expect(order).toMatchObject({
      customerId: shipped.customerId,
      fulfillmentMode: 'shipping',
      status: 'paid',
      subtotal: 12200,
      discountTotal: 1830,
      shippingTotal: 1850,
      shipping: {
        shipTo: { countryCode: 'US', stateCode: 'WA' },
        serviceTitle: 'Ground',
        amount: 1850,
        taxAmount: 120,
      },
      taxTotal: 794,
      total: 13014,
      amountPaid: 13014,
      balanceDue: 0,
    })
    expect(
      order.lineItems.map((l: any) => [l.title, l.quantity, l.unitPrice, l.discountAmount, l.taxAmount]),
    ).toEqual([
      ['Pinot Noir 2022', 2, 4500, 1350, 497],
      ['Chardonnay 2023', 1, 3200, 480, 177],
    ])
    expect(paymentsOf(order.id)).toEqual([{ status: 'captured', amount: 13014, tip: 0 }])
  })

  test('the pickup member: taxed at the location (California), no shipping; charged 112.77', async () => {
    const shipment = await shipmentOf(pickup.membershipId)
    expect(shipment).toMatchObject({ status: 'Processed', attempts: 1, amount: 11277 })
    const order = await ok(t, 'GET', `/order/${shipment.orderId}`)
    expect(order).toMatchObject({
      fulfillmentMode: 'pickup',
      status: 'paid',
      subtotal: 12200,
      discountTotal: 1830,
      shippingTotal: 0,
      taxTotal: 907,
      total: 11277,
      balanceDue: 0,
    })
    expect(order.lineItems.map((l: any) => [l.unitPrice, l.discountAmount, l.taxAmount])).toEqual([
      [4500, 1350, 669],
      [3200, 480, 238],
    ])
    expect(paymentsOf(order.id)).toEqual([{ status: 'captured', amount: 11277, tip: 0 }])
  })

  test('the declined member: the order stays unpaid at 131.27 and the shipment says why', async () => {
    const shipment = await shipmentOf(declined.membershipId)
    expect(shipment).toMatchObject({
      status: 'Declined',
      reason: 'Your card was declined.',
      attempts: 1,
      amount: 13127,
    })
    const order = await ok(t, 'GET', `/order/${shipment.orderId}`)
    expect(order).toMatchObject({
      status: 'draft',
      subtotal: 12200,
      discountTotal: 1830,
      shippingTotal: 1850,
      shipping: {
        shipTo: { countryCode: 'US', stateCode: 'CA' },
        serviceTitle: 'Ground',
        amount: 1850,
        taxAmount: 0,
      },
      taxTotal: 907,
      total: 13127,
      amountPaid: 0,
      balanceDue: 13127,
    })
    expect(order.lineItems.map((l: any) => l.taxAmount)).toEqual([669, 238])
    expect(paymentsOf(order.id)).toEqual([{ status: 'failed', amount: 13127, tip: 0 }])
    const release = await ok(t, 'GET', `/club/${w.clubId}/releases/${releaseId}`)
    expect(release.summary).toEqual({
      Pending: { count: 0, amount: 0 },
      Processed: { count: 2, amount: 13014 + 11277 },
      Declined: { count: 1, amount: 13127 },
      Skipped: { count: 0, amount: 0 },
      OnHold: { count: 0, amount: 0 },
    })
    const membership = await ok(t, 'GET', `/club-membership/${declined.membershipId}`)
    expect(membership).toMatchObject({ lastProcessedDate: null, currentNumberOfShipments: 0 })
  })

  test('retried with a new card: the same order is charged 131.27 once; the membership moves on', async () => {
    const card = await ok(t, 'POST', `/customers/${declined.customerId}/payment-methods`, {
      providerToken: 'tok_visa',
    })
    await ok(t, 'PUT', `/club-membership/${declined.membershipId}`, { customerCreditCardId: card.id })
    const before = await shipmentOf(declined.membershipId)
    const retried = await ok(
      t,
      'POST',
      `/club/${w.clubId}/releases/${releaseId}/shipments/${before.id}/retry`,
    )
    expect(retried).toMatchObject({ status: 'Processed', reason: null, attempts: 2, orderId: before.orderId })
    const order = await ok(t, 'GET', `/order/${before.orderId}`)
    expect(order).toMatchObject({ status: 'paid', total: 13127, amountPaid: 13127, balanceDue: 0 })
    expect(paymentsOf(order.id)).toEqual([
      { status: 'failed', amount: 13127, tip: 0 },
      { status: 'captured', amount: 13127, tip: 0 },
    ])
    for (const m of [shipped, pickup, declined])
      expect(await ok(t, 'GET', `/club-membership/${m.membershipId}`)).toMatchObject({
        lastProcessedDate: '2026-11-01',
        nextProcessDate: '2027-02-01',
        currentNumberOfShipments: 1,
      })
    const orders = t.tenant.db.$client.query('SELECT count(*) AS n FROM orders').get() as { n: number }
    expect(orders.n).toBe(3)
  })
})
