// Payments on orders: cash into the drawer, cards through the sandbox provider, gift cards,
// tips, partial payments, refunds, and idempotency.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { countRows, createTestApp, type TestApp } from '../../harness'
import { drawer, ok, openDrawer } from '../cash/helpers'
import { act, getOrder, newKey, orderOf, pay } from './helpers'

let t: TestApp
beforeEach(async () => {
  t = await createTestApp()
})
afterEach(() => t.close())

describe('cash', () => {
  test('partial cash payments land in the drawer; the order is paid when the balance reaches 0', async () => {
    const d = await openDrawer(t, { startingBalance: 10_000 })
    const order = await orderOf(t, 5_000)
    const first = await ok(pay(t, order.id, { tender: 'cash', amount: 2_000, amountTendered: 2_000 }), 201)
    expect(first).toMatchObject({
      orderId: order.id,
      tender: 'cash',
      status: 'captured',
      amount: 2_000,
      tipAmount: 0,
      capturedAmount: 2_000,
      refundableAmount: 2_000,
      drawerId: d.id,
      changeDue: 0,
    })
    let current = await getOrder(t, order.id)
    expect(current).toMatchObject({ status: 'draft', balanceDue: 3_000, paymentIntentIds: [first.id] })
    const second = await ok(
      pay(t, order.id, { tender: 'cash', amount: 3_000, tipAmount: 600, amountTendered: 4_000 }),
      201,
    )
    expect(second).toMatchObject({ changeDue: 400, tipAmount: 600, capturedAmount: 3_600 })
    current = await getOrder(t, order.id)
    expect(current).toMatchObject({
      status: 'paid',
      balanceDue: 0,
      tipTotal: 600,
      total: 5_600,
      paymentIntentIds: [first.id, second.id],
    })
    const detail = await drawer(t, d.id)
    expect(
      detail.entries.map((e: any) => [e.entryType, e.amount, e.balanceDelta, e.paymentIntentId]),
    ).toEqual([
      ['cash_collected', 2_000, 2_000, first.id],
      ['cash_collected', 3_600, 3_600, second.id],
    ])
    expect(detail.drawer.expectedBalance).toBe(15_600)
    // Nothing left to pay.
    const over = await pay(t, order.id, { tender: 'cash', amount: 1 })
    expect(over.status).toBe(409)
  })

  test('the drawer: the caller’s assigned one, a named one, none is 409, several unassigned is 409', async () => {
    const order = await orderOf(t, 3_000)
    const none = await pay(t, order.id, { tender: 'cash', amount: 1_000 })
    expect(none.status).toBe(409)
    expect(none.body.reason).toBe('no_open_drawer')
    const a = await openDrawer(t, { label: 'A' })
    const b = await openDrawer(t, { label: 'B' })
    const ambiguous = await pay(t, order.id, { tender: 'cash', amount: 1_000 })
    expect(ambiguous.status).toBe(409)
    expect(ambiguous.body.reason).toBe('ambiguous_drawer')
    expect(countRows(t.tenant.db, 'payment_intents')).toBe(0)
    const named = await ok(pay(t, order.id, { tender: 'cash', amount: 1_000, drawerId: b.id }), 201)
    expect(named.drawerId).toBe(b.id)
    await ok(t.request('POST', `/cash-management/drawers/${a.id}/assign`, { as: t.tenant.staff, body: {} }))
    const mine = await ok(pay(t, order.id, { tender: 'cash', amount: 1_000 }, { as: t.tenant.staff }), 201)
    expect(mine.drawerId).toBe(a.id)
    const closedDrawer = await openDrawer(t, { label: 'C', startingBalance: 0 })
    await ok(
      t.request('POST', `/cash-management/drawers/${closedDrawer.id}/close`, { body: { actualBalance: 0 } }),
    )
    const refused = await pay(t, order.id, { tender: 'cash', amount: 1_000, drawerId: closedDrawer.id })
    expect(refused.status).toBe(409)
    expect(refused.body.currentState).toBe('closed')
  })

  test('cash refunds take cash out of the drawer and put the balance back', async () => {
    const d = await openDrawer(t, { startingBalance: 0 })
    const order = await orderOf(t, 4_000)
    const payment = await ok(pay(t, order.id, { tender: 'cash', amount: 4_000, tipAmount: 500 }), 201)
    expect((await getOrder(t, order.id)).status).toBe('paid')
    const partial = await ok(act(t, order.id, payment.id, 'refund', { amount: 1_000, reason: 'cold soup' }))
    expect(partial).toMatchObject({ status: 'captured', refundedAmount: 1_000, refundableAmount: 3_500 })
    expect(partial.refunds).toMatchObject([
      { amount: 1_000, tipAmount: 0, reason: 'cold soup', drawerId: d.id },
    ])
    expect(await getOrder(t, order.id)).toMatchObject({
      status: 'submitted',
      balanceDue: 1_000,
      tipTotal: 500,
    })
    const rest = await ok(act(t, order.id, payment.id, 'refund'))
    expect(rest).toMatchObject({
      status: 'refunded',
      refundedAmount: 4_500,
      refundedTipAmount: 500,
      refundableAmount: 0,
    })
    expect(await getOrder(t, order.id)).toMatchObject({ balanceDue: 4_000, tipTotal: 0, amountPaid: 0 })
    const detail = await drawer(t, d.id)
    expect(detail.entries.map((e: any) => [e.entryType, e.reason, e.balanceDelta])).toEqual([
      ['cash_collected', 'payment', 4_500],
      ['cash_out', 'refund', -1_000],
      ['cash_out', 'refund', -3_500],
    ])
    expect(detail.drawer.expectedBalance).toBe(0)
    // Never more than captured.
    const again = await act(t, order.id, payment.id, 'refund', { amount: 1 })
    expect(again.status).toBe(409)
  })
})

