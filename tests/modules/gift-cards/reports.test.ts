// Reports: the liability roll-forward over a period with every entry type (worked by hand),
// cross-location pooling (worked by hand), transactions, and date validation.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { deliverDueGiftCards } from '../../../src/modules/gift-cards/delivery'
import { systemActor } from '../../../src/platform/foundation/actor'
import { MessageSendError } from '../../../src/platform/messaging/sender'
import { createTestApp, runScenarios, type TestApp } from '../../harness'
import { issueCard, putSettings } from './helpers'

let t: TestApp
/** A fresh app per test of the describe it is called in (the scenario tables make their own). */
function useApp() {
  beforeEach(async () => {
    t = await createTestApp()
  })
  afterEach(() => t.close())
}

const post = (path: string, body: unknown = {}) => t.request('POST', path, { body })
const addLocation = (name: string) => t.addLocation(t.tenant, { name, timezone: 'America/Los_Angeles' }).id

/** A boundary instant strictly between what happened before and what happens after. */
async function boundary(): Promise<string> {
  await Bun.sleep(3)
  const at = new Date().toISOString()
  await Bun.sleep(3)
  return at
}

const identity = (r: Record<string, number>) =>
  r.startingLiability! +
  r.addedValue! -
  r.voidedAddedValue! +
  r.adjustments! -
  r.redemptions! +
  r.voidedRedemptions! -
  r.cashOuts!

describe('liability roll-forward', () => {
  useApp()
  test('every entry type over a period, worked by hand, for the tenant and per location', async () => {
    const l1 = t.tenant.locationId
    const l2 = addLocation('Second')
    await putSettings(t, { cashOutEnabled: true })

    // Before the period: starting liability 10000 - 1000 + 5000 + 3000 = 17000.
    const a = await issueCard(t, 10_000, { locationId: l1 })
    const b = await issueCard(t, 5000, { locationId: l2, body: { type: 'Physical' } })
    const c = await issueCard(t, 3000, { locationId: l1, body: { source: 'import' } })
    await post(`/gift-card/${a.id}/redeem`, { amount: 1000, paymentReference: 'before-1', locationId: l1 })
    const from = await boundary()

    const load = (await post(`/gift-card/${a.id}/load`, { amount: 2000, locationId: l1 })).body.transaction
    const d = await issueCard(t, 4000, { locationId: l1 }) // activate: added 4000
    await post(`/gift-card/${a.id}/transactions/${load.id}/void`, { locationId: l1 }) // voided added 2000
    await post(`/gift-card/${b.id}/adjust`, { amountDelta: 500, reason: 'goodwill', locationId: l2 })
    await post(`/gift-card/${a.id}/redeem`, { amount: 3000, paymentReference: 'in-1', locationId: l2 })
    const rB = (
      await post(`/gift-card/${b.id}/redeem`, { amount: 1500, paymentReference: 'in-2', locationId: l2 })
    ).body.transaction
    await post(`/gift-card/${b.id}/transactions/${rB.id}/void`, { locationId: l2 }) // voided redemption 1500
    await post(`/gift-card/${c.id}/cash-out`, { locationId: l1 }) // cash out 3000
    await post(`/gift-card/${d.id}/expire`, { locationId: l1 }) // expiration -4000
    const merged = await post(`/gift-card/${a.id}/merge`, { sourceGiftCardId: b.id, locationId: l1 }) // 5500 across
    expect(merged.body.giftCard.currentBalance).toBe(11_500)
    const inactive = await issueCard(t, 100, { activate: false, locationId: l1 })
    await post(`/gift-card/${inactive.id}/disable`)
    const to = await boundary()
    await post(`/gift-card/${a.id}/load`, { amount: 777, locationId: l1 }) // after the period

    const report = async (location?: string) => {
      const res = await t.request(
        'GET',
        `/gift-card/reports/liability?from=${from}&to=${to}${location ? `&locationId=${location}` : ''}`,
      )
      expect(res.status).toBe(200)
      return res.body
    }

    const all = await report()
    expect(all).toMatchObject({
      startingLiability: 17_000,
      addedValue: 6000,
      voidedAddedValue: 2000,
      adjustments: -3500,
      adjustmentBreakdown: { manual: 500, expirations: -4000, merges: 0 },
      redemptions: 4500,
      voidedRedemptions: 1500,
      cashOuts: 3000,
      netLiabilityChange: -5500,
      endingLiability: 11_500,
      cardCounts: { physical: 1, digital: 4, imported: 1, inactive: 0, disabled: 1 },
    })
    expect(identity(all)).toBe(all.endingLiability)

    const first = await report(l1)
    expect(first).toMatchObject({
      startingLiability: 12_000,
      addedValue: 6000,
      voidedAddedValue: 2000,
      adjustments: 1500,
      redemptions: 3000,
      voidedRedemptions: 0,
      cashOuts: 3000,
      endingLiability: 11_500,
    })
    expect(identity(first)).toBe(first.endingLiability)

    const second = await report(l2)
    expect(second).toMatchObject({
      startingLiability: 5000,
      addedValue: 0,
      adjustments: -5000,
      redemptions: 1500,
      voidedRedemptions: 1500,
      endingLiability: 0,
    })
    expect(identity(second)).toBe(second.endingLiability)

    // Ending liability of the whole history is what the cards hold.
    const everything = await report()
    const later = await t.request('GET', '/gift-card/reports/liability?from=2000-01-01&to=2999-12-31')
    expect(later.body.endingLiability).toBe(11_500 + 777)
    expect(later.body.startingLiability).toBe(0)
    expect(everything.endingLiability).toBe(11_500)
  })
})

