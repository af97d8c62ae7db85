// Off-premise orders in the service app: quotes at creation, refusals, and the fulfilment flow
// (staging, pickup, curbside, delivery dispatch) with guest notifications.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { readyOrder } from '../../../src/modules/off-premise/fulfilment'
import { localTime } from '../../../src/modules/off-premise/hours'
import {
  CLAIM_TIMEOUT_MS,
  nextNotificationWork,
  sendPendingNotifications,
} from '../../../src/modules/off-premise/notifications'
import { weekdays } from '../../../src/modules/off-premise/schema'
import { systemActor } from '../../../src/platform/foundation/actor'
import { MessageSendError } from '../../../src/platform/messaging/sender'
import { countRows, createTestApp, type TestApp } from '../../harness'

const water = { lineType: 'open_item', title: 'Water', unitPrice: 300, openItemScope: 'food' }
const guest = { firstName: 'Ana', lastName: 'Lee', phone: '+15550100', email: 'ana@example.test' }

describe('off-premise orders', () => {
  let t: TestApp
  beforeEach(async () => {
    t = await createTestApp()
  })
  afterEach(() => t.close())

  const settings = (body: unknown) =>
    t.request('PUT', `/shipping/off-premise/settings?locationId=${t.tenant.locationId}`, { body })
  const create = (body: Record<string, unknown>) =>
    t.request('POST', '/order', { body: { locationId: t.tenant.locationId, lineItems: [water], ...body } })
  const act = (id: string, step: string, body: unknown = {}, as = t.tenant.staff) =>
    t.request('POST', `/order/${id}/off-premise/${step}`, { body, as })
  const submitted = async (body: Record<string, unknown>) => {
    const order = await create(body)
    expect(order.status).toBe(201)
    expect((await t.request('POST', `/order/${order.body.id}/submit`)).status).toBe(200)
    return order.body
  }
  const otherDay = () => {
    const today = localTime(new Date(), 'America/Los_Angeles').day
    return weekdays[(weekdays.indexOf(today) + 3) % 7]!
  }

  test('a takeout order gets its quote from the location’s settings; dine-in orders have none', async () => {
    const res = await create({ fulfillmentMode: 'takeout', offPremise: { customer: guest } })
    expect(res.status).toBe(201)
    const op = res.body.offPremise
    expect(op.channel).toEqual({ kind: 'first_party', provider: null, channelId: null })
    expect(op.customer).toEqual({ customerId: null, ...guest })
    expect(op.quote).toMatchObject({
      strategy: 'manual',
      quoteTimeApplies: true,
      scheduledFor: null,
      takeoutQuoteMinutes: 20,
      throttlingAppliedMinutes: 0,
      minimumLeadTimeSatisfied: true,
      withinConfiguredOrderingHours: true,
      quoteExemptionReason: null,
    })
    expect(Date.parse(op.quote.promisedFulfillmentAt) - Date.parse(op.quote.quotedAt)).toBe(20 * 60_000)
    expect(op.staging.state).toBe('pending')
    expect(op.pickup).toMatchObject({ kind: 'standard', state: 'waiting', curbside: null })
    expect(op.delivery).toBeNull()
    expect(op.guestMessaging).toMatchObject({ enabled: true, preferredChannel: 'sms', notifications: [] })

    const dineIn = await create({})
    expect(dineIn.body.offPremise).toBeNull()
    expect((await create({ fulfillmentMode: 'dine_in', offPremise: {} })).status).toBe(400)
    expect((await create({ fulfillmentMode: 'takeout', offPremise: { delivery: {} } })).status).toBe(400)

    const list = await t.request('GET', '/order')
    expect(list.body.orders.map((o: any) => o.offPremise?.pickup?.kind ?? null)).toEqual([null, 'standard'])
  })

  test('a customer fills the guest; a delivery address must be theirs', async () => {
    const customer = (
      await t.request('POST', '/customers', {
        body: { firstName: 'Bo', lastName: 'Ng', email: 'bo@example.test', phone: '+15550111' },
      })
    ).body
    await settings({ firstPartyDeliveryEnabled: true })
    const res = await create({ fulfillmentMode: 'takeout', customerId: customer.id })
    expect(res.body.offPremise.customer).toEqual({
      customerId: customer.id,
      firstName: 'Bo',
      lastName: 'Ng',
      phone: '+15550111',
      email: 'bo@example.test',
    })
    const dup = (
      await t.request('POST', '/customers', {
        body: { firstName: 'B', lastName: 'N', email: 'bn@example.test' },
      })
    ).body
    const forDup = (
      await create({ fulfillmentMode: 'takeout', offPremise: { customer: { customerId: dup.id } } })
    ).body
    expect(forDup.offPremise.customer.customerId).toBe(dup.id)
    const merged = await t.request('POST', '/customers/merge', {
      body: { primaryCustomerId: customer.id, sourceCustomerIds: [dup.id], confirmation: 'MERGE' },
    })
    expect(merged.status).toBe(200)
    expect((await t.request('GET', `/order/${forDup.id}`)).body.offPremise.customer.customerId).toBe(
      customer.id,
    )
    const viaAlias = await create({
      fulfillmentMode: 'takeout',
      offPremise: { customer: { customerId: dup.id } },
    })
    expect(viaAlias.body.offPremise.customer).toMatchObject({ customerId: customer.id, firstName: 'Bo' })
    const wrongAddress = await create({
      fulfillmentMode: 'delivery',
      customerId: customer.id,
      offPremise: { delivery: { addressId: 'nope' } },
    })
    expect(wrongAddress.status).toBe(400)
    expect(wrongAddress.body.errors[0].path).toBe('body/offPremise/delivery/addressId')
  })

  test('refusals: outside ordering hours, first-party delivery off, lead time; nothing is written', async () => {
    await settings({
      onlineOrderingHours: { takeoutThirdParty: [{ day: otherDay(), startTime: '00:00', endTime: '24:00' }] },
    })
    const closed = await create({ fulfillmentMode: 'takeout' })
    expect(closed.status).toBe(409)
    expect(closed.body).toMatchObject({
      code: 'conflict',
      reason: 'outside_ordering_hours',
      timeZone: 'America/Los_Angeles',
    })
    expect(closed.body.detail).toContain('outside the configured ordering hours')

    const delivery = await create({ fulfillmentMode: 'delivery' })
    expect(delivery.body).toMatchObject({ status: 409, reason: 'first_party_delivery_disabled' })

    await settings({ onlineOrderingHours: { takeoutThirdParty: [] }, leadTimeHours: 2 })
    const soon = await create({
      fulfillmentMode: 'pickup',
      offPremise: { scheduledFor: new Date(Date.now() + 60 * 60_000).toISOString() },
    })
    expect(soon.body).toMatchObject({ status: 409, reason: 'minimum_lead_time_not_met', leadTimeHours: 2 })
    const past = await create({
      fulfillmentMode: 'pickup',
      offPremise: { scheduledFor: new Date(Date.now() - 60_000).toISOString() },
    })
    expect(past.status).toBe(400)
    expect(countRows(t.tenant.db, 'orders')).toBe(0)
    expect(countRows(t.tenant.db, 'order_off_premise')).toBe(0)

    const later = new Date(Date.now() + 3 * 3_600_000).toISOString()
    const scheduled = await create({ fulfillmentMode: 'pickup', offPremise: { scheduledFor: later } })
    expect(scheduled.status).toBe(201)
    expect(scheduled.body.orderNumber).toBe(1) // refused creates gave their numbers back
    expect(scheduled.body.offPremise.quote).toMatchObject({
      quoteTimeApplies: false,
      scheduledFor: later,
      promisedFulfillmentAt: later,
      leadTimeHours: 2,
      minimumLeadTimeSatisfied: true,
    })
  })

  test('third-party channels: off or snoozed refuse; quotes are exempt', async () => {
    const channel = (await settings({ thirdPartyChannels: [{ title: 'DoorDash', provider: 'doordash' }] }))
      .body.thirdPartyChannels[0]
    const order = (body: Record<string, unknown> = {}) =>
      create({
        fulfillmentMode: 'takeout',
        source: 'third_party',
        offPremise: { channel: { kind: 'third_party', channelId: channel.id }, ...body },
      })
    const control = (body: unknown) =>
      t.request(
        'POST',
        `/shipping/off-premise/channels/${channel.id}/control?locationId=${t.tenant.locationId}`,
        { body },
      )

    const ok = await order()
    expect(ok.status).toBe(201)
    expect(ok.body.offPremise.channel).toEqual({
      kind: 'third_party',
      provider: 'doordash',
      channelId: channel.id,
    })
    expect(ok.body.offPremise.quote).toMatchObject({
      quoteTimeApplies: false,
      quoteExemptionReason: 'third_party_channel',
    })

    await control({ action: 'ordering_off' })
    expect((await order()).body).toMatchObject({
      status: 409,
      reason: 'channel_not_ordering',
      channelStatus: 'ordering_off',
    })
    const until = new Date(Date.now() + 20 * 60_000).toISOString()
    await control({ action: 'snooze', snoozeUntil: until })
    expect((await order()).body).toMatchObject({ status: 409, channelStatus: 'snoozed', snoozeUntil: until })
    await control({ action: 'ordering_on' })
    await control({ action: 'ordering_off', fulfillmentMode: 'takeout' })
    expect((await order()).body).toMatchObject({ status: 409, scope: 'mode' })

    expect(
      (await create({ fulfillmentMode: 'takeout', offPremise: { channel: { kind: 'third_party' } } })).status,
    ).toBe(400)
    expect(
      (
        await create({
          fulfillmentMode: 'takeout',
          offPremise: { channel: { kind: 'third_party', channelId: 'nope' } },
        })
      ).status,
    ).toBe(400)
  })

  test('throttled: the second ASAP takeout is paced after the first', async () => {
    await settings({ quoteTimeStrategy: 'throttled', takeoutQuoteMinutes: 10, takeoutThrottlingMinutes: 15 })
    const first = (await create({ fulfillmentMode: 'takeout' })).body.offPremise.quote
    const second = (await create({ fulfillmentMode: 'curbside' })).body.offPremise.quote
    expect(first.throttlingAppliedMinutes).toBe(0)
    expect(Date.parse(second.promisedFulfillmentAt)).toBeGreaterThanOrEqual(
      Date.parse(first.promisedFulfillmentAt) + 15 * 60_000,
    )
    expect(second.throttlingAppliedMinutes).toBeGreaterThanOrEqual(14)
    expect(second.throttlingAppliedMinutes).toBeLessThanOrEqual(15)
    // Concurrent creates are paced too: each quote reads the previous promise in its write transaction.
    const burst = await Promise.all([1, 2, 3].map(() => create({ fulfillmentMode: 'takeout' })))
    const promised = [second, ...burst.map((r) => r.body.offPremise.quote)]
      .map((q) => Date.parse(q.promisedFulfillmentAt))
      .sort((a, b) => a - b)
    for (let i = 1; i < promised.length; i++)
      expect(promised[i]! - promised[i - 1]!).toBeGreaterThanOrEqual(15 * 60_000)
  })

  test('pickup flow: pending → staged → ready → arrived → completed; every wrong move is 409', async () => {
    const draft = (
      await create({
        fulfillmentMode: 'curbside',
        offPremise: { customer: guest, pickup: { curbside: { vehicleColor: 'red' } } },
      })
    ).body
    const early = await act(draft.id, 'stage')
    expect(early.status).toBe(409)
    expect(early.body).toMatchObject({ currentStatus: 'draft', stagingState: 'pending' })
    expect((await t.request('POST', `/order/${draft.id}/submit`)).status).toBe(200)

    const notStaged = await act(draft.id, 'ready')
    expect(notStaged.body).toMatchObject({ status: 409, stagingState: 'pending' })
    expect((await act(draft.id, 'complete')).body).toMatchObject({ status: 409, pickupState: 'waiting' })

    const staged = await act(draft.id, 'stage', { stagingArea: 'Shelf A', stagingSlot: '3' })
    expect(staged.status).toBe(200)
    expect(staged.body.offPremise.staging).toMatchObject({
      state: 'staged',
      stagingArea: 'Shelf A',
      stagingSlot: '3',
    })
    expect(staged.body.offPremise.pickup.stagedAt).toBe(staged.body.offPremise.staging.stagedAt)
    expect((await act(draft.id, 'stage')).body).toMatchObject({ status: 409, stagingState: 'staged' })
    expect((await act(draft.id, 'dispatch', { courierName: 'X' })).status).toBe(409)
    expect((await act(draft.id, 'deliver')).status).toBe(409)

    const ready = await act(draft.id, 'ready')
    expect(ready.status).toBe(200)
    const op = ready.body.offPremise
    expect(op.staging).toMatchObject({
      state: 'ready',
      readyBy: { staffUserId: t.tenant.staff.id, displayName: 'Test staff' },
    })
    expect(op.readyAt).toEqual(expect.any(String))
    expect(op.pickup.state).toBe('ready')
    expect(op.guestMessaging.notifications).toEqual([
      expect.objectContaining({
        event: 'order_ready',
        template: 'order_ready',
        channel: 'sms',
        status: 'sent',
        recipient: '+15550100',
        body: `Hi Ana, your order #${draft.orderNumber} is ready for pickup.`,
        sentAt: expect.any(String),
        failureReason: null,
      }),
    ])
    expect(op.guestMessaging.lastUpdatedAt).toEqual(expect.any(String))
    const recorded = t.tenant.db.$client
      .query('SELECT channel, destination, category FROM outbound_messages')
      .all()
    expect(recorded).toEqual([
      { channel: 'sms', destination: '+15550100', category: 'off_premise_order_ready' },
    ])
    expect((await act(draft.id, 'ready')).body).toMatchObject({ status: 409, stagingState: 'ready' })

    const arrived = await act(draft.id, 'arrive', { parkingSpot: '4', arrivalNote: 'Blue sign' })
    expect(arrived.body.offPremise.pickup).toMatchObject({
      state: 'arrived',
      arrivedAt: expect.any(String),
      curbside: { vehicleColor: 'red', parkingSpot: '4', arrivalNote: 'Blue sign' },
    })
    expect((await act(draft.id, 'arrive')).body).toMatchObject({ status: 409, pickupState: 'arrived' })
    const done = await act(draft.id, 'complete')
    expect(done.body.offPremise.pickup).toMatchObject({ state: 'completed', completedAt: expect.any(String) })
    expect((await act(draft.id, 'complete')).body).toMatchObject({ status: 409, pickupState: 'completed' })
    expect((await act(draft.id, 'arrive')).body).toMatchObject({ status: 409, pickupState: 'completed' })

    const events = t.tenant.db.$client
      .query(
        "SELECT action FROM outbox_events WHERE object = 'order' AND action LIKE 'off_premise%' ORDER BY seq",
      )
      .all()
      .map((r: any) => r.action)
    expect(events).toEqual([
      'off_premise_staged',
      'off_premise_ready',
      'off_premise_arrived',
      'off_premise_picked_up',
    ])
    const audits = t.tenant.db.$client
      .query("SELECT action FROM audit_entries WHERE action LIKE 'order.off_premise.%' ORDER BY rowid")
      .all()
    expect(audits).toHaveLength(4)
  })

  test('arrival may come before the order is ready; the guest is not told twice', async () => {
    const order = await submitted({ fulfillmentMode: 'pickup', offPremise: { customer: guest } })
    const arrived = await act(order.id, 'arrive', {})
    expect(arrived.body.offPremise.pickup).toMatchObject({ state: 'arrived', curbside: null })
    await act(order.id, 'stage')
    const ready = await act(order.id, 'ready')
    expect(ready.body.offPremise.pickup.state).toBe('arrived')
    expect((await act(order.id, 'complete')).body.offPremise.pickup.state).toBe('completed')
  })

  test('delivery flow: dispatch to a staff driver or a courier, then delivered', async () => {
    await settings({ firstPartyDeliveryEnabled: true })
    const order = await submitted({
      fulfillmentMode: 'delivery',
      offPremise: { customer: guest, delivery: { addressLabel: '1 Main St', instructions: 'Ring twice' } },
    })
    expect(order.offPremise.delivery).toMatchObject({
      state: 'pending',
      addressLabel: '1 Main St',
      instructions: 'Ring twice',
      dispatch: { assignmentMode: 'unassigned' },
    })
    expect(order.offPremise.pickup).toBeNull()

    expect((await act(order.id, 'dispatch', { courierName: 'Sam' })).body).toMatchObject({
      status: 409,
      deliveryState: 'pending',
    })
    expect((await act(order.id, 'arrive')).status).toBe(409)
    await act(order.id, 'stage')
    const ready = await act(order.id, 'ready')
    expect(ready.body.offPremise.delivery.state).toBe('ready_for_dispatch')
    expect(ready.body.offPremise.guestMessaging.notifications).toEqual([])
    expect((await act(order.id, 'deliver')).body).toMatchObject({
      status: 409,
      deliveryState: 'ready_for_dispatch',
    })
    expect((await act(order.id, 'complete')).status).toBe(409)

    expect((await act(order.id, 'dispatch', {})).status).toBe(400)
    expect(
      (await act(order.id, 'dispatch', { courierName: 'Sam', driverStaffUserId: t.tenant.staff.id })).status,
    ).toBe(400)
    expect((await act(order.id, 'dispatch', { driverStaffUserId: 'nope' })).status).toBe(400)
    await settings({ dispatchAssignmentMode: 'couriers' })
    expect((await act(order.id, 'dispatch', { driverStaffUserId: t.tenant.staff.id })).body).toMatchObject({
      status: 409,
      dispatchAssignmentMode: 'couriers',
    })
    await settings({ dispatchAssignmentMode: 'manual' })

    const dispatched = await act(order.id, 'dispatch', {
      driverStaffUserId: t.tenant.staff.id,
      vehicleLabel: 'Van 2',
      dispatchNote: 'Fragile',
    })
    expect(dispatched.status).toBe(200)
    expect(dispatched.body.offPremise.delivery).toMatchObject({
      state: 'dispatched',
      dispatchedAt: expect.any(String),
      dispatchNote: 'Fragile',
      dispatch: {
        assignmentMode: 'staff_driver',
        assignedDriver: { staffUserId: t.tenant.staff.id, displayName: 'Test staff' },
        dispatchedBy: { staffUserId: t.tenant.staff.id },
        vehicleLabel: 'Van 2',
        courierName: null,
      },
    })
    expect((await act(order.id, 'dispatch', { courierName: 'Sam' })).body).toMatchObject({
      status: 409,
      deliveryState: 'dispatched',
    })
    const delivered = await act(order.id, 'deliver', { deliveryNotes: 'Left at door' })
    expect(delivered.body.offPremise.delivery).toMatchObject({
      state: 'delivered',
      deliveredAt: expect.any(String),
      deliveryNotes: 'Left at door',
    })
    expect(
      delivered.body.offPremise.guestMessaging.notifications.map((n: any) => [n.event, n.status]),
    ).toEqual([
      ['out_for_delivery', 'sent'],
      ['order_delivered', 'sent'],
    ])
    expect((await act(order.id, 'deliver')).body).toMatchObject({ status: 409, deliveryState: 'delivered' })
  })

  test('courier dispatch', async () => {
    await settings({ firstPartyDeliveryEnabled: true, dispatchAssignmentMode: 'couriers' })
    const order = await submitted({ fulfillmentMode: 'delivery' })
    await act(order.id, 'stage')
    await act(order.id, 'ready')
    const res = await act(order.id, 'dispatch', { courierName: 'Sam', courierPhone: '+15550199' })
    expect(res.body.offPremise.delivery.dispatch).toMatchObject({
      assignmentMode: 'courier',
      assignedDriver: null,
      courierName: 'Sam',
      courierPhone: '+15550199',
    })
    // No phone for the guest: the message is recorded as skipped.
    expect(res.body.offPremise.guestMessaging.notifications).toEqual([
      expect.objectContaining({
        event: 'out_for_delivery',
        status: 'skipped',
        recipient: null,
        failureReason: 'no phone number for the guest',
      }),
    ])
  })

  test('batches: need batchReadyEnabled; batch-ready makes every staged order of the batch ready', async () => {
    const a = await submitted({
      fulfillmentMode: 'takeout',
      offPremise: { customer: guest, guestMessaging: { preferredChannel: 'email' } },
    })
    const b = await submitted({
      fulfillmentMode: 'takeout',
      offPremise: { customer: { phone: '+15550122' } },
    })
    const c = await submitted({ fulfillmentMode: 'takeout' })
    expect((await act(a.id, 'stage', { batchId: 'B1' })).body).toMatchObject({ status: 409 })
    expect((await act(a.id, 'batch-ready')).status).toBe(409)
    await settings({ batchReadyEnabled: true })
    expect((await act(a.id, 'stage', { batchId: 'B1', batchLabel: 'Catering' })).status).toBe(200)
    expect((await act(b.id, 'stage', { batchId: 'B1' })).status).toBe(200)
    expect((await act(c.id, 'stage')).status).toBe(200)
    expect((await act(c.id, 'batch-ready')).body).toMatchObject({ status: 409, stagingState: 'staged' })

    const res = await act(a.id, 'batch-ready')
    expect(res.status).toBe(200)
    const batchReadyAt = res.body.offPremise.staging.batchReadyAt
    expect(batchReadyAt).toEqual(expect.any(String))
    expect(res.body.offPremise.guestMessaging.notifications).toEqual([
      expect.objectContaining({
        event: 'batch_ready',
        template: 'order_ready',
        channel: 'email',
        recipient: 'ana@example.test',
        subject: 'Your order is ready',
        status: 'sent',
      }),
    ])
    const other = (await t.request('GET', `/order/${b.id}`)).body.offPremise
    expect(other.staging).toMatchObject({ state: 'ready', batchReadyAt })
    expect(other.guestMessaging.notifications.map((n: any) => [n.event, n.status])).toEqual([
      ['batch_ready', 'sent'],
    ])
    expect((await t.request('GET', `/order/${c.id}`)).body.offPremise.staging.state).toBe('staged')
    expect((await act(a.id, 'batch-ready')).status).toBe(409)
  })

  test('guest messaging off (location or order) queues nothing; a failing sender is recorded', async () => {
    const optedOut = await submitted({
      fulfillmentMode: 'takeout',
      offPremise: { customer: guest, guestMessaging: { enabled: false } },
    })
    await act(optedOut.id, 'stage')
    expect((await act(optedOut.id, 'ready')).body.offPremise.guestMessaging.notifications).toEqual([])
    await settings({ guestMessagingEnabled: false })
    const quiet = await submitted({ fulfillmentMode: 'takeout', offPremise: { customer: guest } })
    await act(quiet.id, 'stage')
    expect((await act(quiet.id, 'ready')).body.offPremise.guestMessaging.notifications).toEqual([])

    // A notification queued but not yet sent (the request ended first) is sent by the job;
    // a sender that refuses is recorded as failed with its reason.
    await settings({ guestMessagingEnabled: true })
    const order = await submitted({ fulfillmentMode: 'takeout', offPremise: { customer: guest } })
    await act(order.id, 'stage')
    readyOrder(t.tenant.db, systemActor(t.tenant.id, 'test'), order.id)
    const pending = (await t.request('GET', `/order/${order.id}`)).body.offPremise.guestMessaging
      .notifications
    expect(pending.map((n: any) => n.status)).toEqual(['pending'])
    // The notify job's next work: now while one waits unclaimed, the claim's timeout once claimed.
    expect(nextNotificationWork(t.tenant.db, 1234)).toBe(1234)
    const claimedAt = '2030-01-01T00:00:00.000Z'
    t.tenant.db.$client.run('UPDATE off_premise_notifications SET claimed_at = ?', [claimedAt])
    expect(nextNotificationWork(t.tenant.db)).toBe(Date.parse(claimedAt) + CLAIM_TIMEOUT_MS)
    t.tenant.db.$client.run('UPDATE off_premise_notifications SET claimed_at = NULL')
    const refusing = {
      provider: 'test',
      send: async () => {
        throw new MessageSendError('test', 'carrier unreachable')
      },
    }
    const notifier = systemActor(t.tenant.id, 'off-premise-notify')
    expect(await sendPendingNotifications(t.tenant.db, refusing, notifier)).toEqual({ sent: 0, failed: 1 })
    // The outcome is audited on the order, without the recipient.
    const audited = t.tenant.db.all<{ action: string; subject: string; metadata: string }>(
      sql`SELECT action, subject, metadata FROM audit_entries WHERE entity_id = ${order.id} AND action LIKE 'order.guest_message_%'`,
    )
    expect(audited).toEqual([
      {
        action: 'order.guest_message_failed',
        subject: 'system:off-premise-notify',
        metadata: expect.any(String),
      },
    ])
    expect(JSON.parse(audited[0]!.metadata).notification).toMatchObject({
      channel: expect.any(String),
      failureReason: 'carrier unreachable',
    })
    expect(audited[0]!.metadata).not.toContain(guest.email)
    const failed = (await t.request('GET', `/order/${order.id}`)).body.offPremise.guestMessaging.notifications
    expect(failed).toEqual([
      expect.objectContaining({ status: 'failed', failureReason: 'carrier unreachable', sentAt: null }),
    ])
    expect(await sendPendingNotifications(t.tenant.db, refusing, notifier)).toEqual({ sent: 0, failed: 0 })
    expect(nextNotificationWork(t.tenant.db)).toBeNull()
  })

  test('the notify job sends what a request left pending', async () => {
    const order = await submitted({ fulfillmentMode: 'takeout', offPremise: { customer: guest } })
    await act(order.id, 'stage')
    readyOrder(t.tenant.db, systemActor(t.tenant.id, 'test'), order.id)
    await t.platform.jobs.runNow('off-premise.notify')
    const sent = (await t.request('GET', `/order/${order.id}`)).body.offPremise.guestMessaging.notifications
    expect(sent.map((n: any) => n.status)).toEqual(['sent'])
    expect(countRows(t.tenant.db, 'outbound_messages')).toBe(1)
  })

  test('voided and dine-in orders have no flow; permission; another tenant is 404', async () => {
    const order = await submitted({ fulfillmentMode: 'takeout' })
    expect((await act(order.id, 'stage', {}, t.tenant.readOnly)).status).toBe(403)
    expect((await act(order.id, 'stage', { colour: 1 })).status).toBe(400)
    const other = await t.addTenant('other')
    expect(
      (
        await t.request('POST', `/order/${order.id}/off-premise/stage`, {
          body: {},
          as: other.owner,
          tenant: other,
        })
      ).status,
    ).toBe(404)
    expect((await act('nope', 'stage')).status).toBe(404)

    const dineIn = await submitted({})
    expect((await act(dineIn.id, 'stage')).body).toMatchObject({ status: 409, fulfillmentMode: 'dine_in' })
    await t.request('POST', `/order/${order.id}/void`, { body: { voidReasonName: 'Guest left' } })
    expect((await act(order.id, 'stage')).body).toMatchObject({ status: 409, currentStatus: 'voided' })
  })

  test('changing the fulfillment mode: into takeout quotes now; takeout to delivery is 409', async () => {
    const order = (await create({})).body
    const takeout = await t.request('PUT', `/order/${order.id}`, { body: { fulfillmentMode: 'takeout' } })
    expect(takeout.status).toBe(200)
    expect(takeout.body.offPremise.quote.takeoutQuoteMinutes).toBe(20)
    const curbside = await t.request('PUT', `/order/${order.id}`, { body: { fulfillmentMode: 'curbside' } })
    expect(curbside.body.offPremise.pickup).toMatchObject({
      kind: 'curbside',
      curbside: { vehicleColor: null },
    })
    const delivery = await t.request('PUT', `/order/${order.id}`, { body: { fulfillmentMode: 'delivery' } })
    expect(delivery.body).toMatchObject({ status: 409, fulfillmentMode: 'curbside' })
    expect(
      (await t.request('PUT', `/order/${order.id}`, { body: { fulfillmentMode: 'dine_in' } })).status,
    ).toBe(409)
  })
})