describe('card', () => {
  test('captured at once through the sandbox provider, with a tip', async () => {
    const order = await orderOf(t, 2_500)
    const payment = await ok(
      pay(t, order.id, { tender: 'card', amount: 2_500, tipAmount: 500, paymentMethod: 'tok_visa' }),
      201,
    )
    expect(payment).toMatchObject({
      tender: 'card',
      status: 'captured',
      provider: 'sandbox',
      cardBrand: 'visa',
      cardLast4: '4242',
      authorizedAmount: 3_000,
      capturedAmount: 3_000,
      drawerId: null,
    })
    expect(payment.providerPaymentId).toStartWith('sandbox_pi_')
    expect(await getOrder(t, order.id)).toMatchObject({ status: 'paid', balanceDue: 0, tipTotal: 500 })
  })

  test('a declined card is 402 and kept as a failed payment; the order is unchanged', async () => {
    const order = await orderOf(t, 2_500)
    const res = await pay(t, order.id, { tender: 'card', amount: 2_500, paymentMethod: 'tok_chargeDeclined' })
    expect(res.status).toBe(402)
    expect(res.body).toMatchObject({ code: 'payment_required', paymentStatus: 'failed' })
    const list = await ok(t.request('GET', `/order/${order.id}/payments`))
    expect(list.payments).toMatchObject([
      { id: res.body.paymentIntentId, status: 'failed', capturedAmount: 0 },
    ])
    expect(list.payments[0].failureReason).toContain('declined')
    expect(await getOrder(t, order.id)).toMatchObject({ balanceDue: 2_500, paymentIntentIds: [] })
    const bad = await pay(t, order.id, { tender: 'card', amount: 2_500, paymentMethod: 'tok_nonsense' })
    expect(bad.status).toBe(400)
  })

  test('authorize, then capture with the tip; the balance counts only captured money', async () => {
    const order = await orderOf(t, 4_000)
    const auth = await ok(
      pay(t, order.id, {
        tender: 'card',
        amount: 4_000,
        tipAmount: 1_000,
        capture: false,
        paymentMethod: 'tok_mastercard',
      }),
      201,
    )
    expect(auth).toMatchObject({ status: 'authorized', authorizedAmount: 5_000, capturedAmount: 0 })
    expect(await getOrder(t, order.id)).toMatchObject({ status: 'draft', balanceDue: 4_000 })
    // The authorization holds the balance: nothing more is payable meanwhile.
    const more = await pay(t, order.id, { tender: 'card', amount: 1, paymentMethod: 'tok_visa' })
    expect(more.status).toBe(409)
    expect(more.body.pendingAuthorizedAmount).toBe(4_000)
    expect((await act(t, order.id, auth.id, 'refund')).status).toBe(409)
    expect((await act(t, order.id, auth.id, 'capture', { tipAmount: 1_500 })).status).toBe(400)
    const captured = await ok(act(t, order.id, auth.id, 'capture', { tipAmount: 800 }))
    expect(captured).toMatchObject({ status: 'captured', tipAmount: 800, capturedAmount: 4_800 })
    expect(await getOrder(t, order.id)).toMatchObject({ status: 'paid', balanceDue: 0, tipTotal: 800 })
    expect((await act(t, order.id, auth.id, 'capture')).status).toBe(409)
    expect((await act(t, order.id, auth.id, 'void')).status).toBe(409)
  })

  test('void releases an authorization', async () => {
    const order = await orderOf(t, 4_000)
    const auth = await ok(
      pay(t, order.id, { tender: 'card', amount: 4_000, capture: false, paymentMethod: 'tok_visa' }),
      201,
    )
    const voided = await ok(act(t, order.id, auth.id, 'void', { reason: 'guest paid cash' }))
    expect(voided).toMatchObject({ status: 'voided' })
    expect(voided.voidedAt).toBeString()
    expect(await getOrder(t, order.id)).toMatchObject({ balanceDue: 4_000, status: 'draft' })
    expect((await act(t, order.id, auth.id, 'capture')).status).toBe(409)
  })

  test('refunds: partial then full, never more than captured', async () => {
    const order = await orderOf(t, 6_000)
    const payment = await ok(
      pay(t, order.id, { tender: 'card', amount: 6_000, tipAmount: 900, paymentMethod: 'tok_amex' }),
      201,
    )
    const tooMuch = await act(t, order.id, payment.id, 'refund', { amount: 6_001 })
    expect(tooMuch.status).toBe(409)
    expect(tooMuch.body.refundableAmount).toBe(6_900)
    const tipTooMuch = await act(t, order.id, payment.id, 'refund', { tipAmount: 901 })
    expect(tipTooMuch.status).toBe(409)
    const partial = await ok(act(t, order.id, payment.id, 'refund', { amount: 2_000, tipAmount: 300 }))
    expect(partial).toMatchObject({ status: 'captured', refundedAmount: 2_300, refundedTipAmount: 300 })
    expect(partial.refunds[0].providerRefundId).toStartWith('sandbox_re_')
    expect(await getOrder(t, order.id)).toMatchObject({
      status: 'submitted',
      balanceDue: 2_000,
      tipTotal: 600,
    })
    const rest = await ok(act(t, order.id, payment.id, 'refund'))
    expect(rest).toMatchObject({ status: 'refunded', refundedAmount: 6_900, refundableAmount: 0 })
    expect((await act(t, order.id, payment.id, 'refund', { amount: 1 })).status).toBe(409)
    expect((await act(t, order.id, payment.id, 'refund', { amount: 0 })).status).toBe(409)
  })
})

