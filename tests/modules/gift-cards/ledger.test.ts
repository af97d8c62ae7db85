// The value routes: activate, load, redeem, void, adjust, cash out, expire, merge, disable;
// overdraw refusal, idempotent redemption, location sharing, permissions, and the database guards.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { systemActor } from '../../../src/platform/foundation/actor'
import { countRows, createTestApp, type TestApp } from '../../harness'
import { balanceAndLedgerSum, issueCard, putSettings } from './helpers'

let t: TestApp
beforeEach(async () => {
  t = await createTestApp()
})
afterEach(() => t.close())

const post = (path: string, body: unknown = {}, options: Parameters<TestApp['request']>[2] = {}) =>
  t.request('POST', path, { body, ...options })

describe('activate and load', () => {
  test('activation puts the initial amount on an Inactive card, once', async () => {
    const card = await issueCard(t, 2500, { activate: false })
    const res = await post(`/gift-card/${card.id}/activate`, { locationId: t.tenant.locationId })
    expect(res.status).toBe(200)
    expect(res.body.giftCard).toMatchObject({
      status: 'Active',
      currentBalance: 2500,
      originLocationId: t.tenant.locationId,
    })
    expect(res.body.transaction).toMatchObject({
      entryType: 'activate',
      amountDelta: 2500,
      balanceAfter: 2500,
      sequence: 1,
      accountId: card.valueAccountId,
      transactionLocationId: t.tenant.locationId,
      staffUserId: t.tenant.owner.id,
    })
    const again = await post(`/gift-card/${card.id}/activate`)
    expect(again.status).toBe(409)
    expect(again.body.giftCardStatus).toBe('Active')
  })

  test('load adds value; 0 or negative amounts are 400; loading an Inactive card is 409', async () => {
    const card = await issueCard(t, 1000)
    const res = await post(`/gift-card/${card.id}/load`, { amount: 750, paymentReference: 'pay-load-1' })
    expect(res.body.giftCard.currentBalance).toBe(1750)
    expect(res.body.transaction).toMatchObject({
      entryType: 'load',
      amountDelta: 750,
      paymentIntentId: 'pay-load-1',
    })
    expect((await post(`/gift-card/${card.id}/load`, { amount: 0 })).status).toBe(400)
    expect((await post(`/gift-card/${card.id}/load`, { amount: -5 })).status).toBe(400)
    const inactive = await issueCard(t, 1000, { activate: false })
    expect((await post(`/gift-card/${inactive.id}/load`, { amount: 100 })).status).toBe(409)
  })

  test("the card's ledger lists every entry in order; the last balanceAfter is the balance", async () => {
    const card = await issueCard(t, 1000)
    await post(`/gift-card/${card.id}/load`, { amount: 500 })
    await post(`/gift-card/${card.id}/redeem`, { amount: 300, paymentReference: 'p-1' })
    const ledger = await t.request('GET', `/gift-card/${card.id}/transactions`)
    expect(ledger.body.total).toBe(3)
    expect(
      ledger.body.transactions.map((e: { entryType: string; balanceAfter: number }) => [
        e.entryType,
        e.balanceAfter,
      ]),
    ).toEqual([
      ['activate', 1000],
      ['load', 1500],
      ['redeem', 1200],
    ])
    expect((await t.request('GET', `/gift-card/${card.id}/transactions?limit=501`)).status).toBe(400)
  })
})

