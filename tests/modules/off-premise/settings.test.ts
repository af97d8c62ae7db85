// Off-premise settings and channel control over HTTP, and snooze expiry.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { controlChannel, earliestSnoozeEnd } from '../../../src/modules/off-premise/settings'
import { systemActor } from '../../../src/platform/foundation/actor'
import { countRows, createTestApp, runScenarios, type ScenarioContext, type TestApp } from '../../harness'

const url = (ctx: ScenarioContext, path = '/settings') =>
  `/shipping/off-premise${path}?locationId=${ctx.t.tenant.locationId}`

const doorDash = { title: 'DoorDash', provider: 'doordash' }

describe('off-premise settings: scenarios', () => {
  runScenarios([
    {
      name: 'a location that never saved its settings reads the defaults, and the read stores nothing',
      method: 'GET',
      url: (ctx) => url(ctx),
      as: (ctx) => ctx.t.tenant.readOnly,
      status: 200,
      expectBody: {
        id: null,
        locationId: expect.any(String),
        createdAt: null,
        updatedAt: null,
        quoteTimeStrategy: 'manual',
        takeoutQuoteMinutes: 20,
        deliveryQuoteMinutes: 45,
        takeoutThrottlingMinutes: 0,
        leadTimeHours: 0,
        firstPartyDeliveryEnabled: false,
        allowScheduledOrders: true,
        guestMessagingEnabled: true,
        dispatchAssignmentMode: 'manual',
        onlineOrderingHours: { takeoutThirdParty: [], firstPartyDelivery: [] },
        thirdPartyChannels: [],
      },
      check: (_res, ctx) => {
        expect(countRows(ctx.t.tenant.db, 'off_premise_settings')).toBe(0)
        const audited = ctx.t.tenant.db.$client
          .query("SELECT count(*) AS n FROM audit_entries WHERE action LIKE 'off_premise.%'")
          .get()
        expect(audited).toEqual({ n: 0 })
      },
    },
    {
      name: 'locationId is required',
      method: 'GET',
      url: '/shipping/off-premise/settings',
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'an unknown location is 404',
      method: 'GET',
      url: '/shipping/off-premise/settings?locationId=nope',
      status: 404,
      code: 'not_found',
      check: (_res, ctx) => expect(countRows(ctx.t.tenant.db, 'off_premise_settings')).toBe(0),
    },
    {
      name: 'PUT changes what is sent and validates minutes',
      method: 'PUT',
      url: (ctx) => url(ctx),
      body: { takeoutQuoteMinutes: -1 },
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'minutes as a string are 400',
      method: 'PUT',
      url: (ctx) => url(ctx),
      body: { takeoutQuoteMinutes: '15' },
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'an unknown strategy or weekday is 400',
      method: 'PUT',
      url: (ctx) => url(ctx),
      body: {
        onlineOrderingHours: { takeoutThirdParty: [{ day: 'monday', startTime: '10:00', endTime: '12:00' }] },
      },
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'a window with equal times or an impossible time is 400 naming it, and nothing is written',
      method: 'PUT',
      url: (ctx) => url(ctx),
      body: {
        takeoutQuoteMinutes: 30,
        onlineOrderingHours: {
          firstPartyDelivery: [
            { day: 'mon', startTime: '10:00', endTime: '10:00' },
            { day: 'tue', startTime: '10:00', endTime: '25:00' },
          ],
        },
      },
      status: 400,
      code: 'validation_failed',
      check: (res, ctx) => {
        expect(res.body.errors.map((e: any) => e.path)).toEqual([
          'body/onlineOrderingHours/firstPartyDelivery/0/endTime',
          'body/onlineOrderingHours/firstPartyDelivery/1/endTime',
        ])
        expect(countRows(ctx.t.tenant.db, 'off_premise_settings')).toBe(0)
      },
    },
    {
      name: 'the staff role may not change settings (403 without shipping:write)',
      method: 'PUT',
      url: (ctx) => url(ctx),
      as: (ctx) => ctx.t.tenant.staff,
      body: { takeoutQuoteMinutes: 10 },
      status: 403,
      code: 'forbidden',
    },
    {
      name: 'control of an unknown channel is 404',
      method: 'POST',
      url: (ctx) => url(ctx, '/channels/nope/control'),
      body: { action: 'ordering_off' },
      status: 404,
      code: 'not_found',
    },
    {
      name: 'control without action is 400',
      method: 'POST',
      url: (ctx) => url(ctx, '/channels/nope/control'),
      body: {},
      status: 400,
      code: 'validation_failed',
    },
  ])
})