describe('idempotency', () => {
  test('the same key and body charges once and replays the answer; another body is 422', async () => {
    const d = await openDrawer(t, { startingBalance: 0 })
    const order = await orderOf(t, 5_000)
    const key = newKey()
    const body = { tender: 'card', amount: 2_000, paymentMethod: 'tok_visa' }
    const first = await ok(pay(t, order.id, body, { key }), 201)
    const again = await ok(pay(t, order.id, body, { key }), 201)
    expect(again).toEqual(first)
    expect(countRows(t.tenant.db, 'payment_intents')).toBe(1)
    expect((await getOrder(t, order.id)).balanceDue).toBe(3_000)
    const other = await pay(t, order.id, { ...body, amount: 1_000 }, { key })
    expect(other.status).toBe(422)
    // Cash too: one drawer entry.
    const cashKey = newKey()
    const cash = { tender: 'cash', amount: 1_000 }
    const both = await Promise.all([
      pay(t, order.id, cash, { key: cashKey }),
      pay(t, order.id, cash, { key: cashKey }),
    ])
    expect(both.map((r) => r.status)).toEqual([201, 201])
    expect(both[0]!.body.id).toBe(both[1]!.body.id)
    expect((await drawer(t, d.id)).entries).toHaveLength(1)
    expect((await getOrder(t, order.id)).balanceDue).toBe(2_000)
  })

  test('a double-submitted card payment at the same moment charges once', async () => {
    const order = await orderOf(t, 5_000)
    const key = newKey()
    const body = { tender: 'card', amount: 5_000, paymentMethod: 'tok_visa' }
    const results = await Promise.all([pay(t, order.id, body, { key }), pay(t, order.id, body, { key })])
    const statuses = results.map((r) => r.status).sort()
    // Either the second waited for the first's answer, or it was told the key is in flight.
    expect(statuses.every((s) => s === 201 || s === 409)).toBe(true)
    expect(statuses).toContain(201)
    expect(countRows(t.tenant.db, 'payment_intents')).toBe(1)
    const replay = await ok(pay(t, order.id, body, { key }), 201)
    expect(replay.id).toBe(results.find((r) => r.status === 201)!.body.id)
    expect((await getOrder(t, order.id)).balanceDue).toBe(0)
  })

  test('refunds are idempotent too', async () => {
    const order = await orderOf(t, 5_000)
    const payment = await ok(
      pay(t, order.id, { tender: 'card', amount: 5_000, paymentMethod: 'tok_visa' }),
      201,
    )
    const key = newKey()
    const a = await ok(act(t, order.id, payment.id, 'refund', { amount: 1_000 }, { key }))
    const b = await ok(act(t, order.id, payment.id, 'refund', { amount: 1_000 }, { key }))
    expect(b).toEqual(a)
    expect(countRows(t.tenant.db, 'payment_refunds')).toBe(1)
    expect((await getOrder(t, order.id)).balanceDue).toBe(1_000)
  })
})

