// Club memberships: sign-up rules (address ownership, Ship), hold, resume and cancel transitions,
// cadence-driven next process dates, expansions, search, permissions and isolation.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { todayIn } from '../../../src/platform/foundation/dates'
import { countRows, createTestApp, runScenarios, type ScenarioContext, type TestApp } from '../../harness'
import { addAddress, addCard, events, makeClub, makeCustomer } from '../customers/helpers'

async function member(ctx: ScenarioContext) {
  ctx.vars.customer = await makeCustomer(ctx.t)
  ctx.vars.club = await makeClub(ctx.t)
  ctx.vars.address = await addAddress(ctx.t, ctx.vars.customer.id)
  const other = await makeCustomer(ctx.t)
  ctx.vars.otherAddress = await addAddress(ctx.t, other.id)
  ctx.vars.otherCard = await addCard(ctx.t, other.id)
}

const signup = (ctx: ScenarioContext, extra: Record<string, unknown> = {}) => ({
  customerId: ctx.vars.customer.id,
  clubId: ctx.vars.club.id,
  orderDeliveryMethod: 'Pickup',
  ...extra,
})

const nothingWritten = (_res: unknown, ctx: ScenarioContext) =>
  expect(countRows(ctx.t.tenant.db, 'club_memberships')).toBe(0)

