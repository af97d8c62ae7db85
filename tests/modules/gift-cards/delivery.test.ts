// Scheduled delivery of gift cards through the pluggable sender; failures recorded and reported;
// the purchaser's "opened" notice.
import { afterEach, beforeEach, describe, expect, setSystemTime, test } from 'bun:test'
import {
  CLAIM_TIMEOUT_MS,
  deliverDueGiftCards,
  nextDeliveryWork,
} from '../../../src/modules/gift-cards/delivery'
import { systemActor } from '../../../src/platform/foundation/actor'
import {
  embeddedSender,
  MessageSendError,
  type MessageSender,
  type OutgoingMessage,
} from '../../../src/platform/messaging/sender'
import { createTestApp, type TestApp } from '../../harness'
import { issueCard } from './helpers'

const deliveryActor = (t: { tenant: { id: string } }) => systemActor(t.tenant.id, 'gift-card-delivery')

let t: TestApp
beforeEach(async () => {
  t = await createTestApp()
})
afterEach(() => {
  setSystemTime()
  t.close()
})

const failing = (reason: string): MessageSender & { tried: OutgoingMessage[] } => {
  const tried: OutgoingMessage[] = []
  return {
    provider: 'flaky-mail',
    tried,
    async send(_db, message) {
      tried.push(message)
      throw new MessageSendError('flaky-mail', reason)
    },
  }
}

const outbound = () =>
  t.tenant.db.$client
    .query('SELECT channel, destination, subject, body, category FROM outbound_messages')
    .all() as {
    channel: string
    destination: string
    subject: string
    body: string
    category: string
  }[]

const emailCard = (scheduledAt: string, extra: Record<string, unknown> = {}) =>
  issueCard(t, 5000, {
    body: {
      recipientName: 'Rosa',
      recipientEmail: 'rosa@example.test',
      fromName: 'Sam',
      giftMessage: 'Happy birthday!',
      deliveryChannel: 'email',
      deliveryScheduledAt: scheduledAt,
      ...extra,
    },
  })

