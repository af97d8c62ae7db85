// Reminder emails of legacy reservations. A Pending or Confirmed reservation whose
// `reminderEmailSendStatus` is `pending` and whose date falls within the next 24 hours gets one
// email to its customer through the platform's message sender. The reservation is claimed first
// (`sending`, in its own transaction) so that no run sends it twice, then the outcome is
// recorded: `sent` (with `reminderEmailSendDate`), `failed` with the sender's reason, or
// `skipped` when the reservation has no customer email. A crash between the claim and the
// outcome leaves `sending`: such a reminder is not sent again (at most once).
import { and, eq, gt, inArray, lte, type Placeholder, sql } from 'drizzle-orm'
import { recordWrite } from '../../platform/audit/record-write'
import type { Actor } from '../../platform/foundation/actor'
import { nowIso } from '../../platform/foundation/ids'
import { earliestInstant, type LeastValue, type NextWork } from '../../platform/jobs/next-work'
import { MessageSendError, type MessageSender } from '../../platform/messaging/sender'
import type { Db } from '../../platform/tenancy/databases'
import { inWriteTransaction } from '../../platform/tenancy/transaction'
import { customersByIds } from '../customers'
import { legacyReservations, reservationTypes } from './schema'
import { getLegacyReservation } from './service'

export const REMINDER_LEAD_MS = 24 * 60 * 60 * 1000

type Outcome =
  | { status: 'sent'; to: string; provider: string; messageId: string }
  | { status: 'failed'; to: string; provider: string; reason: string }
  | { status: 'skipped'; reason: string }

const awaitingReminder = (now: string | Placeholder) =>
  and(
    eq(legacyReservations.reminderEmailSendStatus, 'pending'),
    inArray(legacyReservations.status, ['Pending', 'Confirmed']),
    gt(legacyReservations.reservationDate, now),
  )

const nextReservationAwaitingReminder: LeastValue = {
  key: 'legacy-reservation-next-reminder',
  table: legacyReservations,
  column: legacyReservations.reservationDate,
  where: () => awaitingReminder(sql.placeholder('now')),
}

/** When the next reminder comes due (a day before its reservation); null when none waits. */
export function nextReminderWork(db: Db, now = new Date()): NextWork {
  const next = earliestInstant(db, nextReservationAwaitingReminder, { now: now.toISOString() })
  return next === null ? null : next - REMINDER_LEAD_MS
}

/** Claims the due reminders: `pending` → `sending`, answering the claimed reservations. */
function claimDue(db: Db, now: Date) {
  return inWriteTransaction(db, (tx) =>
    tx
      .update(legacyReservations)
      .set({ reminderEmailSendStatus: 'sending' })
      .where(
        and(
          awaitingReminder(now.toISOString()),
          lte(legacyReservations.reservationDate, new Date(now.getTime() + REMINDER_LEAD_MS).toISOString()),
        ),
      )
      .returning()
      .all(),
  )
}

type Claimed = ReturnType<typeof claimDue>[number]

async function remind(db: Db, sender: MessageSender, reservation: Claimed): Promise<Outcome> {
  const customer = reservation.customerId
    ? customersByIds(db, [reservation.customerId]).get(reservation.customerId)
    : undefined
  if (!customer?.email) return { status: 'skipped', reason: 'no customer email address on the reservation' }
  const type = db
    .select({ title: reservationTypes.title })
    .from(reservationTypes)
    .where(eq(reservationTypes.id, reservation.reservationTypeId))
    .get()
  try {
    const sent = await sender.send(db, {
      channel: 'email',
      to: customer.email,
      subject: `Reminder: ${type?.title ?? 'your reservation'} on ${reservation.businessDate}`,
      text: `Hi ${customer.firstName},\n\nA reminder of your reservation #${reservation.reservationNumber} (${type?.title ?? 'reservation'}) for ${reservation.guestCount} guest(s) on ${reservation.businessDate}. We look forward to seeing you.\n`,
      category: 'reservation_reminder',
    })
    return { status: 'sent', to: customer.email, ...sent }
  } catch (error) {
    if (!(error instanceof MessageSendError)) throw error
    return { status: 'failed', to: customer.email, provider: error.provider, reason: error.message }
  }
}

/** Sends every due reminder of one tenant; answers how many were claimed. */
export async function sendDueReminders(db: Db, sender: MessageSender, actor: Actor, now = new Date()) {
  const claimed = claimDue(db, now)
  for (const reservation of claimed) {
    const outcome = await remind(db, sender, reservation)
    inWriteTransaction(db, (tx) => {
      const row = tx
        .update(legacyReservations)
        .set({
          reminderEmailSendStatus: outcome.status,
          ...(outcome.status === 'sent' ? { reminderEmailSendDate: nowIso() } : {}),
          updatedAt: nowIso(),
        })
        .where(eq(legacyReservations.id, reservation.id))
        .returning()
        .get()
      recordWrite(tx, actor, {
        action: 'legacy_reservation.remind',
        entityType: 'legacy_reservation',
        entityId: reservation.id,
        metadata: outcome,
        events: [
          {
            object: 'reservation',
            action: 'remind',
            aggregateId: reservation.id,
            payload: { ...getLegacyReservation(tx, row.id), reminder: outcome },
          },
        ],
      })
    })
  }
  return claimed.length
}