describe('club memberships: sign-up', () => {
  runScenarios([
    {
      name: 'a Pickup sign-up is Active, processed one cadence after sign-up',
      method: 'POST',
      url: '/club-membership',
      setup: member,
      headers: {},
      body: (ctx: ScenarioContext) =>
        signup(ctx, { signupDate: '2025-01-31', billToCustomerAddressId: ctx.vars.address.id }),
      status: 201,
      expectBody: {
        status: 'Active',
        orderDeliveryMethod: 'Pickup',
        signupDate: '2025-01-31',
        nextProcessDate: '2025-04-30',
        currentNumberOfShipments: 0,
        cancelDate: null,
        holdUntil: null,
        cadenceOverride: null,
      },
      check: (res, ctx) => expect(res.body.billToCustomerAddressId).toBe(ctx.vars.address.id),
    },
    {
      name: 'a Ship sign-up with the member’s own address and card copies the card’s provider references',
      method: 'POST',
      url: '/club-membership',
      setup: async (ctx) => {
        await member(ctx)
        ctx.vars.card = await addCard(ctx.t, ctx.vars.customer.id)
      },
      body: (ctx: ScenarioContext) =>
        signup(ctx, {
          orderDeliveryMethod: 'Ship',
          shipToCustomerAddressId: ctx.vars.address.id,
          customerCreditCardId: ctx.vars.card.id,
          cadenceOverride: { unit: 'week', count: 2 },
          signupDate: '2025-12-25',
        }),
      status: 201,
      expectBody: {
        orderDeliveryMethod: 'Ship',
        nextProcessDate: '2026-01-08',
        cadenceOverride: { unit: 'week', count: 2 },
      },
      check: (res, ctx) =>
        expect(res.body).toMatchObject({
          customerCreditCardId: ctx.vars.card.id,
          providerCustomerId: ctx.vars.card.providerCustomerId,
          providerPaymentMethodId: ctx.vars.card.providerPaymentMethodId,
        }),
    },
    {
      name: 'Ship without a ship-to address is 400',
      method: 'POST',
      url: '/club-membership',
      setup: member,
      body: (ctx: ScenarioContext) =>
        signup(ctx, { orderDeliveryMethod: 'Ship', billToCustomerAddressId: ctx.vars.address.id }),
      status: 400,
      code: 'validation_failed',
      check: (res, ctx) => {
        expect(res.body.errors).toEqual([expect.objectContaining({ path: 'body/shipToCustomerAddressId' })])
        nothingWritten(res, ctx)
      },
    },
    ...(['shipToCustomerAddressId', 'billToCustomerAddressId'] as const).map((field) => ({
      name: `${field} of another customer is 400`,
      method: 'POST',
      url: '/club-membership',
      setup: member,
      body: (ctx: ScenarioContext) =>
        signup(ctx, {
          orderDeliveryMethod: 'Ship',
          shipToCustomerAddressId: ctx.vars.address.id,
          [field]: ctx.vars.otherAddress.id,
        }),
      status: 400,
      code: 'validation_failed',
      check: (res: any, ctx: ScenarioContext) => {
        expect(res.body.errors).toEqual([expect.objectContaining({ path: `body/${field}` })])
        nothingWritten(res, ctx)
      },
    })),
    {
      name: 'a card of another customer is 400',
      method: 'POST',
      url: '/club-membership',
      setup: member,
      body: (ctx: ScenarioContext) => signup(ctx, { customerCreditCardId: ctx.vars.otherCard.id }),
      status: 400,
      code: 'validation_failed',
      check: (res) => expect(res.body.errors[0].path).toBe('body/customerCreditCardId'),
    },
    {
      name: 'an unknown customer is 400',
      method: 'POST',
      url: '/club-membership',
      setup: member,
      body: (ctx: ScenarioContext) => signup(ctx, { customerId: 'nope' }),
      status: 400,
      code: 'validation_failed',
      check: (res) => expect(res.body.errors[0].path).toBe('body/customerId'),
    },
    {
      name: 'an unknown club is 400',
      method: 'POST',
      url: '/club-membership',
      setup: member,
      body: (ctx: ScenarioContext) => signup(ctx, { clubId: 'nope' }),
      status: 400,
      code: 'validation_failed',
      check: (res) => expect(res.body.errors[0].path).toBe('body/clubId'),
    },
    ...[
      ['an unknown delivery method', { orderDeliveryMethod: 'Courier' }],
      ['no delivery method', { orderDeliveryMethod: undefined }],
      ['an impossible sign-up date', { signupDate: '2025-02-30' }],
      ['a zero cadence override', { cadenceOverride: { unit: 'week', count: 0 } }],
      ['a status', { status: 'Active' }],
    ].map(([name, extra]) => ({
      name: `${name} is 400`,
      method: 'POST',
      url: '/club-membership',
      setup: member,
      body: (ctx: ScenarioContext) =>
        JSON.parse(JSON.stringify(signup(ctx, extra as Record<string, unknown>))),
      status: 400,
      code: 'validation_failed',
      check: nothingWritten,
    })),
    {
      name: 'a second live membership of the same club is 409',
      method: 'POST',
      url: '/club-membership',
      setup: async (ctx) => {
        await member(ctx)
        ctx.vars.first = (await ctx.t.request('POST', '/club-membership', { body: signup(ctx) })).body
      },
      body: (ctx: ScenarioContext) => signup(ctx),
      status: 409,
      code: 'conflict',
      check: (res, ctx) =>
        expect(res.body).toMatchObject({ clubMembershipId: ctx.vars.first.id, currentStatus: 'Active' }),
    },
    {
      name: 'a club closed to sign-ups (adminStatus Not Available) is 409',
      method: 'POST',
      url: '/club-membership',
      setup: async (ctx) => {
        await member(ctx)
        await ctx.t.request('PUT', `/club/${ctx.vars.club.id}`, { body: { adminStatus: 'Not Available' } })
      },
      body: (ctx: ScenarioContext) => signup(ctx),
      status: 409,
      code: 'conflict',
      check: nothingWritten,
    },
    {
      name: 'the staff role may sign members up',
      method: 'POST',
      url: '/club-membership',
      setup: member,
      as: (ctx) => ctx.t.tenant.staff,
      body: (ctx: ScenarioContext) => signup(ctx),
      status: 201,
    },
    {
      name: 'read_only may not sign up (403 without clubs:write)',
      method: 'POST',
      url: '/club-membership',
      setup: member,
      as: (ctx) => ctx.t.tenant.readOnly,
      body: (ctx: ScenarioContext) => signup(ctx),
      status: 403,
      code: 'forbidden',
      check: nothingWritten,
    },
    {
      name: 'read_only may list',
      method: 'GET',
      url: '/club-membership',
      as: (ctx) => ctx.t.tenant.readOnly,
      status: 200,
      expectBody: { clubMemberships: [], total: 0 },
    },
    {
      name: 'an unknown expansion is 400',
      method: 'GET',
      url: '/club-membership?expand=orders',
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'an unknown id is 404',
      method: 'GET',
      url: '/club-membership/nope',
      status: 404,
      code: 'not_found',
    },
    {
      name: 'hold of an unknown id is 404',
      method: 'POST',
      url: '/club-membership/nope/hold',
      body: { holdUntil: '2099-01-01' },
      status: 404,
      code: 'not_found',
    },
  ])
})