describe('redeem', () => {
  test('cannot overdraw: 409 with the balance, and nothing is written', async () => {
    const card = await issueCard(t, 1000)
    const before = countRows(t.tenant.db, 'audit_entries')
    const res = await post(`/gift-card/${card.id}/redeem`, { amount: 1001, paymentReference: 'p-over' })
    expect(res.status).toBe(409)
    expect(res.body).toMatchObject({ code: 'conflict', currentBalance: 1000, requested: 1001 })
    expect(countRows(t.tenant.db, 'gift_card_transactions')).toBe(1)
    expect(countRows(t.tenant.db, 'audit_entries')).toBe(before)
    const exact = await post(`/gift-card/${card.id}/redeem`, { amount: 1000, paymentReference: 'p-exact' })
    expect(exact.body.giftCard.currentBalance).toBe(0)
    expect(
      (await post(`/gift-card/${card.id}/redeem`, { amount: 1, paymentReference: 'p-more' })).status,
    ).toBe(409)
  })

  test('is idempotent by payment reference', async () => {
    const card = await issueCard(t, 5000)
    const other = await issueCard(t, 5000)
    const first = await post(`/gift-card/${card.id}/redeem`, { amount: 1200, paymentReference: 'pay-42' })
    const replay = await post(`/gift-card/${card.id}/redeem`, { amount: 1200, paymentReference: 'pay-42' })
    expect(first.body.replayed).toBe(false)
    expect(replay.status).toBe(200)
    expect(replay.body.replayed).toBe(true)
    expect(replay.body.transaction.id).toBe(first.body.transaction.id)
    expect(replay.body.giftCard.currentBalance).toBe(3800)
    const otherAmount = await post(`/gift-card/${card.id}/redeem`, {
      amount: 1300,
      paymentReference: 'pay-42',
    })
    expect(otherAmount.status).toBe(409)
    const otherCard = await post(`/gift-card/${other.id}/redeem`, {
      amount: 1200,
      paymentReference: 'pay-42',
    })
    expect(otherCard.status).toBe(409)
    expect(balanceAndLedgerSum(t, card.id)).toEqual({ balance: 3800, ledgerSum: 3800 })
    expect(balanceAndLedgerSum(t, other.id)).toEqual({ balance: 5000, ledgerSum: 5000 })
  })

  test('concurrent redemptions of one card never overdraw it', async () => {
    const card = await issueCard(t, 1000)
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        post(`/gift-card/${card.id}/redeem`, { amount: 300, paymentReference: `p-conc-${i}` }),
      ),
    )
    expect(results.filter((r) => r.status === 200)).toHaveLength(3)
    expect(results.filter((r) => r.status === 409)).toHaveLength(5)
    expect(balanceAndLedgerSum(t, card.id)).toEqual({ balance: 100, ledgerSum: 100 })
  })

  test('respects sharedAcrossLocations', async () => {
    const elsewhere = t.addLocation(t.tenant, {
      name: 'Second',
      timezone: 'America/Los_Angeles',
    })
    const card = await issueCard(t, 5000, { locationId: t.tenant.locationId })
    const away = { amount: 100, paymentReference: 'p-away', locationId: elsewhere.id }
    expect((await post(`/gift-card/${card.id}/redeem`, away)).status).toBe(200)

    await putSettings(t, { sharedAcrossLocations: false })
    const refused = await post(`/gift-card/${card.id}/redeem`, { ...away, paymentReference: 'p-away-2' })
    expect(refused.status).toBe(409)
    expect(refused.body.originLocationId).toBe(t.tenant.locationId)
    const noLocation = await post(`/gift-card/${card.id}/redeem`, { amount: 100, paymentReference: 'p-none' })
    expect(noLocation.status).toBe(400)
    const home = await post(
      `/gift-card/${card.id}/redeem`,
      { amount: 100, paymentReference: 'p-home' },
      { headers: { 'x-location-id': t.tenant.locationId } },
    )
    expect(home.status).toBe(200)
    expect(home.body.transaction.transactionLocationId).toBe(t.tenant.locationId)
  })

  test('online redemption follows allowOnlineRedemption; Disabled and Expired cards refuse', async () => {
    const card = await issueCard(t, 5000)
    await putSettings(t, { allowOnlineRedemption: false })
    const online = await post(`/gift-card/${card.id}/redeem`, {
      amount: 100,
      paymentReference: 'p-web',
      channel: 'online',
    })
    expect(online.status).toBe(409)
    expect(
      (await post(`/gift-card/${card.id}/redeem`, { amount: 100, paymentReference: 'p-pos' })).status,
    ).toBe(200)

    expect((await post(`/gift-card/${card.id}/disable`, { reason: 'lost' })).body.status).toBe('Disabled')
    const disabled = await post(`/gift-card/${card.id}/redeem`, { amount: 100, paymentReference: 'p-dis' })
    expect(disabled.status).toBe(409)
    expect(disabled.body.giftCardStatus).toBe('Disabled')
    expect((await post(`/gift-card/${card.id}/enable`)).body.status).toBe('Active')
    expect(
      (await post(`/gift-card/${card.id}/redeem`, { amount: 100, paymentReference: 'p-dis' })).status,
    ).toBe(200)

    await t.request('PUT', `/gift-card/${card.id}`, { body: { expiryDate: '2000-01-01' } })
    expect(
      (await post(`/gift-card/${card.id}/redeem`, { amount: 100, paymentReference: 'p-exp' })).status,
    ).toBe(409)
  })

  test('a first redemption records openedAt', async () => {
    const card = await issueCard(t, 5000)
    expect(card.openedAt).toBeNull()
    const res = await post(`/gift-card/${card.id}/redeem`, { amount: 100, paymentReference: 'p-open' })
    expect(res.body.giftCard.openedAt).toBeString()
  })
})

