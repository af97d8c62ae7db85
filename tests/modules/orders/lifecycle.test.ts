// The order lifecycle over HTTP: submit, voids, close, payments hooks, and every refused move.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { recordOrderPayment, recordOrderRefund } from '../../../src/modules/orders/lifecycle'
import { systemActor } from '../../../src/platform/foundation/actor'
import { createOrdersTestApp, inCalifornia, newOrder, type OrdersTestApp, ok } from './helpers'

let t: OrdersTestApp
beforeEach(async () => {
  t = await createOrdersTestApp()
  await inCalifornia(t)
})
afterEach(() => t.close())

const actor = () => systemActor(t.tenant.id, 'payments', t.tenant.staff.id)
const pay = (orderId: string, amount: number, tipAmount = 0, paymentIntentId = 'pi_1') =>
  recordOrderPayment(t.tenant.db, actor(), {
    orderId,
    paymentIntentId,
    amount,
    tipAmount,
  })

const events = () =>
  t.tenant.db.$client
    .query("SELECT action FROM outbox_events WHERE object = 'order' ORDER BY created_at")
    .all()

describe('submit', () => {
  test('sends new lines, sets submittedAt once, depletes stock, emits submit', async () => {
    const order = await newOrder(t, {
      lineItems: [
        { sku: 'BURGER', quantity: 2 },
        { lineType: 'open_item', title: 'Corkage', unitPrice: 1500, openItemScope: 'wine' },
      ],
    })
    const submitted = await ok(t.request('POST', `/order/${order.id}/submit`))
    expect(submitted.status).toBe('submitted')
    expect(submitted.submittedAt).toBeString()
    expect(submitted.lineItems.map((l: any) => l.sendStatus)).toEqual(['sent', 'sent'])
    expect(t.catalog.depleted).toEqual([
      {
        orderId: order.id,
        locationId: t.tenant.locationId,
        lines: [{ lineId: order.lineItems[0].id, productId: 'p-BURGER', quantity: 2 }],
      },
    ])
    const again = await t.request('POST', `/order/${order.id}/submit`)
    expect(again.status).toBe(409)
    expect(again.body).toMatchObject({ currentStatus: 'submitted', newLines: 0 })
    const added = await ok(t.request('POST', `/order/${order.id}/line`, { body: { sku: 'FRIES' } }))
    expect(added.lineItems[2].sendStatus).toBe('new')
    const resent = await ok(t.request('POST', `/order/${order.id}/submit`))
    expect(resent.submittedAt).toBe(submitted.submittedAt)
    expect(resent.lineItems[2].sendStatus).toBe('sent')
    expect(t.catalog.depleted).toHaveLength(2)
    expect(events().map((e: any) => e.action)).toEqual(['create', 'submit', 'update', 'submit'])
  })

  test('an empty draft cannot be submitted', async () => {
    const order = await newOrder(t)
    const res = await t.request('POST', `/order/${order.id}/submit`)
    expect(res.status).toBe(409)
    expect(res.body.currentStatus).toBe('draft')
  })
})

