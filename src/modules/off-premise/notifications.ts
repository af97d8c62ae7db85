// Guest messages of off-premise orders. A fulfilment step queues a notification (status
// `pending`) in its own transaction; the message is sent afterwards through the platform's
// message sender (the same pluggable sender as gift card delivery; the embedded default records
// it in outbound_messages), and the outcome is recorded on the notification: `sent` or `failed`
// with the reason. Without a phone or email for the preferred channel the notification is
// recorded `skipped`. The `off-premise.notify` job sends whatever is still pending (a crash
// between queueing and sending), claiming each row so two runs never send one twice.
import { and, asc, eq, inArray, isNull, lt, or } from 'drizzle-orm'
import { recordWrite } from '../../platform/audit/record-write'
import type { Actor } from '../../platform/foundation/actor'
import { newId, nowIso } from '../../platform/foundation/ids'
import { earliestInstant, type LeastValue, type NextWork } from '../../platform/jobs/next-work'
import { MessageSendError, type MessageSender } from '../../platform/messaging/sender'
import type { Db } from '../../platform/tenancy/databases'
import { preparedOn } from '../../platform/tenancy/prepared'
import { inWriteTransaction, type Queryable } from '../../platform/tenancy/transaction'
import { type OrderOffPremiseRow, offPremiseNotifications, orderOffPremise } from './schema'

export const CLAIM_TIMEOUT_MS = 5 * 60 * 1000
const BATCH = 100

export type GuestEvent = 'order_ready' | 'batch_ready' | 'out_for_delivery' | 'order_delivered'

const templates: Record<
  GuestEvent,
  { template: string; subject: string; text: (who: string, n: number) => string }
> = {
  order_ready: {
    template: 'order_ready',
    subject: 'Your order is ready',
    text: (who, n) => `${who}, your order #${n} is ready for pickup.`,
  },
  batch_ready: {
    template: 'order_ready',
    subject: 'Your order is ready',
    text: (who, n) => `${who}, your order #${n} is ready for pickup.`,
  },
  out_for_delivery: {
    template: 'out_for_delivery',
    subject: 'Your order is on its way',
    text: (who, n) => `${who}, your order #${n} is on its way.`,
  },
  order_delivered: {
    template: 'order_delivered',
    subject: 'Your order was delivered',
    text: (who, n) => `${who}, your order #${n} was delivered. Enjoy!`,
  },
}

/**
 * Queues the guest message of an event when the location's `guestMessagingEnabled` and the
 * order's `guestMessaging.enabled` both allow it. Answers whether one was queued.
 */
export function queueNotification(
  tx: Queryable,
  row: OrderOffPremiseRow,
  orderNumber: number,
  event: GuestEvent,
  locationEnabled: boolean,
): boolean {
  if (!locationEnabled || !row.guestMessaging.enabled) return false
  const channel = row.guestMessaging.preferredChannel
  const recipient = channel === 'sms' ? row.customer.phone : row.customer.email
  const t = templates[event]
  const now = nowIso()
  tx.insert(offPremiseNotifications)
    .values({
      id: newId(),
      orderId: row.orderId,
      event,
      template: t.template,
      channel,
      status: recipient ? 'pending' : 'skipped',
      recipient,
      subject: channel === 'email' ? t.subject : null,
      body: t.text(row.customer.firstName ? `Hi ${row.customer.firstName}` : 'Hi', orderNumber),
      failureReason: recipient
        ? null
        : `no ${channel === 'sms' ? 'phone number' : 'email address'} for the guest`,
      createdAt: now,
      updatedAt: now,
    })
    .run()
  tx.update(orderOffPremise)
    .set({ guestMessaging: { ...row.guestMessaging, lastUpdatedAt: now } })
    .where(eq(orderOffPremise.orderId, row.orderId))
    .run()
  return true
}

/**
 * When pending notifications next need the job: now for an unclaimed one (more than a batch was
 * pending), when the oldest claim goes stale otherwise (its sender stopped); null when none.
 */