describe('void', () => {
  test('a voided redemption gives the value back, once; other entries follow their rules', async () => {
    const card = await issueCard(t, 2000)
    const redeemed = (await post(`/gift-card/${card.id}/redeem`, { amount: 700, paymentReference: 'p-v' }))
      .body
    const voided = await post(`/gift-card/${card.id}/transactions/${redeemed.transaction.id}/void`, {
      reason: 'refund',
    })
    expect(voided.status).toBe(200)
    expect(voided.body.transaction).toMatchObject({
      entryType: 'void_redeem',
      amountDelta: 700,
      balanceAfter: 2000,
      voidsTransactionId: redeemed.transaction.id,
      paymentIntentId: 'p-v',
    })
    const twice = await post(`/gift-card/${card.id}/transactions/${redeemed.transaction.id}/void`)
    expect(twice.status).toBe(409)
    expect(twice.body.voidedByTransactionId).toBe(voided.body.transaction.id)

    const voidOfVoid = await post(`/gift-card/${card.id}/transactions/${voided.body.transaction.id}/void`)
    expect(voidOfVoid.status).toBe(409)
    const unknown = await post(`/gift-card/${card.id}/transactions/nope/void`)
    expect(unknown.status).toBe(404)
  })

  test('voiding a load whose value was spent is 409; unspent, it takes the value off', async () => {
    const card = await issueCard(t, 1000)
    const load = (await post(`/gift-card/${card.id}/load`, { amount: 500 })).body.transaction
    await post(`/gift-card/${card.id}/redeem`, { amount: 1200, paymentReference: 'p-spend' })
    const refused = await post(`/gift-card/${card.id}/transactions/${load.id}/void`)
    expect(refused.status).toBe(409)
    expect(refused.body.currentBalance).toBe(300)
    const other = await issueCard(t, 1000)
    const otherLoad = (await post(`/gift-card/${other.id}/load`, { amount: 500 })).body.transaction
    const ok = await post(`/gift-card/${other.id}/transactions/${otherLoad.id}/void`)
    expect(ok.body.transaction).toMatchObject({
      entryType: 'void_load',
      amountDelta: -500,
      balanceAfter: 1000,
    })
  })

  test('a transaction of another card is 404 under this card', async () => {
    const a = await issueCard(t, 1000)
    const b = await issueCard(t, 1000)
    const redeemed = (await post(`/gift-card/${a.id}/redeem`, { amount: 100, paymentReference: 'p-a' })).body
    expect((await post(`/gift-card/${b.id}/transactions/${redeemed.transaction.id}/void`)).status).toBe(404)
  })
})