describe('voids', () => {
  test('void a line: reason, who and when; it counts nothing; stock goes back; twice is 409', async () => {
    const order = await newOrder(t, { lineItems: [{ sku: 'BURGER' }, { sku: 'FRIES' }] })
    await ok(t.request('POST', `/order/${order.id}/submit`))
    const fries = order.lineItems[1].id
    const forbidden = await t.request('POST', `/order/${order.id}/line/${fries}/void`, {
      as: t.tenant.staff,
      body: { voidReasonName: 'Kitchen error' },
    })
    expect(forbidden.status).toBe(403)
    const voided = await ok(
      t.request('POST', `/order/${order.id}/line/${fries}/void`, {
        as: t.tenant.manager,
        body: { voidReasonId: 'r-1', voidReasonName: 'Kitchen error' },
      }),
    )
    expect(voided.lineItems[1]).toMatchObject({
      voidReasonId: 'r-1',
      voidReasonName: 'Kitchen error',
      voidedByStaffUserId: t.tenant.manager.id,
      voidedByStaffName: 'Test manager',
      subtotal: 0,
      total: 0,
    })
    expect(voided.lineItems[1].voidedAt).toBeString()
    // 1250 + tax 109.375 -> 109
    expect(voided).toMatchObject({ subtotal: 1250, taxTotal: 109, total: 1359 })
    expect(t.catalog.reversed).toEqual([{ orderId: order.id, lineIds: [fries] }])
    const twice = await t.request('POST', `/order/${order.id}/line/${fries}/void`, {
      body: { voidReasonName: 'again' },
    })
    expect(twice.status).toBe(409)
    expect(twice.body.currentStatus).toBe('voided')
    const noReason = await t.request('POST', `/order/${order.id}/line/${order.lineItems[0].id}/void`, {
      body: {},
    })
    expect(noReason.status).toBe(400)
  })

  test('void the order: every line voided, totals 0, then every change is 409 with the status', async () => {
    const order = await newOrder(t, { lineItems: [{ sku: 'BURGER' }] })
    await ok(t.request('POST', `/order/${order.id}/submit`))
    expect(
      (
        await t.request('POST', `/order/${order.id}/void`, {
          as: t.tenant.staff,
          body: { voidReasonName: 'x' },
        })
      ).status,
    ).toBe(403)
    const voided = await ok(
      t.request('POST', `/order/${order.id}/void`, { body: { voidReasonName: 'Walked out' } }),
    )
    expect(voided).toMatchObject({
      status: 'voided',
      voidReasonName: 'Walked out',
      subtotal: 0,
      taxTotal: 0,
      total: 0,
      balanceDue: 0,
    })
    expect(voided.lineItems[0].voidReasonName).toBe('Walked out')
    expect(t.catalog.reversed).toEqual([{ orderId: order.id }])
    const line = order.lineItems[0].id
    for (const [method, path, body] of [
      ['POST', '/void', { voidReasonName: 'again' }],
      ['POST', '/submit', undefined],
      ['POST', '/close', undefined],
      ['POST', '/line', { sku: 'FRIES' }],
      ['PUT', `/line/${line}`, { quantity: 2 }],
      ['DELETE', `/line/${line}`, undefined],
      ['POST', `/line/${line}/void`, { voidReasonName: 'x' }],
      ['POST', '/discount', { couponCode: 'X' }],
      ['PUT', '', { note: 'x' }],
      [
        'POST',
        '/fulfillment/all',
        { type: 'Picked Up', fulfillmentDate: '2025-01-01', packageCount: 0, sendTransactionEmail: false },
      ],
    ] as const) {
      const res = await t.request(method, `/order/${order.id}${path}`, { body })
      expect({ path, status: res.status, currentStatus: res.body.currentStatus }).toEqual({
        path,
        status: 409,
        currentStatus: 'voided',
      })
    }
    expect(events().at(-1)).toEqual({ action: 'void' })
  })

  test('an order with payments cannot be voided, nor a line voided below what is paid', async () => {
    const order = await newOrder(t, { lineItems: [{ sku: 'BURGER' }, { sku: 'FRIES' }] })
    await ok(t.request('POST', `/order/${order.id}/submit`))
    pay(order.id, 1500)
    const res = await t.request('POST', `/order/${order.id}/void`, { body: { voidReasonName: 'x' } })
    expect(res.status).toBe(409)
    expect(res.body).toMatchObject({ currentStatus: 'submitted', amountPaid: 1500 })
    // Voiding the burger would leave fries 450 + tax 39 = 489 < 1500 paid.
    const line = await t.request('POST', `/order/${order.id}/line/${order.lineItems[0].id}/void`, {
      body: { voidReasonName: 'x' },
    })
    expect(line.status).toBe(409)
    expect((await ok(t.request('GET', `/order/${order.id}`))).lineItems[0].voidedAt).toBeNull()
  })
})

describe('payments and close', () => {
  test('partial payment, then the rest with a tip makes it paid; refund makes it due again; close', async () => {
    const order = await newOrder(t, { lineItems: [{ sku: 'BURGER' }] })
    await ok(t.request('POST', `/order/${order.id}/submit`))
    expect(order.total).toBe(1359)
    const early = await t.request('POST', `/order/${order.id}/close`)
    expect(early.status).toBe(409)
    expect(early.body).toMatchObject({ currentStatus: 'submitted', balanceDue: 1359 })
    let view = pay(order.id, 1000)
    expect(view).toMatchObject({
      status: 'submitted',
      amountPaid: 1000,
      balanceDue: 359,
      paymentIntentIds: ['pi_1'],
    })
    expect(() => pay(order.id, 400)).toThrow('exceeds the balance due')
    view = pay(order.id, 359, 250, 'pi_2')
    expect(view).toMatchObject({
      status: 'paid',
      tipTotal: 250,
      total: 1609,
      amountPaid: 1609,
      balanceDue: 0,
      paymentIntentIds: ['pi_1', 'pi_2'],
    })
    expect(view.paidAt).toBeString()
    expect(() => pay(order.id, 1)).toThrow('cannot take payments on an order that is paid')
    view = recordOrderRefund(t.tenant.db, actor(), {
      orderId: order.id,
      paymentIntentId: 'pi_2',
      amount: 359,
      tipAmount: 250,
    })
    expect(view).toMatchObject({
      status: 'submitted',
      tipTotal: 0,
      total: 1359,
      amountPaid: 1000,
      balanceDue: 359,
      paidAt: null,
    })
    expect(() =>
      recordOrderRefund(t.tenant.db, actor(), {
        orderId: order.id,
        paymentIntentId: 'pi_1',
        amount: 2000,
        tipAmount: 0,
      }),
    ).toThrow('exceeds')
    pay(order.id, 359, 0, 'pi_3')
    const closed = await ok(t.request('POST', `/order/${order.id}/close`))
    expect(closed).toMatchObject({ status: 'closed' })
    expect(closed.closedAt).toBeString()
    const add = await t.request('POST', `/order/${order.id}/line`, { body: { sku: 'FRIES' } })
    expect(add.status).toBe(409)
    expect(add.body.currentStatus).toBe('closed')
    expect((await t.request('POST', `/order/${order.id}/close`)).body.currentStatus).toBe('closed')
  })

  test('a draft paid in full is sent and becomes paid', async () => {
    const order = await newOrder(t, { lineItems: [{ sku: 'FRIES' }] })
    const view = pay(order.id, order.total)
    expect(view.status).toBe('paid')
    expect(view.submittedAt).toBeString()
    expect(view.lineItems[0]!.sendStatus).toBe('sent')
    expect(t.catalog.depleted).toHaveLength(1)
  })

  test('a fully comped submitted order closes without payment', async () => {
    const order = await newOrder(t, {
      lineItems: [{ lineType: 'open_item', title: 'Water', unitPrice: 0, openItemScope: 'food' }],
    })
    await ok(t.request('POST', `/order/${order.id}/submit`))
    expect((await ok(t.request('POST', `/order/${order.id}/close`))).status).toBe('closed')
  })

  test('a draft cannot be closed', async () => {
    const order = await newOrder(t)
    const res = await t.request('POST', `/order/${order.id}/close`)
    expect(res.status).toBe(409)
    expect(res.body).toMatchObject({ currentStatus: 'draft', allowedStatuses: ['submitted', 'paid'] })
  })
})

