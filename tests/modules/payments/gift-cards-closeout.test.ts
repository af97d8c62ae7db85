// Gift card payments, and the drawer closeout summary built from real orders and payments.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { createTestApp, type TestApp } from '../../harness'
import { drawer, ok, openDrawer } from '../cash/helpers'
import { issueCard, putSettings } from '../gift-cards/helpers'
import { act, getOrder, orderOf, pay } from './helpers'

let t: TestApp
beforeEach(async () => {
  t = await createTestApp()
})
afterEach(() => t.close())

const balanceOf = async (cardId: string) =>
  (await ok(t.request('GET', `/gift-card/${cardId}`))).currentBalance

describe('gift cards', () => {
  test('redeems amount + tip from the card; refunds put value back; never overdraws', async () => {
    await putSettings(t, { tipsEnabled: true })
    const card = await issueCard(t, 5_000)
    const order = await orderOf(t, 4_000)
    const tooMuch = await pay(t, order.id, {
      tender: 'gift_card',
      amount: 4_000,
      tipAmount: 1_001,
      giftCardCode: card.code,
    })
    expect(tooMuch.status).toBe(409)
    expect(await balanceOf(card.id)).toBe(5_000)
    const payment = await ok(
      pay(t, order.id, { tender: 'gift_card', amount: 3_000, tipAmount: 500, giftCardCode: card.code }),
      201,
    )
    expect(payment).toMatchObject({
      tender: 'gift_card',
      status: 'captured',
      giftCardId: card.id,
      capturedAmount: 3_500,
    })
    expect(await balanceOf(card.id)).toBe(1_500)
    expect(await getOrder(t, order.id)).toMatchObject({ balanceDue: 1_000, tipTotal: 500 })
    await ok(act(t, order.id, payment.id, 'refund', { amount: 1_000 }))
    expect(await balanceOf(card.id)).toBe(2_500)
    await ok(act(t, order.id, payment.id, 'refund'))
    expect(await balanceOf(card.id)).toBe(5_000)
    expect(await getOrder(t, order.id)).toMatchObject({ balanceDue: 4_000, tipTotal: 0 })
  })

  test('a full refund in one go voids the redemption', async () => {
    const card = await issueCard(t, 5_000)
    const order = await orderOf(t, 2_000)
    const payment = await ok(
      pay(t, order.id, { tender: 'gift_card', amount: 2_000, giftCardId: card.id }),
      201,
    )
    expect(await balanceOf(card.id)).toBe(3_000)
    expect((await ok(act(t, order.id, payment.id, 'refund'))).status).toBe('refunded')
    expect(await balanceOf(card.id)).toBe(5_000)
    const types = t.tenant.db.$client
      .query('SELECT entry_type AS type FROM gift_card_transactions WHERE gift_card_id = ? ORDER BY rowid')
      .all(card.id)
      .map((r: any) => r.type)
    expect(types).toEqual(['activate', 'redeem', 'void_redeem'])
  })

  test('an unknown card is refused and nothing is written', async () => {
    const order = await orderOf(t, 2_000)
    const res = await pay(t, order.id, { tender: 'gift_card', amount: 2_000, giftCardCode: 'NOPE-NOPE' })
    expect(res.status).toBeGreaterThanOrEqual(400)
    expect(res.status).toBeLessThan(500)
    expect((await getOrder(t, order.id)).paymentIntentIds).toEqual([])
  })
})

