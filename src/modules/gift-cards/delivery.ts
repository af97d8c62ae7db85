import { and, eq, inArray, isNotNull, isNull, lt, lte, or } from 'drizzle-orm'
import { recordWrite } from '../../platform/audit/record-write'
import type { Actor } from '../../platform/foundation/actor'
import { newId } from '../../platform/foundation/ids'
import { earliestInstant, earliestOf, type LeastValue, type NextWork } from '../../platform/jobs/next-work'
import { MessageSendError, type MessageSender, type OutgoingMessage } from '../../platform/messaging/sender'
import type { Db } from '../../platform/tenancy/databases'
import { inWriteTransaction } from '../../platform/tenancy/transaction'
import { presentGiftCard } from './ledger'
import { type GiftCardRow, giftCardDeliveries, giftCards } from './schema'

export const CLAIM_TIMEOUT_MS = 10 * 60 * 1000
const BATCH = 100

export interface DeliveryRun {
  attempted: number
  sent: number
  failed: number
}

const money = (cents: number) => `$${(cents / 100).toFixed(2)}`

function recipientMessage(card: GiftCardRow): OutgoingMessage {
  const from = card.fromName ? ` from ${card.fromName}` : ''
  const lines = [
    card.recipientName ? `Hi ${card.recipientName},` : 'Hi,',
    `You have received a ${money(card.currentBalance)} gift card${from}.`,
    card.giftMessage ? `"${card.giftMessage}"` : null,
    `Gift card code: ${card.code}`,
  ].filter((l): l is string => l !== null)
  return {
    channel: card.deliveryChannel!,
    to: card.deliveryDestination!,
    subject: `You've received a gift card${from}`,
    text: lines.join('\n\n'),
    category: 'gift_card_delivery',
  }
}

function purchaserMessage(card: GiftCardRow): OutgoingMessage {
  const channel = card.purchaserEmail ? 'email' : 'sms'
  const who = card.recipientName ?? 'The recipient'
  return {
    channel,
    to: (card.purchaserEmail ?? card.purchaserPhone)!,
    subject: 'Your gift card was opened',
    text: `${who} opened the ${money(card.initialAmount)} gift card you sent.`,
    category: 'gift_card_purchaser_notice',
  }
}

/** The tenant of a pool database, from its file name (`<tenantId>.sqlite`). */

/**
 * When the next scheduled delivery is due: the earliest scheduled time of an unclaimed one, or
 * when a claim goes stale (its sender stopped); null when no delivery is scheduled.
 */
export function nextDeliveryWork(db: Db): NextWork {
  const claimed = earliestInstant(db, oldestDeliveryClaim)
  return earliestOf(
    earliestInstant(db, earliestUnclaimedDelivery),
    claimed === null ? null : claimed + CLAIM_TIMEOUT_MS,
  )
}

const scheduledDelivery = () => and(eq(giftCards.deliveryStatus, 'scheduled'), eq(giftCards.status, 'Active'))
const oldestDeliveryClaim: LeastValue = {
  key: 'gift-card-delivery-claim',
  table: giftCards,
  column: giftCards.deliveryClaimedAt,
  where: () => and(scheduledDelivery(), isNotNull(giftCards.deliveryClaimedAt)),
}
const earliestUnclaimedDelivery: LeastValue = {
  key: 'gift-card-delivery-scheduled',
  table: giftCards,
  column: giftCards.deliveryScheduledAt,
  where: () => and(scheduledDelivery(), isNull(giftCards.deliveryClaimedAt)),
}

/**
 * Sends every card whose delivery is due at `now` (status Active, deliveryStatus `scheduled`,
 * deliveryScheduledAt <= now), then the purchaser notices of opened cards. Failures are recorded
 * on the card (`deliveryStatus: failed`, `deliveryFailureReason`) and in gift_card_deliveries,
 * where the failed-deliveries report finds them; a failed card is sent again once its delivery
 * fields are changed (PUT /gift-card/{id}).
 */