describe('adjust, cash out, expire, merge', () => {
  test('adjust needs gift-cards:manage and a reason, and cannot go below zero', async () => {
    const card = await issueCard(t, 1000)
    const staff = await post(
      `/gift-card/${card.id}/adjust`,
      { amountDelta: 100, reason: 'goodwill' },
      { as: t.tenant.staff },
    )
    expect(staff.status).toBe(403)
    expect(staff.body.requiredPermission).toBe('gift-cards:manage')
    expect((await post(`/gift-card/${card.id}/adjust`, { amountDelta: 100 })).status).toBe(400)
    expect((await post(`/gift-card/${card.id}/adjust`, { amountDelta: 0, reason: 'x' })).status).toBe(400)
    expect((await post(`/gift-card/${card.id}/adjust`, { amountDelta: -1001, reason: 'x' })).status).toBe(409)
    const ok = await post(
      `/gift-card/${card.id}/adjust`,
      { amountDelta: -250, reason: 'typo' },
      { as: t.tenant.manager },
    )
    expect(ok.body.transaction).toMatchObject({ entryType: 'adjust', amountDelta: -250, reason: 'typo' })
    expect(ok.body.giftCard.currentBalance).toBe(750)
  })

  test('cash out: turned on, the role, and a balance above the threshold', async () => {
    const card = await issueCard(t, 800)
    expect((await post(`/gift-card/${card.id}/cash-out`)).status).toBe(409)
    await putSettings(t, { cashOutEnabled: true, cashOutThreshold: 1000, cashOutPermission: 'manager' })
    const staff = await post(`/gift-card/${card.id}/cash-out`, {}, { as: t.tenant.staff })
    expect(staff.status).toBe(403)
    expect(staff.body.requiredRole).toBe('manager')
    const low = await post(`/gift-card/${card.id}/cash-out`, {}, { as: t.tenant.manager })
    expect(low.status).toBe(409)
    expect(low.body).toMatchObject({ currentBalance: 800, cashOutThreshold: 1000 })

    await putSettings(t, { cashOutThreshold: 500, cashOutPermission: 'staff' })
    const ok = await post(`/gift-card/${card.id}/cash-out`, { reason: 'moving away' }, { as: t.tenant.staff })
    expect(ok.status).toBe(200)
    expect(ok.body.transaction).toMatchObject({ entryType: 'cash_out', amountDelta: -800, balanceAfter: 0 })
    // The owner outranks any cashOutPermission.
    await putSettings(t, { cashOutThreshold: 0, cashOutPermission: 'manager' })
    const another = await issueCard(t, 300)
    expect((await post(`/gift-card/${another.id}/cash-out`, {}, { as: t.tenant.owner })).status).toBe(200)
  })

  test('expire removes the balance and ends the card', async () => {
    const card = await issueCard(t, 900)
    expect((await post(`/gift-card/${card.id}/expire`, {}, { as: t.tenant.staff })).status).toBe(403)
    const res = await post(`/gift-card/${card.id}/expire`, { reason: 'dormant' })
    expect(res.body.giftCard).toMatchObject({ status: 'Expired', currentBalance: 0 })
    expect(res.body.transaction).toMatchObject({ entryType: 'expire', amountDelta: -900 })
    expect((await post(`/gift-card/${card.id}/load`, { amount: 100 })).status).toBe(409)
  })

  test('merge moves the whole balance; the source ends Merged', async () => {
    const target = await issueCard(t, 1000)
    const source = await issueCard(t, 650)
    const res = await post(`/gift-card/${target.id}/merge`, {
      sourceGiftCardId: source.id,
      reason: 'combine',
    })
    expect(res.status).toBe(200)
    expect(res.body.giftCard.currentBalance).toBe(1650)
    expect(res.body.source).toMatchObject({
      status: 'Merged',
      currentBalance: 0,
      mergedIntoGiftCardId: target.id,
    })
    expect(res.body.transactions.map((e: { amountDelta: number }) => e.amountDelta)).toEqual([-650, 650])
    expect(res.body.transactions[1].relatedGiftCardId).toBe(source.id)
    expect((await post(`/gift-card/${target.id}/merge`, { sourceGiftCardId: source.id })).status).toBe(409)
    expect((await post(`/gift-card/${target.id}/merge`, { sourceGiftCardId: target.id })).status).toBe(400)
    expect((await post(`/gift-card/${target.id}/merge`, { sourceGiftCardId: 'nope' })).status).toBe(404)
    const inactive = await issueCard(t, 100, { activate: false })
    expect((await post(`/gift-card/${inactive.id}/merge`, { sourceGiftCardId: target.id })).status).toBe(409)
  })
})