describe('closeout summary', () => {
  test('orders, payments, refunds, tips and blocking reasons of the shift', async () => {
    const d = await openDrawer(t, { startingBalance: 10_000 })
    const paidCash = await orderOf(t, 3_000)
    const cash = await ok(pay(t, paidCash.id, { tender: 'cash', amount: 3_000, tipAmount: 400 }), 201)
    const paidCard = await orderOf(t, 5_000)
    const card = await ok(
      pay(t, paidCard.id, { tender: 'card', amount: 5_000, tipAmount: 1_000, paymentMethod: 'tok_visa' }),
      201,
    )
    const tab = await orderOf(t, 2_000)
    const held = await ok(
      pay(t, tab.id, { tender: 'card', amount: 2_000, capture: false, paymentMethod: 'tok_visa' }),
      201,
    )
    const open = await orderOf(t, 1_500)

    let summary = (await drawer(t, d.id)).closeoutSummary
    expect(summary).toMatchObject({
      shiftId: d.id,
      locationId: t.tenant.locationId,
      staffUserId: null,
      orderCount: 4,
      openOrderCount: 2,
      paidOpenCheckCount: 2,
      authorizedPaymentCount: 1,
      openTabCount: 1,
      unresolvedPaymentCount: 1,
      capturedPaymentCount: 2,
      refundedPaymentCount: 0,
      grossCapturedAmount: 3_400 + 6_000,
      grossRefundedAmount: 0,
      netCapturedAmount: 9_400,
      tipAmount: 1_400,
      refundedTipAmount: 0,
      blockingReasons: ['open_orders', 'unresolved_payments'],
      status: 'blocked',
    })
    expect(summary.orderIds).toEqual([paidCash.id, paidCard.id, tab.id, open.id])
    expect(summary.openOrderIds).toEqual([tab.id, open.id])
    expect(summary.unresolvedPaymentIntentIds).toEqual([held.id])
    expect(summary.paymentIntentIds).toEqual([cash.id, card.id, held.id])

    // A refund shows at once.
    await ok(act(t, paidCard.id, card.id, 'refund', { amount: 1_000, tipAmount: 200 }))
    summary = (await drawer(t, d.id)).closeoutSummary
    expect(summary).toMatchObject({
      refundedPaymentCount: 1,
      grossRefundedAmount: 1_200,
      netCapturedAmount: 8_200,
      refundedTipAmount: 200,
    })

    // A staff user cannot close while the shift is blocked; resolving it makes it ready.
    const blocked = await t.request('POST', `/cash-management/drawers/${d.id}/close`, {
      as: t.tenant.staff,
      body: { actualBalance: 13_400 },
    })
    expect(blocked.status).toBe(403)
    expect(blocked.body.blockingReasons).toEqual(['open_orders', 'unresolved_payments'])
    await ok(act(t, tab.id, held.id, 'capture'))
    await ok(t.request('POST', `/order/${open.id}/void`, { body: { voidReasonName: 'walked out' } }))
    await ok(pay(t, paidCard.id, { tender: 'cash', amount: 1_000 }), 201)
    summary = (await drawer(t, d.id)).closeoutSummary
    expect(summary).toMatchObject({
      blockingReasons: [],
      status: 'ready',
      openOrderCount: 0,
      capturedPaymentCount: 4,
    })
    const closed = await ok(
      t.request('POST', `/cash-management/drawers/${d.id}/close`, {
        as: t.tenant.staff,
        body: { actualBalance: 14_400 },
      }),
    )
    expect(closed.reconciliation).toMatchObject({ expectedBalance: 14_400, status: 'exact' })
    expect(closed.closeoutSummary.status).toBe('ready')
    // Frozen: later payments elsewhere do not change a closed shift.
    const later = await orderOf(t, 999)
    const frozen = (await drawer(t, d.id)).closeoutSummary
    expect(frozen).toEqual(closed.closeoutSummary)
    expect(frozen.orderIds).not.toContain(later.id)
  })

  test('an assigned drawer covers only its staff user’s orders', async () => {
    const d = await openDrawer(t, { assignedStaffUserId: t.tenant.staff.id })
    const theirs = await orderOf(t, 1_000, { assignedStaffUserId: t.tenant.staff.id })
    await orderOf(t, 1_000, { assignedStaffUserId: t.tenant.manager.id })
    const summary = (await drawer(t, d.id)).closeoutSummary
    expect(summary).toMatchObject({
      staffUserId: t.tenant.staff.id,
      orderIds: [theirs.id],
      openOrderCount: 1,
    })
  })
})
