// Gift cards: create, list, get, update, lookup by code, settings; validation, permissions,
// tenant isolation, audit and events.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { LOOKUP_MISS_LIMIT, LOOKUP_WINDOW_MS, lookupMisses } from '../../../src/modules/gift-cards/lookup'
import type { SharedWindowLimiter } from '../../../src/platform/auth/rate-limit'
import { countRows, createTestApp, runScenarios, type TestApp } from '../../harness'
import { makeTestDir, removeTestDir } from '../../temp-dirs'
import { issueCard, putSettings, uniqueCode } from './helpers'

const card = (extra: Record<string, unknown> = {}) => ({
  title: 'Holiday card',
  type: 'Virtual',
  code: uniqueCode(),
  initialAmount: 2500,
  ...extra,
})

describe('gift cards: scenarios', () => {
  runScenarios([
    {
      name: 'create answers 201 with an Inactive card, number 1 and a zero balance',
      method: 'POST',
      url: '/gift-card',
      body: card({ code: 'abcd-efgh-1234' }),
      status: 201,
      expectBody: {
        title: 'Holiday card',
        type: 'Virtual',
        status: 'Inactive',
        giftCardNumber: 1,
        code: 'ABCD-EFGH-1234',
        initialAmount: 2500,
        currentBalance: 0,
        source: 'manual',
        deliveryStatus: 'not_applicable',
        deliveryChannel: null,
      },
      check: (res) => expect(res.body.codeHash).toBeUndefined(),
    },
    {
      name: 'create with activate: true is Active with the initial amount',
      method: 'POST',
      url: '/gift-card',
      body: card({ activate: true }),
      status: 201,
      expectBody: { status: 'Active', currentBalance: 2500 },
    },
    {
      name: 'create without a title is 400',
      method: 'POST',
      url: '/gift-card',
      body: card({ title: undefined }),
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'an unknown type is 400',
      method: 'POST',
      url: '/gift-card',
      body: card({ type: 'Plastic' }),
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'a fractional amount is 400',
      method: 'POST',
      url: '/gift-card',
      body: card({ initialAmount: 10.5 }),
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'a negative amount is 400',
      method: 'POST',
      url: '/gift-card',
      body: card({ initialAmount: -1 }),
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'a code with fewer than 6 letters or digits is 400',
      method: 'POST',
      url: '/gift-card',
      body: card({ code: 'AB-12' }),
      status: 400,
      code: 'validation_failed',
      check: (res) => expect(res.body.errors[0].path).toBe('body/code'),
    },
    {
      name: 'a code with symbols is 400',
      method: 'POST',
      url: '/gift-card',
      body: card({ code: 'ABC$12345' }),
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'an unknown field is 400',
      method: 'POST',
      url: '/gift-card',
      body: card({ balance: 100 }),
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'an email delivery without any address is 400 and writes nothing',
      method: 'POST',
      url: '/gift-card',
      body: card({ deliveryChannel: 'email' }),
      status: 400,
      code: 'validation_failed',
      check: (_res, ctx) => expect(countRows(ctx.t.tenant.db, 'gift_cards')).toBe(0),
    },
    {
      name: 'an unknown origin location is 400',
      method: 'POST',
      url: '/gift-card',
      body: card({ originLocationId: 'nowhere' }),
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'a code already in use is 409, ignoring case, spaces and dashes',
      method: 'POST',
      url: '/gift-card',
      setup: async (ctx) => {
        await ctx.t.request('POST', '/gift-card', { body: card({ code: 'WXYZ-9876' }) })
      },
      body: card({ code: 'wx yz98 76' }),
      status: 409,
      code: 'conflict',
    },
    {
      name: 'limit 201 is 400',
      method: 'GET',
      url: '/gift-card?limit=201',
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'limit 0 is 400',
      method: 'GET',
      url: '/gift-card?limit=0',
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'limit 200 is accepted',
      method: 'GET',
      url: '/gift-card?limit=200',
      status: 200,
      expectBody: { giftCards: [], total: 0 },
    },
    { name: 'an unknown id is 404', method: 'GET', url: '/gift-card/nope', status: 404, code: 'not_found' },
    {
      name: 'lookup without a code is 400',
      method: 'GET',
      url: '/gift-card/lookup',
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'lookup with an empty code is 400',
      method: 'GET',
      url: '/gift-card/lookup?code=',
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'read_only may not create (403)',
      method: 'POST',
      url: '/gift-card',
      as: (ctx) => ctx.t.tenant.readOnly,
      body: card(),
      status: 403,
      code: 'forbidden',
      check: (res, ctx) => {
        expect(res.body.requiredPermission).toBe('gift-cards:write')
        expect(countRows(ctx.t.tenant.db, 'gift_cards')).toBe(0)
      },
    },
    {
      name: 'read_only may list',
      method: 'GET',
      url: '/gift-card',
      as: (ctx) => ctx.t.tenant.readOnly,
      status: 200,
    },
    {
      name: 'no token is 401',
      method: 'GET',
      url: '/gift-card',
      as: () => null,
      status: 401,
      code: 'unauthenticated',
    },
    {
      name: 'staff may not change settings (403 without gift-cards:settings)',
      method: 'PUT',
      url: '/gift-card/settings',
      as: (ctx) => ctx.t.tenant.staff,
      body: {},
      status: 403,
      code: 'forbidden',
    },
    {
      name: 'settings answer the defaults before first saved',
      method: 'GET',
      url: '/gift-card/settings',
      status: 200,
      expectBody: {
        enabled: true,
        cashOutEnabled: false,
        cashOutPermission: 'manager',
        sharedAcrossLocations: true,
        minimumPurchaseAmount: 0,
      },
    },
    {
      name: 'settings need all eleven fields',
      method: 'PUT',
      url: '/gift-card/settings',
      body: { enabled: true },
      status: 400,
      code: 'validation_failed',
    },
  ])
})