describe('liability pooling', () => {
  useApp()
  test('what each origin owes each redeeming location, worked by hand', async () => {
    const l1 = t.tenant.locationId
    const l2 = addLocation('Second')
    const l3 = addLocation('Third')
    const x = await issueCard(t, 10_000, { locationId: l1 })
    const y = await issueCard(t, 10_000, { locationId: l2 })
    const redeem = (card: string, amount: number, ref: string, locationId: string) =>
      post(`/gift-card/${card}/redeem`, { amount, paymentReference: ref, locationId })
    await redeem(x.id, 1200, 'x1', l2)
    await redeem(x.id, 800, 'x2', l2)
    await redeem(x.id, 500, 'x3', l3)
    await redeem(y.id, 300, 'y1', l1)
    await redeem(y.id, 1000, 'y2', l2) // at home: owes nobody
    await redeem(x.id, 250, 'x4', l1) // at home
    const voided = (await redeem(x.id, 700, 'x5', l3)).body.transaction
    await post(`/gift-card/${x.id}/transactions/${voided.id}/void`) // does not count

    const range = 'from=2000-01-01&to=2999-12-31'
    const res = await t.request('GET', `/gift-card/reports/liability-pooling?${range}`)
    expect(res.status).toBe(200)
    expect(res.body.settlements).toEqual([
      { originLocationId: l1, redemptionLocationId: l2, amountOwed: 2000, redemptionCount: 2 },
      { originLocationId: l1, redemptionLocationId: l3, amountOwed: 500, redemptionCount: 1 },
      { originLocationId: l2, redemptionLocationId: l1, amountOwed: 300, redemptionCount: 1 },
    ])
    const third = await t.request('GET', `/gift-card/reports/liability-pooling?${range}&locationId=${l3}`)
    expect(third.body.settlements).toEqual([
      { originLocationId: l1, redemptionLocationId: l3, amountOwed: 500, redemptionCount: 1 },
    ])
    const past = await t.request('GET', '/gift-card/reports/liability-pooling?from=2000-01-01&to=2000-12-31')
    expect(past.body.settlements).toEqual([])
  })
})