describe('deliverDueGiftCards', () => {
  test('sends a card when due, through the embedded sender, once', async () => {
    const card = await emailCard('2030-05-01T09:00:00.000Z')
    expect(card.deliveryStatus).toBe('scheduled')
    // The delivery job's next work for this tenant: the scheduled time.
    expect(nextDeliveryWork(t.tenant.db)).toBe(Date.parse('2030-05-01T09:00:00.000Z'))
    const sender = embeddedSender()

    const early = await deliverDueGiftCards(
      t.tenant.db,
      sender,
      new Date('2030-05-01T08:59:59.999Z'),
      deliveryActor(t),
    )
    expect(early).toEqual({ attempted: 0, sent: 0, failed: 0 })

    const due = await deliverDueGiftCards(
      t.tenant.db,
      sender,
      new Date('2030-05-01T09:00:00.000Z'),
      deliveryActor(t),
    )
    expect(due).toEqual({ attempted: 1, sent: 1, failed: 0 })
    const [message] = outbound()
    expect(message).toMatchObject({
      channel: 'email',
      destination: 'rosa@example.test',
      subject: "You've received a gift card from Sam",
      category: 'gift_card_delivery',
    })
    expect(message!.body).toContain(card.code)
    expect(message!.body).toContain('$50.00')
    expect(message!.body).toContain('Happy birthday!')
    const after = (await t.request('GET', `/gift-card/${card.id}`)).body
    expect(after).toMatchObject({
      deliveryStatus: 'sent',
      deliveryLastAttemptAt: '2030-05-01T09:00:00.000Z',
      deliveryFailureReason: null,
      deliveryClaimedAt: null,
    })
    expect(
      await deliverDueGiftCards(t.tenant.db, sender, new Date('2030-06-01T00:00:00Z'), deliveryActor(t)),
    ).toMatchObject({
      attempted: 0,
    })
    expect(nextDeliveryWork(t.tenant.db)).toBeNull()
    const audit = t.tenant.db.$client
      .query("SELECT subject FROM audit_entries WHERE action = 'gift_card.delivery_sent'")
      .all() as { subject: string }[]
    expect(audit).toEqual([{ subject: 'system:gift-card-delivery' }])
  })

  test('a claimed delivery is next work when its claim goes stale (its sender stopped)', async () => {
    const card = await emailCard('2030-05-01T09:00:00.000Z')
    t.tenant.db.$client.run('UPDATE gift_cards SET delivery_claimed_at = ? WHERE id = ?', [
      '2030-05-01T09:00:05.000Z',
      card.id,
    ])
    expect(nextDeliveryWork(t.tenant.db)).toBe(Date.parse('2030-05-01T09:00:05.000Z') + CLAIM_TIMEOUT_MS)
  })

  test('the job leaves a card scheduled later alone, and delivers it once its time has come', async () => {
    const at = Date.now() + 10 * 60_000
    await emailCard(new Date(at).toISOString())
    // Two seconds later the card's write is settled: the job now trusts the files to be quiet and
    // comes back for the tenant only at the time its next work answered.
    setSystemTime(new Date(Date.now() + 2000))
    await t.platform.jobs.runNow('gift-cards.deliver')
    await t.platform.jobs.runNow('gift-cards.deliver')
    expect(outbound()).toEqual([])
    setSystemTime(new Date(at + 1000))
    await t.platform.jobs.runNow('gift-cards.deliver')
    expect(outbound()).toHaveLength(1)
  })

  test('an Inactive card waits until it is activated', async () => {
    const card = await issueCard(t, 1000, {
      activate: false,
      body: { recipientPhone: '+15550100', deliveryChannel: 'sms' },
    })
    const sender = embeddedSender()
    expect((await deliverDueGiftCards(t.tenant.db, sender, new Date(), deliveryActor(t))).attempted).toBe(0)
    await t.request('POST', `/gift-card/${card.id}/activate`, { body: {} })
    expect((await deliverDueGiftCards(t.tenant.db, sender, new Date(), deliveryActor(t))).sent).toBe(1)
    expect(outbound()[0]).toMatchObject({ channel: 'sms', destination: '+15550100' })
  })

  test('a failed delivery is recorded on the card, appears in the report, and is retried once re-scheduled', async () => {
    const card = await emailCard('2030-05-01T09:00:00.000Z')
    const broken = failing('550 mailbox unavailable')
    const run = await deliverDueGiftCards(
      t.tenant.db,
      broken,
      new Date('2030-05-01T10:00:00.000Z'),
      deliveryActor(t),
    )
    expect(run).toEqual({ attempted: 1, sent: 0, failed: 1 })
    const failed = (await t.request('GET', `/gift-card/${card.id}`)).body
    expect(failed).toMatchObject({
      deliveryStatus: 'failed',
      deliveryFailureReason: '550 mailbox unavailable',
    })

    const report = await t.request(
      'GET',
      '/gift-card/reports/failed-deliveries?from=2030-05-01T00:00:00Z&to=2030-05-01T23:59:59Z',
    )
    expect(report.status).toBe(200)
    expect(report.body.deliveries).toEqual([
      expect.objectContaining({
        giftCardId: card.id,
        giftCardNumber: card.giftCardNumber,
        kind: 'recipient',
        channel: 'email',
        destination: 'rosa@example.test',
        provider: 'flaky-mail',
        failureReason: '550 mailbox unavailable',
        attemptedAt: '2030-05-01T10:00:00.000Z',
        currentDeliveryStatus: 'failed',
      }),
    ])
    const otherDay = await t.request(
      'GET',
      '/gift-card/reports/failed-deliveries?from=2030-05-02&to=2030-05-03',
    )
    expect(otherDay.body.deliveries).toEqual([])

    // Not retried on its own ...
    expect(
      (await deliverDueGiftCards(t.tenant.db, broken, new Date('2030-05-02T00:00:00Z'), deliveryActor(t)))
        .attempted,
    ).toBe(0)
    // ... but after the address is corrected.
    const fixed = await t.request('PUT', `/gift-card/${card.id}`, {
      body: { deliveryDestination: 'rosa@example.org', deliveryScheduledAt: '2030-05-02T00:00:00.000Z' },
    })
    expect(fixed.body).toMatchObject({ deliveryStatus: 'scheduled', deliveryFailureReason: null })
    expect(
      (
        await deliverDueGiftCards(
          t.tenant.db,
          embeddedSender(),
          new Date('2030-05-02T00:00:00Z'),
          deliveryActor(t),
        )
      ).sent,
    ).toBe(1)
    expect(outbound()[0]!.destination).toBe('rosa@example.org')
    const history = t.tenant.db.$client
      .query('SELECT status FROM gift_card_deliveries ORDER BY attempted_at')
      .all()
    expect(history).toEqual([{ status: 'failed' }, { status: 'sent' }])
  })

  test('a sender that throws something unexpected is still recorded as a failure', async () => {
    await emailCard('2030-05-01T09:00:00.000Z')
    const sender: MessageSender = {
      provider: 'buggy',
      async send() {
        throw new TypeError('socket hang up')
      },
    }
    const run = await deliverDueGiftCards(
      t.tenant.db,
      sender,
      new Date('2030-05-01T09:00:00Z'),
      deliveryActor(t),
    )
    expect(run.failed).toBe(1)
    const row = t.tenant.db.$client.query('SELECT provider, failure_reason FROM gift_card_deliveries').get()
    expect(row).toEqual({ provider: 'buggy', failure_reason: 'socket hang up' })
  })

  test('two overlapping runs send each card once', async () => {
    for (let i = 0; i < 3; i++) await emailCard('2030-05-01T09:00:00.000Z')
    const sender = embeddedSender()
    const at = new Date('2030-05-01T09:00:00Z')
    const runs = await Promise.all([
      deliverDueGiftCards(t.tenant.db, sender, at, deliveryActor(t)),
      deliverDueGiftCards(t.tenant.db, sender, at, deliveryActor(t)),
    ])
    expect(runs.reduce((n, r) => n + r.sent, 0)).toBe(3)
    expect(outbound()).toHaveLength(3)
  })

  test('notifyPurchaserWhenOpened tells the purchaser once, after the card is opened', async () => {
    const card = await issueCard(t, 2500, {
      body: { recipientName: 'Rosa', purchaserEmail: 'sam@example.test', notifyPurchaserWhenOpened: true },
    })
    const sender = embeddedSender()
    expect((await deliverDueGiftCards(t.tenant.db, sender, new Date(), deliveryActor(t))).attempted).toBe(0)
    const opened = await t.request('POST', `/gift-card/${card.id}/opened`)
    expect(opened.body.openedAt).toBeString()
    expect((await deliverDueGiftCards(t.tenant.db, sender, new Date(), deliveryActor(t))).sent).toBe(1)
    expect(outbound()).toEqual([
      expect.objectContaining({
        destination: 'sam@example.test',
        subject: 'Your gift card was opened',
        category: 'gift_card_purchaser_notice',
      }),
    ])
    expect(outbound()[0]!.body).toContain('Rosa opened the $25.00 gift card')
    expect((await deliverDueGiftCards(t.tenant.db, sender, new Date(), deliveryActor(t))).attempted).toBe(0)
    const again = await t.request('POST', `/gift-card/${card.id}/opened`)
    expect(again.body.openedAt).toBe(opened.body.openedAt)
  })
})