const fullSettings = {
  enabled: true,
  tipsEnabled: true,
  cashOutEnabled: true,
  cashOutThreshold: 1000,
  cashOutPermission: 'staff',
  allowDiscounts: false,
  allowOnlineRedemption: false,
  sharedAcrossLocations: false,
  minimumPurchaseAmount: 500,
  digitalPurchaseLimit: 50_000,
  physicalPurchaseLimit: 100_000,
}

describe('gift card settings', () => {
  let t: TestApp
  beforeEach(async () => {
    t = await createTestApp()
  })
  afterEach(() => t.close())

  test('PUT stores all eleven fields and GET answers them; audit records the changes', async () => {
    const put = await t.request('PUT', '/gift-card/settings', { body: fullSettings })
    expect(put.status).toBe(200)
    expect(put.body).toEqual(fullSettings)
    expect((await t.request('GET', '/gift-card/settings')).body).toEqual(fullSettings)
    const entry = t.tenant.db.$client
      .query("SELECT metadata FROM audit_entries WHERE action = 'gift_card_settings.update'")
      .get() as { metadata: string }
    expect(JSON.parse(entry.metadata).changes.cashOutPermission).toEqual({ from: 'manager', to: 'staff' })
  })

  test.each([
    ['cashOutThreshold', -1],
    ['minimumPurchaseAmount', 1.5],
    ['digitalPurchaseLimit', -100],
    ['physicalPurchaseLimit', null],
    ['cashOutPermission', 'cashier'],
    ['cashOutPermission', ''],
    ['enabled', 'yes'],
  ])('%s = %p is 400 and changes nothing', async (field, value) => {
    const res = await t.request('PUT', '/gift-card/settings', { body: { ...fullSettings, [field]: value } })
    expect(res.status).toBe(400)
    expect(res.body.errors[0].path).toBe(`body/${field}`)
    expect(countRows(t.tenant.db, 'gift_card_settings')).toBe(0)
  })

  test('purchase limits and the minimum apply to activation; turning cards off refuses new ones', async () => {
    await putSettings(t, {
      minimumPurchaseAmount: 1000,
      digitalPurchaseLimit: 20_000,
      physicalPurchaseLimit: 0,
    })
    const low = await t.request('POST', '/gift-card', { body: card({ initialAmount: 999, activate: true }) })
    expect(low.status).toBe(400)
    const high = await t.request('POST', '/gift-card', {
      body: card({ initialAmount: 20_001, activate: true }),
    })
    expect(high.status).toBe(400)
    expect(high.body.errors[0].path).toBe('body/initialAmount')
    const physical = await t.request('POST', '/gift-card', {
      body: card({ type: 'Physical', initialAmount: 90_000, activate: true }),
    })
    expect(physical.status).toBe(201)
    expect(countRows(t.tenant.db, 'gift_cards')).toBe(1)

    await putSettings(t, { enabled: false })
    const off = await t.request('POST', '/gift-card', { body: card() })
    expect(off.status).toBe(409)
  })
})