describe('transactions report', () => {
  useApp()
  test('lists entries with card details, filters by q and location, pages', async () => {
    const l2 = addLocation('Second')
    const a = await issueCard(t, 1000, { locationId: t.tenant.locationId, body: { code: 'AAAA-BBBB-7788' } })
    await post(`/gift-card/${a.id}/redeem`, {
      amount: 100,
      paymentReference: 'pi_123',
      orderId: 'order-9',
      locationId: l2,
    })
    await issueCard(t, 2000, { locationId: l2 })
    const range = 'from=2000-01-01&to=2999-12-31'
    const all = await t.request('GET', `/gift-card/reports/transactions?${range}`)
    expect(all.body.total).toBe(3)
    expect(all.body.transactions[1]).toMatchObject({
      giftCardId: a.id,
      cardNumber: 1,
      cardLast4: '7788',
      cardType: 'Virtual',
      entryType: 'redeem',
      amountDelta: -100,
      balanceAfter: 900,
      orderId: 'order-9',
      paymentIntentId: 'pi_123',
      originLocationId: t.tenant.locationId,
      transactionLocationId: l2,
    })
    const q = async (text: string) =>
      (await t.request('GET', `/gift-card/reports/transactions?${range}&q=${text}`)).body.total
    expect(await q('PI_12')).toBe(1)
    expect(await q('order-9')).toBe(1)
    expect(await q('redeem')).toBe(1)
    expect(await q('activate')).toBe(2)
    expect(await q('bbbb')).toBe(2)
    const atL2 = await t.request('GET', `/gift-card/reports/transactions?${range}&locationId=${l2}`)
    expect(atL2.body.total).toBe(2)
    const paged = await t.request('GET', `/gift-card/reports/transactions?${range}&limit=1&page=3`)
    expect(paged.body.transactions).toHaveLength(1)
    expect(paged.body.transactions[0].amountDelta).toBe(2000)
  })

  test('dates are calendar days in the tenant time zone; date-times are instants', async () => {
    const winter = await t.request('GET', '/gift-card/reports/liability?from=2024-01-15&to=2024-01-15')
    expect(winter.body.range).toMatchObject({
      startsAt: '2024-01-15T08:00:00.000Z',
      endsBefore: '2024-01-16T08:00:00.000Z',
    })
    const summer = await t.request('GET', '/gift-card/reports/liability?from=2024-07-01&to=2024-07-31')
    expect(summer.body.range).toMatchObject({
      startsAt: '2024-07-01T07:00:00.000Z',
      endsBefore: '2024-08-01T07:00:00.000Z',
    })
    const instants = await t.request(
      'GET',
      '/gift-card/reports/liability?from=2024-07-01T00:00:00Z&to=2024-07-01T12:00:00%2B02:00',
    )
    expect(instants.body.range).toMatchObject({
      startsAt: '2024-07-01T00:00:00.000Z',
      endsBefore: '2024-07-01T10:00:00.001Z',
    })
  })
})

