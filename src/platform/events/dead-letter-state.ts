// How deliveries turn into dead letters and back: a delivery whose schedule is spent (or that can
// no longer be sent) is `dead`, and its event gets one dead letter; a replay that delivers every
// dead delivery of the event marks the dead letter `delivered`.
import { and, eq, inArray } from 'drizzle-orm'
import { outboxEvents } from '../audit/schema'
import { newId } from '../foundation/ids'
import type { Queryable } from '../tenancy/transaction'
import { type WebhookDeliveryRow, webhookDeadLetters, webhookDeliveries } from './schema'

export function markDead(tx: Queryable, delivery: WebhookDeliveryRow, error: string, now: string): void {
  tx.update(webhookDeliveries)
    .set({ status: 'dead', nextAttemptAt: null, lastError: error, updatedAt: now })
    .where(eq(webhookDeliveries.id, delivery.id))
    .run()
  const existing = tx
    .select()
    .from(webhookDeadLetters)
    .where(eq(webhookDeadLetters.eventId, delivery.eventId))
    .get()
  if (existing) {
    tx.update(webhookDeadLetters)
      .set({
        status: 'pending',
        lastError: error,
        availableAt: now,
        deliveryCycle: Math.max(existing.deliveryCycle, delivery.deliveryCycle),
        updatedAt: now,
      })
      .where(eq(webhookDeadLetters.id, existing.id))
      .run()
    return
  }
  const event = tx.select().from(outboxEvents).where(eq(outboxEvents.id, delivery.eventId)).get()
  tx.insert(webhookDeadLetters)
    .values({
      id: newId(),
      eventId: delivery.eventId,
      objectType: event?.object ?? 'unknown',
      action: event?.action ?? 'unknown',
      aggregateId: event?.aggregateId ?? null,
      payloadKeys: Object.keys(event?.payload ?? {}),
      status: 'pending',
      deliveryCycle: delivery.deliveryCycle,
      availableAt: now,
      lastError: error,
      createdAt: now,
      updatedAt: now,
    })
    .run()
}

/**
 * After a successful attempt: when every delivery of the dead letter's current (replay) cycle has
 * succeeded, the letter is `delivered`, or back to `pending` if older dead deliveries remain.
 */
export function resolveDeadLetterIfDelivered(tx: Queryable, eventId: string, now: string): void {
  const letter = tx.select().from(webhookDeadLetters).where(eq(webhookDeadLetters.eventId, eventId)).get()
  if (letter?.status !== 'replaying') return
  const unfinished = tx
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.eventId, eventId),
        eq(webhookDeliveries.deliveryCycle, letter.deliveryCycle),
        inArray(webhookDeliveries.status, ['pending', 'delivering', 'dead']),
      ),
    )
    .limit(1)
    .get()
  if (unfinished) return
  const leftover = tx
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.eventId, eventId), eq(webhookDeliveries.status, 'dead')))
    .limit(1)
    .get()
  tx.update(webhookDeadLetters)
    .set(
      leftover
        ? { status: 'pending', updatedAt: now }
        : { status: 'delivered', lastError: null, updatedAt: now },
    )
    .where(eq(webhookDeadLetters.id, letter.id))
    .run()
}