describe('gift cards: behaviour', () => {
  let t: TestApp
  beforeEach(async () => {
    t = await createTestApp()
  })
  afterEach(() => t.close())

  test('numbers increase per tenant; list searches and pages, newest first', async () => {
    const a = await issueCard(t, 1000, { body: { title: 'Birthday', recipientName: 'Ana Smith' } })
    const b = await issueCard(t, 2000, { body: { title: 'Wedding', purchaserEmail: 'buyer@example.test' } })
    const c = await issueCard(t, 3000, { body: { title: 'Thanks' } })
    expect([a.giftCardNumber, b.giftCardNumber, c.giftCardNumber]).toEqual([1, 2, 3])
    const all = await t.request('GET', '/gift-card?limit=2')
    expect(all.body.total).toBe(3)
    expect(all.body.giftCards.map((g: { giftCardNumber: number }) => g.giftCardNumber)).toEqual([3, 2])
    const page2 = await t.request('GET', '/gift-card?limit=2&page=2')
    expect(page2.body.giftCards.map((g: { id: string }) => g.id)).toEqual([a.id])
    const q = async (text: string) =>
      (await t.request('GET', `/gift-card?q=${encodeURIComponent(text)}`)).body.giftCards.map(
        (g: { id: string }) => g.id,
      )
    expect(await q('ana smith')).toEqual([a.id])
    expect(await q('BUYER@')).toEqual([b.id])
    expect(await q('3')).toContain(c.id)
    expect(await q(c.code.toLowerCase().replaceAll('-', ''))).toEqual([c.id])

    const other = await t.addTenant('other')
    const theirs = await t.request('POST', '/gift-card', { as: other.owner, tenant: other, body: card() })
    expect(theirs.body.giftCardNumber).toBe(1)
  })

  test('update changes descriptive fields, schedules delivery, and never the balance', async () => {
    const created = await issueCard(t, 4000)
    const customer = (
      await t.request('POST', '/customers', {
        body: { firstName: 'Ann', lastName: 'Lee', email: 'ann@example.test' },
      })
    ).body
    const res = await t.request('PUT', `/gift-card/${created.id}`, {
      body: { recipientEmail: 'friend@example.test', deliveryChannel: 'email', customerId: customer.id },
    })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({
      deliveryStatus: 'scheduled',
      deliveryChannel: 'email',
      deliveryDestination: 'friend@example.test',
      customerId: customer.id,
      currentBalance: 4000,
    })
    expect(res.body.deliveryScheduledAt).toBeString()
    const bad = await t.request('PUT', `/gift-card/${created.id}`, { body: { currentBalance: 1 } })
    expect(bad.status).toBe(400)
    const cleared = await t.request('PUT', `/gift-card/${created.id}`, { body: { deliveryChannel: null } })
    expect(cleared.body.deliveryStatus).toBe('not_applicable')
  })

  test('lookup is case-insensitive, ignores dashes and spaces, and every miss is the same 404', async () => {
    const created = await issueCard(t, 1500, { body: { code: 'Gift-Abc-123456' } })
    for (const code of ['GIFT-ABC-123456', 'gift abc 123456', 'giftabc123456']) {
      const res = await t.request('GET', `/gift-card/lookup?code=${encodeURIComponent(code)}`)
      expect(res.status).toBe(200)
      expect(res.body.id).toBe(created.id)
    }
    const misses = await Promise.all(
      ['GIFT-ABC-123457', 'GIFT-ABC-12345', 'x', 'GIFT-ABC-1234560'].map((code) =>
        t.request('GET', `/gift-card/lookup?code=${encodeURIComponent(code)}`),
      ),
    )
    const shapes = misses.map((m) => ({ status: m.status, detail: m.body.detail, code: m.body.code }))
    expect(new Set(shapes.map((s) => JSON.stringify(s))).size).toBe(1)
    expect(shapes[0]).toEqual({ status: 404, detail: 'gift card not found', code: 'not_found' })
  })

  test('after too many misses lookups answer 429, for that staff user only', async () => {
    const created = await issueCard(t, 1500)
    for (let i = 0; i < LOOKUP_MISS_LIMIT; i++) {
      expect((await t.request('GET', `/gift-card/lookup?code=WRONG${i}000`)).status).toBe(404)
    }
    const limited = await t.request('GET', `/gift-card/lookup?code=${created.code}`)
    expect(limited.status).toBe(429)
    expect(limited.body.code).toBe('rate_limited')
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0)
    const colleague = await t.request('GET', `/gift-card/lookup?code=${created.code}`, {
      as: t.tenant.manager,
    })
    expect(colleague.status).toBe(200)
  })

  test('the misses are counted in a table every worker shares: ten on each make twenty on both, until the window ends', () => {
    let now = 1_000_000
    const dir = makeTestDir('lookup-misses')
    try {
      const [first, second] = [1, 2].map(() => lookupMisses(dir, () => now)) as [
        SharedWindowLimiter,
        SharedWindowLimiter,
      ]
      for (let i = 0; i < LOOKUP_MISS_LIMIT / 2; i++) {
        first.take('tenant guesser', LOOKUP_MISS_LIMIT)
        second.take('tenant guesser', LOOKUP_MISS_LIMIT)
      }
      expect(first.peek('tenant guesser')).toEqual({ count: LOOKUP_MISS_LIMIT, resetSeconds: 600 })
      expect(second.peek('tenant guesser').count).toBe(LOOKUP_MISS_LIMIT)
      expect(second.peek('tenant colleague').count).toBe(0)
      now += LOOKUP_WINDOW_MS
      expect(first.peek('tenant guesser').count).toBe(0)
    } finally {
      removeTestDir(dir)
    }
  })

  test("another tenant's card is 404 on every route and its code does not resolve", async () => {
    const other = await t.addTenant('other')
    const theirs = (
      await t.request('POST', '/gift-card', {
        as: other.owner,
        tenant: other,
        body: card({ code: 'THEIR-CODE-1', activate: true }),
      })
    ).body
    const routes: [string, string, unknown][] = [
      ['GET', `/gift-card/${theirs.id}`, undefined],
      ['PUT', `/gift-card/${theirs.id}`, { title: 'Mine' }],
      ['GET', `/gift-card/${theirs.id}/transactions`, undefined],
      ['POST', `/gift-card/${theirs.id}/activate`, {}],
      ['POST', `/gift-card/${theirs.id}/load`, { amount: 100 }],
      ['POST', `/gift-card/${theirs.id}/redeem`, { amount: 100, paymentReference: 'pay-x' }],
      ['POST', `/gift-card/${theirs.id}/adjust`, { amountDelta: 100, reason: 'x' }],
      ['POST', `/gift-card/${theirs.id}/cash-out`, {}],
      ['POST', `/gift-card/${theirs.id}/expire`, {}],
      ['POST', `/gift-card/${theirs.id}/disable`, {}],
      ['POST', `/gift-card/${theirs.id}/enable`, {}],
      ['POST', `/gift-card/${theirs.id}/opened`, undefined],
      ['POST', `/gift-card/${theirs.id}/merge`, { sourceGiftCardId: theirs.id }],
      ['GET', '/gift-card/lookup?code=THEIR-CODE-1', undefined],
    ]
    for (const [method, path, body] of routes) {
      const res = await t.request(method, path, { body })
      expect({ path, status: res.status }).toEqual({ path, status: 404 })
    }
    const still = await t.request('GET', `/gift-card/${theirs.id}`, { as: other.owner, tenant: other })
    expect(still.body).toMatchObject({ title: 'Holiday card', currentBalance: 2500, status: 'Active' })
  })

  test('writes append audit entries and outbox events; refused writes append nothing', async () => {
    const created = await issueCard(t, 1000, { activate: false })
    await t.request('PUT', `/gift-card/${created.id}`, { body: { notes: 'VIP' } })
    await t.request('POST', `/gift-card/${created.id}/activate`, { body: {} })
    const actions = t.tenant.db.$client
      .query("SELECT action FROM audit_entries WHERE entity_type = 'gift_card' ORDER BY seq")
      .all()
      .map((r) => (r as { action: string }).action)
    expect(actions).toEqual(['gift_card.create', 'gift_card.update', 'gift_card.activate'])
    const events = t.tenant.db.$client
      .query("SELECT action FROM outbox_events WHERE object = 'gift_card' ORDER BY seq")
      .all()
      .map((r) => (r as { action: string }).action)
    expect(events).toEqual(['create', 'update', 'activate'])
    const before = countRows(t.tenant.db, 'audit_entries')
    await t.request('POST', `/gift-card/${created.id}/activate`, { body: {} })
    await t.request('POST', `/gift-card/${created.id}/load`, { as: t.tenant.readOnly, body: { amount: 100 } })
    await t.request('POST', `/gift-card/${created.id}/redeem`, {
      body: { amount: 99_999, paymentReference: 'p-1' },
    })
    expect(countRows(t.tenant.db, 'audit_entries')).toBe(before)
    expect(countRows(t.tenant.db, 'gift_card_transactions')).toBe(1)
  })
})