describe("reports within the request's locations", () => {
  useApp()
  const range = 'from=2000-01-01&to=2999-12-31'
  const report = (name: string, as?: string, query = '', headers: Record<string, string> = {}) =>
    t.request('GET', `/gift-card/reports/${name}?${range}${query}`, { as, headers })

  /**
   * Cards issued at A, B and C, used at home and away, and a failed delivery of a card of A and
   * of B. Answers the locations and the bearer tokens of a manager bound to A (JWT and passcode).
   */
  async function setUp() {
    const a = t.tenant.locationId
    const b = addLocation('B')
    const c = addLocation('C')
    const mail = {
      recipientEmail: 'rosa@example.test',
      deliveryChannel: 'email',
      deliveryScheduledAt: '2030-05-01T09:00:00.000Z',
    }
    const fromA = await issueCard(t, 1000, { locationId: a, body: mail })
    const fromB = await issueCard(t, 2000, { locationId: b, body: mail })
    const redeem = (card: string, amount: number, ref: string, locationId: string) =>
      post(`/gift-card/${card}/redeem`, { amount, paymentReference: ref, locationId })
    await redeem(fromA.id, 100, 'a-at-b', b) // A's liability, redeemed at B: A owes B
    await redeem(fromB.id, 200, 'b-at-a', a) // made at A: B owes A
    await redeem(fromB.id, 300, 'b-at-b', b) // B's card at home: none of A's business
    await redeem(fromB.id, 400, 'b-at-c', c) // between B and C only
    await deliverDueGiftCards(
      t.tenant.db,
      {
        provider: 'flaky-mail',
        send: async () => {
          throw new MessageSendError('flaky-mail', '550 mailbox unavailable')
        },
      },
      new Date('2030-05-01T10:00:00.000Z'),
      systemActor(t.tenant.id, 'gift-card-delivery'),
    )
    const staff = await t.addStaff(t.tenant, { role: 'manager', locationId: a, passcode: '1234' })
    const session = await t.passcodeSession(t.tenant, staff, { passcode: '1234' })
    return { a, b, c, fromA, fromB, callers: { jwt: staff.token, passcode: session } }
  }

  test("a manager bound to A sees A's books only, by JWT and by passcode session; the tenant sees all", async () => {
    const { a, b, c, fromA, fromB, callers } = await setUp()
    const tenantWide = await report('liability')
    expect(tenantWide.body.endingLiability).toBe(1000 - 100 + 2000 - 900)
    const everyEntry = await report('transactions')
    expect(everyEntry.body.total).toBe(6)
    expect((await report('liability-pooling')).body.settlements).toHaveLength(3)
    expect((await report('failed-deliveries')).body.deliveries).toHaveLength(2)

    for (const [kind, token] of Object.entries(callers)) {
      const liability = await report('liability', token)
      expect(liability.status, kind).toBe(200)
      expect(liability.body.range.locationId, kind).toBe(a)
      expect(liability.body.endingLiability, kind).toBe(900)
      expect(liability.body.redemptions, kind).toBe(100)
      expect(liability.body.cardCounts.digital, kind).toBe(1)

      const entries = await report('transactions', token)
      expect(entries.body.total, kind).toBe(3)
      expect(
        entries.body.transactions.map((e: any) => [e.giftCardId, e.entryType, e.transactionLocationId]),
        kind,
      ).toEqual([
        [fromA.id, 'activate', a],
        [fromA.id, 'redeem', b],
        [fromB.id, 'redeem', a],
      ])

      const pooling = await report('liability-pooling', token)
      expect(pooling.body.settlements, kind).toEqual([
        { originLocationId: a, redemptionLocationId: b, amountOwed: 100, redemptionCount: 1 },
        { originLocationId: b, redemptionLocationId: a, amountOwed: 200, redemptionCount: 1 },
      ])
      expect(pooling.body.settlements.some((s: any) => s.redemptionLocationId === c)).toBe(false)

      const failed = await report('failed-deliveries', token)
      expect(
        failed.body.deliveries.map((d: any) => d.giftCardId),
        kind,
      ).toEqual([fromA.id])
    }
  })

  test('naming another location is 403 for a caller bound to A; a tenant-wide caller may narrow to one', async () => {
    const { a, b, callers } = await setUp()
    for (const name of ['liability', 'transactions', 'liability-pooling', 'failed-deliveries'])
      for (const [kind, token] of Object.entries(callers)) {
        const res = await report(name, token, `&locationId=${b}`)
        expect(res.status, `${name} ${kind}`).toBe(403)
        expect((await report(name, token, `&locationId=${a}`)).status, `${name} ${kind}`).toBe(200)
      }
    const narrowed = await report('transactions', undefined, '', { 'x-location-id': a })
    const named = await report('transactions', undefined, `&locationId=${a}`)
    expect(narrowed.body.total).toBe(3)
    expect(narrowed.body).toEqual(named.body)
    expect((await report('liability', undefined, `&locationId=${b}`)).body.endingLiability).toBe(1100)
  })

  test('a card stays one tenant-wide account: its own ledger shows a bound caller every entry', async () => {
    const { b, fromB, callers } = await setUp()
    for (const [kind, token] of Object.entries(callers)) {
      const card = await t.request('GET', `/gift-card/${fromB.id}`, { as: token })
      const ledger = await t.request('GET', `/gift-card/${fromB.id}/transactions`, { as: token })
      expect(ledger.status, kind).toBe(200)
      expect(ledger.body.total, kind).toBe(4)
      expect(
        ledger.body.transactions.filter((e: any) => e.transactionLocationId === b),
        kind,
      ).toHaveLength(2)
      expect(ledger.body.transactions.at(-1).balanceAfter, kind).toBe(card.body.currentBalance)
    }
  })

  test('dates follow the time zone of the one location a bound caller reaches', async () => {
    const b = t.addLocation(t.tenant, {
      name: 'Paris',
      timezone: 'Europe/Paris',
    }).id
    const staff = await t.addStaff(t.tenant, { role: 'manager', locationId: b })
    const res = await t.request('GET', '/gift-card/reports/liability?from=2024-01-15&to=2024-01-15', {
      as: staff,
    })
    expect(res.body.range).toMatchObject({
      locationId: b,
      startsAt: '2024-01-14T23:00:00.000Z',
      endsBefore: '2024-01-15T23:00:00.000Z',
    })
  })
})