describe('club memberships: behaviour', () => {
  let t: TestApp
  let ctx: ScenarioContext
  let today: string
  beforeEach(async () => {
    t = await createTestApp()
    ctx = { t, vars: {} }
    await member(ctx)
    today = todayIn('America/Los_Angeles') // the harness tenant's zone
  })
  afterEach(() => t.close())

  const create = async (extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) => {
    const res = await t.request('POST', '/club-membership', { body: signup(ctx, extra), headers })
    expect(res.status).toBe(201)
    return res.body
  }

  test('hold, resume, hold again, cancel: each transition, its refusals, audit and events', async () => {
    const m = await create({ signupDate: '2025-01-15', cadenceOverride: { unit: 'month', count: 1 } })
    const hold = (body: object) => t.request('POST', `/club-membership/${m.id}/hold`, { body })

    for (const holdUntil of [today, '2020-01-01']) {
      const res = await hold({ holdUntil })
      expect(res.status).toBe(400)
      expect(res.body.errors[0].path).toBe('body/holdUntil')
    }
    expect((await hold({ holdUntil: '2099-02-30' })).status).toBe(400)
    const resumeActive = await t.request('POST', `/club-membership/${m.id}/resume`)
    expect(resumeActive.status).toBe(409)
    expect(resumeActive.body.currentStatus).toBe('Active')

    const held = await hold({ holdUntil: '2099-03-20', holdReason: 'Travelling' })
    expect(held.status).toBe(200)
    expect(held.body).toMatchObject({
      status: 'On Hold',
      holdUntil: '2099-03-20',
      holdReason: 'Travelling',
      nextProcessDate: '2099-04-15',
    })
    const extended = await hold({ holdUntil: '2099-05-15' })
    expect(extended.body).toMatchObject({
      status: 'On Hold',
      holdUntil: '2099-05-15',
      holdReason: null,
      nextProcessDate: '2099-05-15',
    })

    const resumed = await t.request('POST', `/club-membership/${m.id}/resume`)
    expect(resumed.body).toMatchObject({
      status: 'Active',
      holdUntil: null,
      holdReason: null,
      nextProcessDate: '2025-02-15',
    })

    await hold({ holdUntil: '2099-01-01' })
    const early = await t.request('POST', `/club-membership/${m.id}/cancel`, {
      body: { cancelDate: '2025-01-14' },
    })
    expect(early.status).toBe(400)
    expect(early.body.errors[0].path).toBe('body/cancelDate')
    const cancelled = await t.request('POST', `/club-membership/${m.id}/cancel`, {
      body: { cancelReason: 'Moved away' },
    })
    expect(cancelled.body).toMatchObject({
      status: 'Cancelled',
      cancelDate: today,
      cancelReason: 'Moved away',
      nextProcessDate: null,
      holdUntil: null,
    })
    for (const [path, body] of [
      ['cancel', {}],
      ['hold', { holdUntil: '2099-01-01' }],
      ['resume', undefined],
    ] as const) {
      const res = await t.request('POST', `/club-membership/${m.id}/${path}`, { body })
      expect({ path, status: res.status, currentStatus: res.body.currentStatus }).toEqual({
        path,
        status: 409,
        currentStatus: 'Cancelled',
      })
    }
    expect(
      (await t.request('PUT', `/club-membership/${m.id}`, { body: { subscriptionTemplateId: 'x' } })).status,
    ).toBe(409)
    // Cancelled, the customer may join the club again.
    await create()

    const actions = t.tenant.db.$client
      .query(
        "SELECT action FROM audit_entries WHERE entity_type = 'club_membership' AND entity_id = ? ORDER BY seq",
      )
      .all(m.id)
      .map((e: any) => e.action)
    expect(actions).toEqual([
      'club_membership.create',
      'club_membership.hold',
      'club_membership.hold',
      'club_membership.resume',
      'club_membership.hold',
      'club_membership.cancel',
    ])
    expect(
      events(t, 'club_membership')
        .filter((e) => e.aggregateId === m.id)
        .map((e) => e.action),
    ).toEqual(['create', 'hold', 'hold', 'resume', 'hold', 'cancel'])
  })

  test('update: the Ship rule and ownership apply to the result; processing moves the next date', async () => {
    const m = await create({ signupDate: '2025-01-31' })
    const put = (body: object) => t.request('PUT', `/club-membership/${m.id}`, { body })
    const noAddress = await put({ orderDeliveryMethod: 'Ship' })
    expect(noAddress.status).toBe(400)
    expect(noAddress.body.errors[0].path).toBe('body/shipToCustomerAddressId')
    expect(
      (await put({ orderDeliveryMethod: 'Ship', shipToCustomerAddressId: ctx.vars.otherAddress.id })).status,
    ).toBe(400)
    const ship = await put({ orderDeliveryMethod: 'Ship', shipToCustomerAddressId: ctx.vars.address.id })
    expect(ship.body).toMatchObject({
      orderDeliveryMethod: 'Ship',
      shipToCustomerAddressId: ctx.vars.address.id,
    })
    expect((await put({ shipToCustomerAddressId: null })).status).toBe(400)
    const processed = await put({ lastProcessedDate: '2025-04-30', currentNumberOfShipments: 1 })
    expect(processed.body).toMatchObject({
      lastProcessedDate: '2025-04-30',
      currentNumberOfShipments: 1,
      nextProcessDate: '2025-07-30',
    })
    const weekly = await put({ cadenceOverride: { unit: 'week', count: 1 } })
    expect(weekly.body.nextProcessDate).toBe('2025-05-07')
    const back = await put({ cadenceOverride: null })
    expect(back.body.nextProcessDate).toBe('2025-07-30')
    expect((await put({ status: 'Cancelled' })).status).toBe(400)
    // The address a membership ships to cannot be deleted.
    const del = await t.request(
      'DELETE',
      `/customers/${ctx.vars.customer.id}/addresses/${ctx.vars.address.id}`,
    )
    expect(del.status).toBe(409)
    const changes = t.tenant.db.$client
      .query("SELECT metadata FROM audit_entries WHERE action = 'club_membership.update' ORDER BY seq")
      .all()
      .map((e: any) => JSON.parse(e.metadata).changes)
    expect(changes[1]).toMatchObject({
      lastProcessedDate: { from: null, to: '2025-04-30' },
      nextProcessDate: { from: '2025-04-30', to: '2025-07-30' },
    })
  })

  test('a new club cadence moves the next date of live memberships without an override', async () => {
    const plain = await create({ signupDate: '2025-01-31' })
    const otherCustomer = await makeCustomer(t)
    const overridden = (
      await t.request('POST', '/club-membership', {
        body: {
          ...signup(ctx),
          customerId: otherCustomer.id,
          signupDate: '2025-01-31',
          cadenceOverride: { unit: 'year', count: 1 },
        },
      })
    ).body
    await t.request('PUT', `/clubs/${ctx.vars.club.id}`, { body: { cadence: { unit: 'month', count: 1 } } })
    expect((await t.request('GET', `/club-membership/${plain.id}`)).body.nextProcessDate).toBe('2025-02-28')
    expect((await t.request('GET', `/club-membership/${overridden.id}`)).body.nextProcessDate).toBe(
      '2026-01-31',
    )
  })

  test('list: q, clubId, status, expand, paging; get with expand', async () => {
    const second = await makeCustomer(t, { firstName: 'Zed', lastName: 'Quill', email: 'zq@example.test' })
    const bubbles = await makeClub(t, { title: 'Bubbles' })
    const a = await create({ signupDate: '2025-01-01' }, { 'x-location-id': t.tenant.locationId })
    const b = (
      await t.request('POST', '/club-membership', {
        body: {
          customerId: second.id,
          clubId: bubbles.id,
          orderDeliveryMethod: 'Pickup',
          signupDate: '2025-02-01',
        },
      })
    ).body
    expect(a.locationId).toBe(t.tenant.locationId)
    const ids = async (query: string) => {
      const res = await t.request('GET', `/club-membership${query}`)
      expect(res.status).toBe(200)
      return res.body.clubMemberships.map((m: any) => m.id)
    }
    expect(await ids('')).toEqual([b.id, a.id])
    expect(await ids('?q=quill')).toEqual([b.id])
    expect(await ids('?q=ZQ@EXAMPLE')).toEqual([b.id])
    expect(await ids('?q=bubbles')).toEqual([b.id])
    expect(await ids(`?clubId=${ctx.vars.club.id}`)).toEqual([a.id])
    expect(await ids(`?customerId=${second.id}`)).toEqual([b.id])
    expect(await ids('?status=Cancelled')).toEqual([])
    expect(await ids('?limit=1&page=2')).toEqual([a.id])
    expect((await t.request('GET', '/club-membership?limit=1')).body.total).toBe(2)

    const plain = await t.request('GET', `/club-membership/${a.id}`)
    expect(plain.body.customer).toBeUndefined()
    expect(plain.body.club).toBeUndefined()
    const expanded = await t.request('GET', `/club-membership/${a.id}?expand=customer,club`)
    expect(expanded.body.customer).toMatchObject({
      id: ctx.vars.customer.id,
      addresses: [{ id: ctx.vars.address.id }],
    })
    expect(expanded.body.club).toEqual(ctx.vars.club)
    const onlyClub = await t.request('GET', `/club-membership?expand=club&clubId=${bubbles.id}`)
    expect(onlyClub.body.clubMemberships[0].club).toEqual(bubbles)
    expect(onlyClub.body.clubMemberships[0].customer).toBeUndefined()
  })

  test("another tenant's membership is 404 on every route; their customer cannot be signed up here", async () => {
    const other = await t.addTenant('other')
    const theirCustomer = await makeCustomer(t, {}, { tenant: other })
    const theirClub = await makeClub(t, {}, other)
    const theirs = await t.request('POST', '/club-membership', {
      as: other.owner,
      tenant: other,
      body: { customerId: theirCustomer.id, clubId: theirClub.id, orderDeliveryMethod: 'Pickup' },
    })
    expect(theirs.status).toBe(201)
    const id = theirs.body.id
    for (const [method, path, body] of [
      ['GET', '', undefined],
      ['PUT', '', { subscriptionTemplateId: 'x' }],
      ['POST', '/hold', { holdUntil: '2099-01-01' }],
      ['POST', '/resume', undefined],
      ['POST', '/cancel', {}],
    ] as const) {
      expect((await t.request(method, `/club-membership/${id}${path}`, { body })).status).toBe(404)
    }
    const crossed = await t.request('POST', '/club-membership', {
      body: { customerId: theirCustomer.id, clubId: ctx.vars.club.id, orderDeliveryMethod: 'Pickup' },
    })
    expect(crossed.status).toBe(400)
    expect((await t.request('GET', '/club-membership')).body.total).toBe(0)
    expect(
      (await t.request('GET', `/club-membership/${id}`, { as: other.owner, tenant: other })).body.status,
    ).toBe('Active')
  })
})
