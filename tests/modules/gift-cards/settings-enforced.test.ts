// The gift card settings that change what payments and orders do: `tipsEnabled` (may a gift card
// pay a tip) and `allowDiscounts` (are gift card sales discountable).
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { createTestApp, type TestApp } from '../../harness'
import { ok } from '../cash/helpers'
import { getOrder, orderOf, pay } from '../payments/helpers'
import { issueCard, putSettings } from './helpers'

let t: TestApp
beforeEach(async () => {
  t = await createTestApp()
})
afterEach(() => t.close())

const balanceOf = async (cardId: string) =>
  (await ok(t.request('GET', `/gift-card/${cardId}`))).currentBalance

describe('tipsEnabled', () => {
  test('off (the default): a gift card payment with a tip is 409 and takes nothing; without a tip it pays', async () => {
    const card = await issueCard(t, 5_000)
    const order = await orderOf(t, 3_000)
    const tipped = await pay(t, order.id, {
      tender: 'gift_card',
      amount: 3_000,
      tipAmount: 300,
      giftCardCode: card.code,
    })
    expect(tipped.status).toBe(409)
    expect(tipped.body.detail).toContain('tipsEnabled')
    expect(await balanceOf(card.id)).toBe(5_000)
    expect(await getOrder(t, order.id)).toMatchObject({ amountPaid: 0, tipTotal: 0 })
    await ok(pay(t, order.id, { tender: 'gift_card', amount: 3_000, giftCardCode: card.code }), 201)
    expect(await balanceOf(card.id)).toBe(2_000)
  })

  test('on: the card pays amount and tip', async () => {
    await putSettings(t, { tipsEnabled: true })
    const card = await issueCard(t, 5_000)
    const order = await orderOf(t, 3_000)
    await ok(
      pay(t, order.id, { tender: 'gift_card', amount: 3_000, tipAmount: 300, giftCardId: card.id }),
      201,
    )
    expect(await balanceOf(card.id)).toBe(1_700)
    expect(await getOrder(t, order.id)).toMatchObject({ tipTotal: 300, balanceDue: 0 })
  })

  test('direct redemption: a tip is 409 while off, more tip than amount is 400', async () => {
    const card = await issueCard(t, 5_000)
    const redeem = (body: Record<string, unknown>) =>
      t.request('POST', `/gift-card/${card.id}/redeem`, {
        body: { paymentReference: `ref-${Math.random()}`, ...body },
      })
    expect((await redeem({ amount: 1_000, tipAmount: 100 })).status).toBe(409)
    await putSettings(t, { tipsEnabled: true })
    const tooMuch = await redeem({ amount: 1_000, tipAmount: 1_001 })
    expect(tooMuch.status).toBe(400)
    expect((await redeem({ amount: 1_000, tipAmount: 100 })).status).toBe(200)
    expect(await balanceOf(card.id)).toBe(4_000)
  })

  test('staff may not turn tips on (403)', async () => {
    const current = (await t.request('GET', '/gift-card/settings')).body
    const res = await t.request('PUT', '/gift-card/settings', {
      as: t.tenant.staff,
      body: { ...current, tipsEnabled: true },
    })
    expect(res.status).toBe(403)
    expect((await t.request('GET', '/gift-card/settings')).body.tipsEnabled).toBe(false)
  })

  test('another tenant’s setting does not apply here', async () => {
    const other = await t.addTenant('other')
    const current = (await t.request('GET', '/gift-card/settings', { as: other.owner, tenant: other })).body
    await ok(
      t.request('PUT', '/gift-card/settings', {
        as: other.owner,
        tenant: other,
        body: { ...current, tipsEnabled: true },
      }),
    )
    const card = await issueCard(t, 5_000)
    const order = await orderOf(t, 3_000)
    const tipped = await pay(t, order.id, {
      tender: 'gift_card',
      amount: 3_000,
      tipAmount: 1,
      giftCardId: card.id,
    })
    expect(tipped.status).toBe(409)
  })
})

describe('allowDiscounts', () => {
  async function orderWithGiftCardSale() {
    await ok(
      t.request('POST', '/coupon', {
        body: {
          title: 'Half off',
          code: 'HALF',
          productDiscountType: 'Percentage Off',
          productDiscount: 5000,
        },
      }),
      201,
    )
    return ok(
      t.request('POST', '/order', {
        body: {
          locationId: t.tenant.locationId,
          lineItems: [
            { lineType: 'open_item', title: 'Dinner', unitPrice: 4_000, openItemScope: 'food' },
            {
              lineType: 'open_item',
              title: 'Gift card',
              unitPrice: 2_000,
              giftCardSale: { recipientName: 'Ana' },
            },
          ],
        },
      }),
      201,
    )
  }

  test('off (the default): a coupon skips gift card sales', async () => {
    const order = await orderWithGiftCardSale()
    const discounted = await ok(
      t.request('POST', `/order/${order.id}/discount`, { body: { couponCode: 'HALF' } }),
    )
    // Half of the 4000 dinner only.
    expect(discounted.discountTotal).toBe(2_000)
    expect(discounted.lineItems.map((l: any) => l.discountAmount)).toEqual([2_000, 0])
  })

  test('on: gift card sales are discounted like any line', async () => {
    await putSettings(t, { allowDiscounts: true })
    const order = await orderWithGiftCardSale()
    const discounted = await ok(
      t.request('POST', `/order/${order.id}/discount`, { body: { couponCode: 'HALF' } }),
    )
    expect(discounted.discountTotal).toBe(3_000)
    expect(discounted.lineItems.map((l: any) => l.discountAmount)).toEqual([2_000, 1_000])
  })
})