describe('fundraising', () => {
  test('round-up on the amount due, updated as lines change; fixed contributions', async () => {
    const order = await newOrder(t, {
      fundraising: { campaignName: 'Meals for kids', contributionType: 'round_up' },
      lineItems: [{ sku: 'BURGER' }],
    })
    // 1250 + 109 tax = 1359 -> 1400: 41 given
    expect(order.fundraising).toMatchObject({
      campaignName: 'Meals for kids',
      contributionValue: 100,
      contributionAmountCents: 41,
    })
    expect(order.total).toBe(1400)
    const more = await ok(t.request('POST', `/order/${order.id}/line`, { body: { sku: 'FRIES' } }))
    // tax per line: 109 + 39 (450 × 0.0875 = 39.375), not 148.75 -> 149 on the sum: 1848 -> 1900: 52
    expect(more.taxTotal).toBe(148)
    expect(more.fundraising.contributionAmountCents).toBe(52)
    expect(more.total).toBe(1900)
    const fixed = await ok(
      t.request('PUT', `/order/${order.id}`, {
        body: { fundraising: { contributionType: 'fixed', contributionValue: 500 } },
      }),
    )
    expect(fixed).toMatchObject({ total: 1848 + 500, balanceDue: 2348 })
    const none = await ok(t.request('PUT', `/order/${order.id}`, { body: { fundraising: null } }))
    expect(none).toMatchObject({ fundraising: null, total: 1848 })
  })
})

describe('gift card lines', () => {
  test('sold untaxed and undiscounted, one per line, issued when the order is paid', async () => {
    t.catalog.coupons.push(
      (await import('./helpers')).coupon({
        code: 'TEN',
        productDiscountType: 'Percentage Off',
        productDiscount: 1000,
      }),
    )
    const order = await newOrder(t, {
      lineItems: [
        { sku: 'BURGER' },
        {
          lineType: 'open_item',
          title: 'Gift card',
          unitPrice: 5000,
          giftCardSale: { recipientEmail: 'ana@example.test', deliveryChannel: 'email', fromName: 'Bo' },
        },
      ],
    })
    const card = order.lineItems[1]
    expect(card).toMatchObject({ taxCode: null, taxRateBps: 0, taxAmount: 0, subtotal: 5000 })
    expect(card.giftCardSale).toMatchObject({
      recipientEmail: 'ana@example.test',
      fromName: 'Bo',
      code: null,
    })
    const discounted = await ok(
      t.request('POST', `/order/${order.id}/discount`, { body: { couponCode: 'TEN' } }),
    )
    expect(discounted.lineItems.map((l: any) => l.discountAmount)).toEqual([125, 0])
    for (const body of [
      { lineType: 'open_item', title: 'GC', unitPrice: 100, quantity: 2, giftCardSale: {} },
      { lineType: 'open_item', title: 'GC', unitPrice: 100, taxCode: 'food', giftCardSale: {} },
      { lineType: 'open_item', title: 'GC', unitPrice: 100, giftCardSale: { colour: 'red' } },
    ]) {
      expect((await t.request('POST', `/order/${order.id}/line`, { body })).status).toBe(400)
    }
    expect(t.catalog.issued).toEqual([])
    pay(order.id, discounted.balanceDue)
    expect(t.catalog.issued).toEqual([
      {
        orderId: order.id,
        orderNumber: order.orderNumber,
        locationId: t.tenant.locationId,
        lines: [
          {
            lineId: card.id,
            giftCardSale: card.giftCardSale,
            amount: 5000,
            productId: null,
            title: 'Gift card',
          },
        ],
      },
    ])
  })
})