export async function deliverDueGiftCards(
  db: Db,
  sender: MessageSender,
  now: Date,
  actor: Actor,
): Promise<DeliveryRun> {
  const at = now.toISOString()
  const staleClaim = new Date(now.getTime() - CLAIM_TIMEOUT_MS).toISOString()
  const run: DeliveryRun = { attempted: 0, sent: 0, failed: 0 }

  const due = inWriteTransaction(db, (tx) => {
    const rows = tx
      .select()
      .from(giftCards)
      .where(
        and(
          eq(giftCards.deliveryStatus, 'scheduled'),
          eq(giftCards.status, 'Active'),
          lte(giftCards.deliveryScheduledAt, at),
          or(isNull(giftCards.deliveryClaimedAt), lt(giftCards.deliveryClaimedAt, staleClaim)),
        ),
      )
      .orderBy(giftCards.deliveryScheduledAt)
      .limit(BATCH)
      .all()
    if (rows.length > 0) {
      tx.update(giftCards)
        .set({ deliveryClaimedAt: at })
        .where(
          inArray(
            giftCards.id,
            rows.map((r) => r.id),
          ),
        )
        .run()
    }
    return rows
  })
  for (const card of due) {
    const outcome = await attempt(db, sender, recipientMessage(card))
    recordAttempt(db, actor, card, 'recipient', outcome, at)
    tally(run, outcome)
  }

  const opened = inWriteTransaction(db, (tx) => {
    const rows = tx
      .select()
      .from(giftCards)
      .where(
        and(
          eq(giftCards.notifyPurchaserWhenOpened, true),
          isNotNull(giftCards.openedAt),
          isNull(giftCards.purchaserNotifiedAt),
          or(isNotNull(giftCards.purchaserEmail), isNotNull(giftCards.purchaserPhone)),
        ),
      )
      .limit(BATCH)
      .all()
    // Claimed by stamping purchaserNotifiedAt: the notice is attempted once.
    for (const row of rows)
      tx.update(giftCards).set({ purchaserNotifiedAt: at }).where(eq(giftCards.id, row.id)).run()
    return rows
  })
  for (const card of opened) {
    const outcome = await attempt(db, sender, purchaserMessage(card))
    recordAttempt(db, actor, card, 'purchaser_opened', outcome, at)
    tally(run, outcome)
  }
  return run
}

type Outcome =
  | { ok: true; provider: string; messageId: string; message: OutgoingMessage }
  | {
      ok: false
      provider: string
      reason: string
      message: OutgoingMessage
    }

async function attempt(db: Db, sender: MessageSender, message: OutgoingMessage): Promise<Outcome> {
  try {
    const sent = await sender.send(db, message)
    return { ok: true, provider: sent.provider, messageId: sent.messageId, message }
  } catch (error) {
    const provider = error instanceof MessageSendError ? error.provider : sender.provider
    const reason = error instanceof Error ? error.message : String(error)
    return { ok: false, provider, reason: reason.slice(0, 1000) || 'unknown error', message }
  }
}

function tally(run: DeliveryRun, outcome: Outcome) {
  run.attempted++
  if (outcome.ok) run.sent++
  else run.failed++
}

function recordAttempt(
  db: Db,
  actor: Actor,
  card: GiftCardRow,
  kind: 'recipient' | 'purchaser_opened',
  outcome: Outcome,
  at: string,
) {
  inWriteTransaction(db, (tx) => {
    const delivery = tx
      .insert(giftCardDeliveries)
      .values({
        id: newId(),
        giftCardId: card.id,
        kind,
        channel: outcome.message.channel,
        destination: outcome.message.to,
        provider: outcome.provider,
        status: outcome.ok ? 'sent' : 'failed',
        failureReason: outcome.ok ? null : outcome.reason,
        providerMessageId: outcome.ok ? outcome.messageId : null,
        scheduledAt: kind === 'recipient' ? card.deliveryScheduledAt : null,
        attemptedAt: at,
      })
      .returning()
      .get()
    let row = card
    if (kind === 'recipient') {
      row = tx
        .update(giftCards)
        .set({
          deliveryStatus: outcome.ok ? 'sent' : 'failed',
          deliveryLastAttemptAt: at,
          deliveryFailureReason: outcome.ok ? null : outcome.reason,
          deliveryClaimedAt: null,
          updatedAt: at,
        })
        .where(eq(giftCards.id, card.id))
        .returning()
        .get()
    }
    const action = `${kind === 'recipient' ? 'delivery' : 'purchaser_notice'}_${outcome.ok ? 'sent' : 'failed'}`
    recordWrite(tx, actor, {
      action: `gift_card.${action}`,
      entityType: 'gift_card',
      entityId: card.id,
      metadata: { delivery },
      event: { giftCard: presentGiftCard(row), delivery },
    })
  })
}