describe('database guards', () => {
  test('the balance cannot be changed except through a ledger entry; the ledger is append-only', async () => {
    const card = await issueCard(t, 1000)
    const client = t.tenant.db.$client
    expect(() => client.run('UPDATE gift_cards SET current_balance = 5000 WHERE id = ?', [card.id])).toThrow(
      /only through its ledger/,
    )
    expect(() => client.run('UPDATE gift_card_transactions SET amount_delta = 9000')).toThrow(/append-only/)
    expect(() => client.run('DELETE FROM gift_card_transactions')).toThrow(/append-only/)
    expect(() => client.run('DELETE FROM gift_cards')).toThrow(/never deleted/)
    expect(() =>
      client.run(
        `INSERT INTO gift_card_transactions (id, gift_card_id, sequence, account_id, entry_type, amount_delta,
           balance_after, occurred_at) VALUES ('x', ?, 2, 'a', 'load', 100, 9999, '2030-01-01T00:00:00.000Z')`,
        [card.id],
      ),
    ).toThrow(/continue its card/)
    expect(() =>
      client.run(
        `INSERT INTO gift_card_transactions (id, gift_card_id, sequence, account_id, entry_type, amount_delta,
           balance_after, occurred_at) VALUES ('y', ?, 5, 'a', 'load', 100, 1100, '2030-01-01T00:00:00.000Z')`,
        [card.id],
      ),
    ).toThrow(/continue its card/)
    expect(balanceAndLedgerSum(t, card.id)).toEqual({ balance: 1000, ledgerSum: 1000 })
  })
})

describe('the functions payments will call', () => {
  test('redeemGiftCard by code and voidRedemption by payment reference', async () => {
    const { redeemGiftCard, voidRedemption } = await import('../../../src/modules/gift-cards/operations')
    const { inWriteTransaction } = await import('../../../src/platform/tenancy/transaction')
    const card = await issueCard(t, 3000, { body: { code: 'PAY-ME-0001' } })
    const actor = { ...systemActor(t.tenant.id, 'payments'), locationId: t.tenant.locationId }
    const redeemed = inWriteTransaction(t.tenant.db, (tx) =>
      redeemGiftCard(tx, actor, {
        code: 'pay me 0001',
        amount: 1200,
        paymentReference: 'pi_1',
        orderId: 'o-1',
      }),
    )
    expect(redeemed.giftCard).toMatchObject({ id: card.id, currentBalance: 1800 })
    expect(redeemed.transaction.transactionLocationId).toBe(t.tenant.locationId)
    expect(() =>
      inWriteTransaction(t.tenant.db, (tx) =>
        redeemGiftCard(tx, actor, { code: 'PAY-ME-0002', amount: 1, paymentReference: 'pi_2' }),
      ),
    ).toThrow(expect.objectContaining({ code: 'not_found' }))
    expect(() =>
      inWriteTransaction(t.tenant.db, (tx) =>
        redeemGiftCard(tx, actor, { amount: 1, paymentReference: 'pi_3' }),
      ),
    ).toThrow(expect.objectContaining({ code: 'validation_failed' }))
    const voided = inWriteTransaction(t.tenant.db, (tx) =>
      voidRedemption(tx, actor, { paymentReference: 'pi_1' }),
    )
    expect(voided.transaction).toMatchObject({ entryType: 'void_redeem', amountDelta: 1200, orderId: 'o-1' })
    expect(voided.giftCard.currentBalance).toBe(3000)
    expect(() =>
      inWriteTransaction(t.tenant.db, (tx) => voidRedemption(tx, actor, { paymentReference: 'pi_1' })),
    ).toThrow(expect.objectContaining({ code: 'conflict' }))
    expect(() =>
      inWriteTransaction(t.tenant.db, (tx) => voidRedemption(tx, actor, { paymentReference: 'pi_none' })),
    ).toThrow(expect.objectContaining({ code: 'not_found' }))
  })
})