describe('report validation', () => {
  const reports = ['liability', 'transactions', 'liability-pooling', 'failed-deliveries']
  runScenarios(
    reports.flatMap((report) => [
      {
        name: `${report}: without from is 400`,
        method: 'GET',
        url: `/gift-card/reports/${report}?to=2024-01-31`,
        status: 400,
        code: 'validation_failed',
      },
      {
        name: `${report}: a from shorter than 10 characters is 400`,
        method: 'GET',
        url: `/gift-card/reports/${report}?from=2024-1-1&to=2024-01-31`,
        status: 400,
        code: 'validation_failed',
      },
      {
        name: `${report}: from after to is 400`,
        method: 'GET',
        url: `/gift-card/reports/${report}?from=2024-02-01&to=2024-01-31`,
        status: 400,
        code: 'validation_failed',
        check: (res) => expect(res.body.errors[0].path).toBe('query/to'),
      },
      {
        name: `${report}: the same day for from and to is 200`,
        method: 'GET',
        url: `/gift-card/reports/${report}?from=2024-01-31&to=2024-01-31`,
        status: 200,
      },
      {
        name: `${report}: staff may not read reports (403)`,
        method: 'GET',
        url: `/gift-card/reports/${report}?from=2024-01-01&to=2024-01-31`,
        as: (ctx) => ctx.t.tenant.staff,
        status: 403,
        code: 'forbidden',
      },
    ]),
  )
  runScenarios(
    [
      ['a non-date', 'from=not-a-date&to=2024-01-31'],
      ['an impossible date', 'from=2024-02-30&to=2024-03-01'],
      ['a date-time without a zone', 'from=2024-01-01T10:00:00&to=2024-01-31'],
      ['an unknown location', 'from=2024-01-01&to=2024-01-31&locationId=nowhere'],
      ['limit 501', 'from=2024-01-01&to=2024-01-31&limit=501'],
      [
        'a to after from by the same instant minus one',
        'from=2024-01-01T10:00:00.001Z&to=2024-01-01T10:00:00Z',
      ],
    ].map(([name, query]) => ({
      name: `transactions: ${name} is 400`,
      method: 'GET',
      url: `/gift-card/reports/transactions?${query}`,
      status: 400,
      code: 'validation_failed',
    })),
  )
})