export function nextNotificationWork(db: Queryable, now = Date.now()): NextWork {
  const unclaimed = preparedOn(db, 'off-premise-notification-unclaimed', () =>
    db
      .select({ id: offPremiseNotifications.id })
      .from(offPremiseNotifications)
      .where(and(eq(offPremiseNotifications.status, 'pending'), isNull(offPremiseNotifications.claimedAt)))
      .limit(1)
      .prepare(),
  ).get()
  if (unclaimed) return now
  const claimed = earliestInstant(db, oldestPendingClaim)
  return claimed === null ? null : claimed + CLAIM_TIMEOUT_MS
}

const oldestPendingClaim: LeastValue = {
  key: 'off-premise-notification-claim',
  table: offPremiseNotifications,
  column: offPremiseNotifications.claimedAt,
  where: () => eq(offPremiseNotifications.status, 'pending'),
}

/**
 * Sends pending notifications (of some orders, or all), recording each outcome and auditing it as
 * `actor` (the staff whose step queued it, or the notify job) on the order.
 */
export async function sendPendingNotifications(
  db: Db,
  sender: MessageSender,
  actor: Actor,
  orderIds?: string[],
  now = new Date(),
): Promise<{ sent: number; failed: number }> {
  const at = now.toISOString()
  const stale = new Date(now.getTime() - CLAIM_TIMEOUT_MS).toISOString()
  const claimed = inWriteTransaction(db, (tx) => {
    const rows = tx
      .select()
      .from(offPremiseNotifications)
      .where(
        and(
          eq(offPremiseNotifications.status, 'pending'),
          or(isNull(offPremiseNotifications.claimedAt), lt(offPremiseNotifications.claimedAt, stale)),
          orderIds ? inArray(offPremiseNotifications.orderId, orderIds) : undefined,
        ),
      )
      .orderBy(asc(offPremiseNotifications.createdAt))
      .limit(BATCH)
      .all()
    if (rows.length > 0)
      tx.update(offPremiseNotifications)
        .set({ claimedAt: at })
        .where(
          inArray(
            offPremiseNotifications.id,
            rows.map((r) => r.id),
          ),
        )
        .run()
    return rows
  })
  const tally = { sent: 0, failed: 0 }
  for (const n of claimed) {
    let outcome:
      | { ok: true; provider: string; messageId: string }
      | { ok: false; provider: string; reason: string }
    try {
      const sent = await sender.send(db, {
        channel: n.channel,
        to: n.recipient!,
        subject: n.subject ?? undefined,
        text: n.body,
        category: `off_premise_${n.event}`,
      })
      outcome = { ok: true, provider: sent.provider, messageId: sent.messageId }
      tally.sent++
    } catch (error) {
      const provider = error instanceof MessageSendError ? error.provider : sender.provider
      const reason =
        (error instanceof Error ? error.message : String(error)).slice(0, 1000) || 'unknown error'
      outcome = { ok: false, provider, reason }
      tally.failed++
    }
    inWriteTransaction(db, (tx) => {
      const doneAt = nowIso()
      tx.update(offPremiseNotifications)
        .set({
          status: outcome.ok ? 'sent' : 'failed',
          provider: outcome.provider,
          providerMessageId: outcome.ok ? outcome.messageId : null,
          failureReason: outcome.ok ? null : outcome.reason,
          sentAt: outcome.ok ? doneAt : null,
          claimedAt: null,
          updatedAt: doneAt,
        })
        .where(eq(offPremiseNotifications.id, n.id))
        .run()
      const row = tx.select().from(orderOffPremise).where(eq(orderOffPremise.orderId, n.orderId)).get()
      if (row)
        tx.update(orderOffPremise)
          .set({ guestMessaging: { ...row.guestMessaging, lastUpdatedAt: doneAt } })
          .where(eq(orderOffPremise.orderId, n.orderId))
          .run()
      // The recipient stays out of the audit log: the notification row keeps it.
      recordWrite(tx, actor, {
        action: `order.guest_message_${outcome.ok ? 'sent' : 'failed'}`,
        entityType: 'order',
        entityId: n.orderId,
        metadata: {
          notification: {
            id: n.id,
            event: n.event,
            channel: n.channel,
            provider: outcome.provider,
            ...(outcome.ok ? { providerMessageId: outcome.messageId } : { failureReason: outcome.reason }),
          },
        },
      })
    })
  }
  return tally
}
