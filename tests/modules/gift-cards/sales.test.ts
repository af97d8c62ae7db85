// Cards sold on order lines, issued when the order is paid (issueGiftCardsForPaidOrder).
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { createGiftCard } from '../../../src/modules/gift-cards/cards'
import { issueGiftCardsForPaidOrder, saleReference } from '../../../src/modules/gift-cards/sales'
import { putGiftCardSettings } from '../../../src/modules/gift-cards/settings'
import { type Actor, systemActor } from '../../../src/platform/foundation/actor'
import { ApiError } from '../../../src/platform/foundation/problem'
import { inWriteTransaction } from '../../../src/platform/tenancy/transaction'
import { countRows, createTestApp, type TestApp } from '../../harness'
import { balanceAndLedgerSum } from './helpers'

let t: TestApp
let actor: Actor
beforeEach(async () => {
  t = await createTestApp()
  actor = { ...systemActor(t.tenant.id, 'orders'), locationId: t.tenant.locationId }
})
afterEach(() => t.close())

const pay = (input: Parameters<typeof issueGiftCardsForPaidOrder>[2]) =>
  inWriteTransaction(t.tenant.db, (tx) => issueGiftCardsForPaidOrder(tx, actor, input))

describe('issueGiftCardsForPaidOrder', () => {
  test('issues an Active card per line with the sale details, origin and order references', () => {
    const { giftCards } = pay({
      orderId: 'order-1',
      orderNumber: 1001,
      lines: [
        {
          lineId: 'line-a',
          amount: 5000,
          giftCardSale: {
            recipientName: 'Rosa',
            recipientEmail: 'rosa@example.test',
            purchaserEmail: 'sam@example.test',
            fromName: 'Sam',
            giftMessage: 'Enjoy',
            deliveryChannel: 'email',
            deliveryScheduledAt: '2030-12-24T08:00:00.000Z',
            notifyPurchaserWhenOpened: true,
          },
        },
        { lineId: 'line-b', amount: 2500, giftCardSale: { cardType: 'Physical', code: 'PHYS-0000-0001' } },
      ],
    })
    expect(giftCards).toHaveLength(2)
    expect(giftCards[0]).toMatchObject({
      type: 'Virtual',
      status: 'Active',
      source: 'sale',
      initialAmount: 5000,
      currentBalance: 5000,
      originLocationId: t.tenant.locationId,
      purchasedOnOrderId: 'order-1',
      purchasedOnOrderNumber: '1001',
      purchasedOnOrderLineId: 'line-a',
      recipientName: 'Rosa',
      deliveryStatus: 'scheduled',
      deliveryChannel: 'email',
      deliveryDestination: 'rosa@example.test',
      deliveryScheduledAt: '2030-12-24T08:00:00.000Z',
      notifyPurchaserWhenOpened: true,
    })
    expect(giftCards[0]!.code).toMatch(/^[0-9A-HJKMNP-TV-Z]{16}$/)
    expect(giftCards[1]).toMatchObject({ type: 'Physical', code: 'PHYS-0000-0001', currentBalance: 2500 })
    const entry = t.tenant.db.$client
      .query(
        'SELECT entry_type, order_id, payment_reference FROM gift_card_transactions WHERE gift_card_id = ?',
      )
      .get(giftCards[0]!.id)
    expect(entry).toEqual({
      entry_type: 'activate',
      order_id: 'order-1',
      payment_reference: saleReference('order-1', 'line-a'),
    })
  })

  test('is idempotent: paying the same order again issues nothing new', () => {
    const input = {
      orderId: 'order-2',
      orderNumber: '1002',
      lines: [{ lineId: 'l1', amount: 1000, giftCardSale: {} }],
    }
    const first = pay(input)
    const again = pay(input)
    expect(again.giftCards.map((c) => c.id)).toEqual(first.giftCards.map((c) => c.id))
    expect(countRows(t.tenant.db, 'gift_cards')).toBe(1)
    expect(countRows(t.tenant.db, 'gift_card_transactions')).toBe(1)
  })

  test('a pre-printed Inactive card is activated; an Active one is reloaded; a Disabled one refuses', () => {
    const stock = createGiftCard(t.tenant.db, actor, {
      title: 'Stock',
      type: 'Physical',
      code: 'STOCK-0001',
      initialAmount: 0,
    })
    const active = createGiftCard(t.tenant.db, actor, {
      title: 'Old',
      type: 'Physical',
      code: 'STOCK-0002',
      initialAmount: 1000,
      activate: true,
    })
    const { giftCards } = pay({
      orderId: 'order-3',
      orderNumber: 1003,
      lines: [
        { lineId: 'l1', amount: 3000, giftCardSale: { code: 'stock-0001', recipientName: 'Ana' } },
        { lineId: 'l2', amount: 500, giftCardSale: { code: 'STOCK 0002' } },
      ],
    })
    expect(giftCards[0]).toMatchObject({
      id: stock.id,
      status: 'Active',
      currentBalance: 3000,
      initialAmount: 3000,
      source: 'sale',
      purchasedOnOrderId: 'order-3',
      recipientName: 'Ana',
    })
    expect(giftCards[1]).toMatchObject({ id: active.id, currentBalance: 1500 })
    expect(balanceAndLedgerSum(t, active.id)).toEqual({ balance: 1500, ledgerSum: 1500 })

    inWriteTransaction(t.tenant.db, (tx) =>
      tx.run(`UPDATE gift_cards SET status = 'Disabled' WHERE id = '${active.id}'`),
    )
    expect(() =>
      pay({
        orderId: 'order-4',
        orderNumber: 1004,
        lines: [{ lineId: 'l1', amount: 500, giftCardSale: { code: 'STOCK-0002' } }],
      }),
    ).toThrow(expect.objectContaining({ code: 'conflict' }))
  })

  test('any refused line rolls the whole payment back', () => {
    putGiftCardSettings(t.tenant.db, actor, {
      enabled: true,
      tipsEnabled: false,
      cashOutEnabled: false,
      cashOutThreshold: 0,
      cashOutPermission: 'manager',
      allowDiscounts: false,
      allowOnlineRedemption: true,
      sharedAcrossLocations: true,
      minimumPurchaseAmount: 0,
      digitalPurchaseLimit: 10_000,
      physicalPurchaseLimit: 0,
    })
    let error: unknown
    try {
      pay({
        orderId: 'order-5',
        orderNumber: 1005,
        lines: [
          { lineId: 'ok', amount: 5000, giftCardSale: {} },
          { lineId: 'too-much', amount: 10_001, giftCardSale: {} },
        ],
      })
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(ApiError)
    expect((error as ApiError).options.errors?.[0]?.path).toBe('lines/1/amount')
    expect(countRows(t.tenant.db, 'gift_cards')).toBe(0)
    expect(() =>
      pay({ orderId: 'o', orderNumber: 1, lines: [{ lineId: 'x', amount: 0, giftCardSale: {} }] }),
    ).toThrow(ApiError)
  })
})