describe('validation, permissions, isolation', () => {
  test('bad bodies and a missing key are 400 and write nothing', async () => {
    await openDrawer(t)
    const order = await orderOf(t, 5_000)
    for (const body of [
      {},
      { tender: 'cash' },
      { tender: 'cheque', amount: 100 },
      { tender: 'cash', amount: '100' },
      { tender: 'cash', amount: -1 },
      { tender: 'cash', amount: 0 },
      { tender: 'cash', amount: 100, paymentMethod: 'tok_visa' },
      { tender: 'cash', amount: 100, amountTendered: 50 },
      { tender: 'card', amount: 100 },
      { tender: 'card', amount: 100, paymentMethod: 'tok_visa', giftCardCode: 'X' },
      { tender: 'card', amount: 100, customerPaymentMethodId: 'nope' },
      { tender: 'gift_card', amount: 100 },
      { tender: 'cash', amount: 100, extra: 1 },
    ]) {
      const res = await pay(t, order.id, body)
      expect({ body, status: res.status }).toEqual({ body, status: 400 })
    }
    const noKey = await t.request('POST', `/order/${order.id}/payments`, {
      body: { tender: 'cash', amount: 100 },
    })
    expect(noKey.status).toBe(400)
    expect(countRows(t.tenant.db, 'payment_intents')).toBe(0)
    expect(countRows(t.tenant.db, 'cash_drawer_entries')).toBe(0)
    expect((await getOrder(t, order.id)).balanceDue).toBe(5_000)
  })

  test('permissions: read_only cannot pay; staff cannot refund; a manager can', async () => {
    await openDrawer(t)
    const order = await orderOf(t, 5_000)
    expect((await pay(t, order.id, { tender: 'cash', amount: 100 }, { as: t.tenant.readOnly })).status).toBe(
      403,
    )
    const payment = await ok(pay(t, order.id, { tender: 'cash', amount: 1_000 }, { as: t.tenant.staff }), 201)
    expect((await act(t, order.id, payment.id, 'refund', {}, { as: t.tenant.staff })).status).toBe(403)
    await ok(act(t, order.id, payment.id, 'refund', {}, { as: t.tenant.manager }))
    expect((await t.request('GET', `/order/${order.id}/payments`, { as: t.tenant.readOnly })).status).toBe(
      200,
    )
  })

  test("another tenant's order and payment are 404; a payment of another order is 404", async () => {
    await openDrawer(t)
    const order = await orderOf(t, 5_000)
    const payment = await ok(pay(t, order.id, { tender: 'cash', amount: 1_000 }), 201)
    const other = await t.addTenant('other')
    const opts = { as: other.owner, tenant: other, headers: { 'idempotency-key': newKey() } }
    expect((await t.request('GET', `/order/${order.id}/payments`, opts)).status).toBe(404)
    expect((await t.request('GET', `/order/${order.id}/payments/${payment.id}`, opts)).status).toBe(404)
    expect(
      (
        await t.request('POST', `/order/${order.id}/payments`, {
          ...opts,
          body: { tender: 'cash', amount: 1 },
        })
      ).status,
    ).toBe(404)
    expect(
      (await t.request('POST', `/order/${order.id}/payments/${payment.id}/refund`, { ...opts, body: {} }))
        .status,
    ).toBe(404)
    const second = await orderOf(t, 1_000)
    expect((await t.request('GET', `/order/${second.id}/payments/${payment.id}`)).status).toBe(404)
    expect((await act(t, second.id, payment.id, 'refund')).status).toBe(404)
  })

  test('a voided or closed order takes no payment', async () => {
    await openDrawer(t)
    const order = await orderOf(t, 1_000)
    await ok(t.request('POST', `/order/${order.id}/void`, { body: { voidReasonName: 'mistake' } }))
    const res = await pay(t, order.id, { tender: 'cash', amount: 100 })
    expect(res.status).toBe(409)
    expect(res.body.currentStatus).toBe('voided')
  })
})