describe('off-premise settings: behaviour', () => {
  let t: TestApp
  beforeEach(async () => {
    t = await createTestApp()
  })
  afterEach(() => t.close())

  const put = (body: unknown) =>
    t.request('PUT', `/shipping/off-premise/settings?locationId=${t.tenant.locationId}`, { body })
  const control = (channelId: string, body: unknown) =>
    t.request(
      'POST',
      `/shipping/off-premise/channels/${channelId}/control?locationId=${t.tenant.locationId}`,
      { body },
    )

  test('PUT is partial, replaces hour lists and channels, keeps channel ids; audit and event', async () => {
    const first = await put({
      quoteTimeStrategy: 'throttled',
      takeoutThrottlingMinutes: 10,
      leadTimeHours: 2,
      onlineOrderingHours: {
        takeoutThirdParty: [{ day: 'fri', startTime: '22:00', endTime: '02:00' }],
        firstPartyDelivery: [{ day: 'sat', startTime: '11:00', endTime: '24:00' }],
      },
      thirdPartyChannels: [
        doorDash,
        { title: 'Uber Eats', provider: 'ubereats', enabledFulfillmentModes: ['delivery'] },
      ],
    })
    expect(first.status).toBe(200)
    // The first save stores the settings: from then on they have an id and timestamps.
    expect(first.body).toMatchObject({ id: expect.any(String), createdAt: expect.any(String) })
    const read = await t.request('GET', `/shipping/off-premise/settings?locationId=${t.tenant.locationId}`)
    expect(read.body).toEqual(first.body)
    expect(first.body).toMatchObject({
      quoteTimeStrategy: 'throttled',
      takeoutQuoteMinutes: 20,
      leadTimeHours: 2,
    })
    const [dd, ue] = first.body.thirdPartyChannels
    expect(dd).toMatchObject({
      title: 'DoorDash',
      status: 'ordering_on',
      snoozeUntil: null,
      enabledFulfillmentModes: ['takeout', 'delivery'],
      acceptsScheduledOrders: false,
      autoAcceptOrders: true,
      fulfillmentControls: [
        { fulfillmentMode: 'takeout', status: 'ordering_on', snoozeUntil: null },
        { fulfillmentMode: 'delivery', status: 'ordering_on', snoozeUntil: null },
      ],
    })
    expect(ue.fulfillmentControls).toEqual([
      { fulfillmentMode: 'delivery', status: 'ordering_on', snoozeUntil: null },
    ])

    await control(dd.id, { action: 'ordering_off' })
    const second = await put({
      onlineOrderingHours: { takeoutThirdParty: [] },
      thirdPartyChannels: [{ ...doorDash, id: dd.id, acceptsScheduledOrders: true }],
    })
    expect(second.body.onlineOrderingHours).toEqual({
      takeoutThirdParty: [],
      firstPartyDelivery: [{ day: 'sat', startTime: '11:00', endTime: '24:00' }],
    })
    expect(second.body.thirdPartyChannels).toHaveLength(1)
    expect(second.body.thirdPartyChannels[0]).toMatchObject({
      id: dd.id,
      status: 'ordering_off',
      acceptsScheduledOrders: true,
    })

    const unknown = await put({
      thirdPartyChannels: [{ ...doorDash, id: '0190a5b2-0000-7000-8000-000000000000' }],
    })
    expect(unknown.status).toBe(400)

    const unchanged = await put({})
    expect(unchanged.body.updatedAt).toBe(second.body.updatedAt)
    const actions = t.tenant.db.$client
      .query("SELECT action FROM audit_entries WHERE action LIKE 'off_premise.%' ORDER BY rowid")
      .all()
      .map((r: any) => r.action)
    expect(actions).toEqual([
      'off_premise.settings.create',
      'off_premise.settings.update',
      'off_premise.channel.control',
      'off_premise.settings.update',
    ])
  })

  test('channel control: off, on, snooze per mode; bad snoozes are 400', async () => {
    const dd = (await put({ thirdPartyChannels: [doorDash] })).body.thirdPartyChannels[0]
    const until = new Date(Date.now() + 30 * 60_000).toISOString()
    const snoozed = await control(dd.id, {
      action: 'snooze',
      snoozeUntil: until,
      fulfillmentMode: 'delivery',
    })
    expect(snoozed.status).toBe(200)
    expect(snoozed.body.thirdPartyChannels[0]).toMatchObject({
      status: 'ordering_on',
      fulfillmentControls: [
        { fulfillmentMode: 'takeout', status: 'ordering_on' },
        { fulfillmentMode: 'delivery', status: 'snoozed', snoozeUntil: until },
      ],
    })
    const off = await control(dd.id, { action: 'ordering_off' })
    expect(off.body.thirdPartyChannels[0].status).toBe('ordering_off')
    const on = await control(dd.id, { action: 'ordering_on' })
    expect(on.body.thirdPartyChannels[0].status).toBe('ordering_on')
    expect(on.body.thirdPartyChannels[0].fulfillmentControls.map((c: any) => c.status)).toEqual([
      'ordering_on',
      'ordering_on',
    ])

    for (const body of [
      { action: 'snooze' },
      { action: 'snooze', snoozeUntil: new Date(Date.now() - 1000).toISOString() },
      { action: 'snooze', snoozeUntil: new Date(Date.now() + 8 * 86_400_000).toISOString() },
      { action: 'ordering_off', snoozeUntil: until },
      { action: 'snooze', snoozeUntil: 'tomorrow' },
      { action: 'pause' },
    ])
      expect((await control(dd.id, body)).status).toBe(400)
    const takeoutOnly = (
      await put({ thirdPartyChannels: [{ ...doorDash, id: dd.id, enabledFulfillmentModes: ['takeout'] }] })
    ).body
    expect(takeoutOnly.thirdPartyChannels[0].fulfillmentControls).toHaveLength(1)
    expect((await control(dd.id, { action: 'ordering_off', fulfillmentMode: 'delivery' })).status).toBe(400)
  })

  test('a snooze that has ended reads ordering_on at once, and the job records it', async () => {
    const dd = (await put({ thirdPartyChannels: [doorDash] })).body.thirdPartyChannels[0]
    const past = new Date(Date.now() - 10 * 60_000)
    const until = new Date(past.getTime() + 5 * 60_000).toISOString()
    controlChannel(
      t.tenant.db,
      systemActor(t.tenant.id, 'test'),
      t.tenant.locationId,
      dd.id,
      { action: 'snooze', snoozeUntil: until },
      past,
    )
    const stored = () =>
      t.tenant.db.$client
        .query('SELECT status, snooze_until AS s, next_snooze_ends_at AS n FROM off_premise_channels')
        .get() as any
    expect(stored()).toEqual({ status: 'snoozed', s: until, n: until })
    expect(earliestSnoozeEnd(t.tenant.db)).toBe(Date.parse(until))

    const read = await t.request('GET', `/shipping/off-premise/settings?locationId=${t.tenant.locationId}`)
    expect(read.body.thirdPartyChannels[0]).toMatchObject({ status: 'ordering_on', snoozeUntil: null })

    await t.platform.jobs.runNow('off-premise.snooze-expiry')
    expect(stored()).toEqual({ status: 'ordering_on', s: null, n: null })
    expect(earliestSnoozeEnd(t.tenant.db)).toBeNull()
    const ends = t.tenant.db.$client
      .query("SELECT subject FROM audit_entries WHERE action = 'off_premise.channel.snooze_end'")
      .all()
    expect(ends).toEqual([{ subject: 'system:off-premise-snooze' }])
    await t.platform.jobs.runNow('off-premise.snooze-expiry')
    expect(
      t.tenant.db.$client
        .query("SELECT count(*) AS n FROM audit_entries WHERE action = 'off_premise.channel.snooze_end'")
        .get(),
    ).toEqual({ n: 1 })
  })

  test('a future snooze stays snoozed through the job', async () => {
    const dd = (await put({ thirdPartyChannels: [doorDash] })).body.thirdPartyChannels[0]
    await control(dd.id, { action: 'snooze', snoozeUntil: new Date(Date.now() + 3_600_000).toISOString() })
    await t.platform.jobs.runNow('off-premise.snooze-expiry')
    const read = await t.request('GET', `/shipping/off-premise/settings?locationId=${t.tenant.locationId}`)
    expect(read.body.thirdPartyChannels[0].status).toBe('snoozed')
  })

  test("another tenant's location and channel are 404", async () => {
    const dd = (await put({ thirdPartyChannels: [doorDash] })).body.thirdPartyChannels[0]
    const other = await t.addTenant('other')
    const as = { as: other.owner, tenant: other }
    expect(
      (await t.request('GET', `/shipping/off-premise/settings?locationId=${t.tenant.locationId}`, as)).status,
    ).toBe(404)
    expect(
      (
        await t.request(
          'POST',
          `/shipping/off-premise/channels/${dd.id}/control?locationId=${other.locationId}`,
          { ...as, body: { action: 'ordering_off' } },
        )
      ).status,
    ).toBe(404)
  })
})
