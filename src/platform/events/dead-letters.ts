// Dead letters as operators see them, and what operators do with them: review (a note) and
// replay (a new delivery cycle for the dead deliveries whose subscription can still take them).
import { and, asc, count, desc, eq, sql } from 'drizzle-orm'
import { recordWrite } from '../audit/record-write'
import { outboxEvents } from '../audit/schema'
import type { Actor } from '../foundation/actor'
import { newId, nowIso } from '../foundation/ids'
import { offsetOf, type PageRequest } from '../foundation/paging'
import { conflict, notFound } from '../foundation/problem'
import type { Db } from '../tenancy/databases'
import { inWriteTransaction, type Queryable } from '../tenancy/transaction'
import { deliveriesQueued } from './delivery'
import {
  type DeadLetterStatus,
  type WebhookDeadLetterActionRow,
  type WebhookDeadLetterRow,
  type WebhookDeliveryAttemptRow,
  webhookDeadLetterActions,
  webhookDeadLetters,
  webhookDeliveries,
  webhookDeliveryAttempts,
} from './schema'
import { type EventKey, findSubscription, matchingSubscriptions, subscriptionMatches } from './subscriptions'

export type RecoveryReasonCode =
  | 'replayable'
  | 'replay_in_progress'
  | 'already_delivered'
  | 'no_enabled_subscription'

export interface Recovery {
  eligible: boolean
  reasonCode: RecoveryReasonCode
  reason: string
  latestAction: {
    id: string
    action: 'manual_review' | 'replay'
    deliveryCycle: number
    note: string | null
    actorStaffUserId: string | null
    createdAt: string
  } | null
}

export interface DeliveryAttemptView {
  id: string
  subscriptionId: string
  attemptNumber: number
  deliveryCycle: number
  status: WebhookDeliveryAttemptRow['status']
  requestHeaders: Record<string, string>
  responseStatus: number | null
  hasResponseBody: boolean
  responseBodyBytes: number
  errorMessage: string | null
  startedAt: string
  completedAt: string | null
}

export interface DeadLetterView {
  id: string
  eventId: string
  objectType: string
  action: string
  aggregateId: string | null
  payloadKeys: string[]
  status: DeadLetterStatus
  attemptCount: number
  deliveryCycle: number
  availableAt: string
  lastError: string | null
  createdAt: string
  updatedAt: string
  attemptSummary: { total: number; failed: number; succeeded: number; delivering: number }
  subscriptionSummary: { matching: number; enabled: number }
  recovery: Recovery
}

export const attemptView = (row: WebhookDeliveryAttemptRow): DeliveryAttemptView => ({
  id: row.id,
  subscriptionId: row.subscriptionId,
  attemptNumber: row.attemptNumber,
  deliveryCycle: row.deliveryCycle,
  status: row.status,
  requestHeaders: row.requestHeaders,
  responseStatus: row.responseStatus,
  hasResponseBody: row.hasResponseBody,
  responseBodyBytes: row.responseBodyBytes,
  errorMessage: row.errorMessage,
  startedAt: row.startedAt,
  completedAt: row.completedAt,
})

/** What subscriptions match on: the letter's event, with the location it happened at. */
function eventOf(tx: Queryable, letter: WebhookDeadLetterRow): EventKey {
  const event = tx
    .select({ locationId: outboxEvents.locationId })
    .from(outboxEvents)
    .where(eq(outboxEvents.id, letter.eventId))
    .get()
  return { object: letter.objectType, action: letter.action, locationId: event?.locationId ?? null }
}

/** Dead deliveries of the letter's event that a replay would send again. */
function replayableDeliveries(tx: Queryable, letter: WebhookDeadLetterRow) {
  const event = eventOf(tx, letter)
  return tx
    .select()
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.eventId, letter.eventId), eq(webhookDeliveries.status, 'dead')))
    .all()
    .filter((delivery) => {
      const sub = findSubscription(tx, delivery.subscriptionId)
      return sub?.enabled === true && subscriptionMatches(sub, event)
    })
}

function latestAction(tx: Queryable, letterId: string): WebhookDeadLetterActionRow | undefined {
  return tx
    .select()
    .from(webhookDeadLetterActions)
    .where(eq(webhookDeadLetterActions.deadLetterId, letterId))
    .orderBy(desc(webhookDeadLetterActions.seq))
    .limit(1)
    .get()
}

export function recoveryOf(tx: Queryable, letter: WebhookDeadLetterRow): Recovery {
  const action = latestAction(tx, letter.id)
  const latest = action
    ? {
        id: action.id,
        action: action.action,
        deliveryCycle: action.deliveryCycle,
        note: action.note,
        actorStaffUserId: action.actorStaffUserId,
        createdAt: action.createdAt,
      }
    : null
  if (letter.status === 'replaying')
    return {
      eligible: false,
      reasonCode: 'replay_in_progress',
      reason: `Delivery cycle ${letter.deliveryCycle} is still under way`,
      latestAction: latest,
    }
  if (letter.status === 'delivered')
    return {
      eligible: false,
      reasonCode: 'already_delivered',
      reason: 'Every subscription that had failed has received the event',
      latestAction: latest,
    }
  const replayable = replayableDeliveries(tx, letter).length
  if (replayable === 0)
    return {
      eligible: false,
      reasonCode: 'no_enabled_subscription',
      reason: `No enabled subscription for ${letter.objectType}/${letter.action} is among those that failed; enable or recreate one first`,
      latestAction: latest,
    }
  return {
    eligible: true,
    reasonCode: 'replayable',
    reason: `A replay sends the event again to ${replayable} enabled subscription${replayable === 1 ? '' : 's'}`,
    latestAction: latest,
  }
}

function attemptsOf(tx: Queryable, eventId: string): WebhookDeliveryAttemptRow[] {
  return tx
    .select()
    .from(webhookDeliveryAttempts)
    .where(eq(webhookDeliveryAttempts.eventId, eventId))
    .orderBy(asc(webhookDeliveryAttempts.seq))
    .all()
}

function view(tx: Queryable, letter: WebhookDeadLetterRow): DeadLetterView {
  const summary = tx
    .select({
      total: count(),
      failed: sql<number>`coalesce(sum(${webhookDeliveryAttempts.status} = 'failed'), 0)`,
      succeeded: sql<number>`coalesce(sum(${webhookDeliveryAttempts.status} = 'succeeded'), 0)`,
      delivering: sql<number>`coalesce(sum(${webhookDeliveryAttempts.status} = 'delivering'), 0)`,
    })
    .from(webhookDeliveryAttempts)
    .where(eq(webhookDeliveryAttempts.eventId, letter.eventId))
    .get() ?? { total: 0, failed: 0, succeeded: 0, delivering: 0 }
  const matching = matchingSubscriptions(tx, eventOf(tx, letter))
  return {
    id: letter.id,
    eventId: letter.eventId,
    objectType: letter.objectType,
    action: letter.action,
    aggregateId: letter.aggregateId,
    payloadKeys: letter.payloadKeys,
    status: letter.status,
    attemptCount: summary.total,
    deliveryCycle: letter.deliveryCycle,
    availableAt: letter.availableAt,
    lastError: letter.lastError,
    createdAt: letter.createdAt,
    updatedAt: letter.updatedAt,
    attemptSummary: summary,
    subscriptionSummary: { matching: matching.length, enabled: matching.filter((s) => s.enabled).length },
    recovery: recoveryOf(tx, letter),
  }
}

function findLetter(tx: Queryable, id: string): WebhookDeadLetterRow {
  const letter = tx.select().from(webhookDeadLetters).where(eq(webhookDeadLetters.id, id)).get()
  if (!letter) throw notFound('dead letter', id)
  return letter
}

export function listDeadLetters(db: Queryable, query: { status?: DeadLetterStatus } & PageRequest) {
  const where = query.status ? eq(webhookDeadLetters.status, query.status) : undefined
  const total = db.select({ n: count() }).from(webhookDeadLetters).where(where).get()?.n ?? 0
  const rows = db
    .select()
    .from(webhookDeadLetters)
    .where(where)
    .orderBy(desc(webhookDeadLetters.createdAt), desc(webhookDeadLetters.id))
    .limit(query.limit)
    .offset(offsetOf(query))
    .all()
  return { deadLetters: rows.map((row) => view(db, row)), total }
}

export function getDeadLetter(db: Queryable, id: string) {
  const letter = findLetter(db, id)
  return { ...view(db, letter), attempts: attemptsOf(db, letter.eventId).map(attemptView) }
}

export function reviewDeadLetter(db: Db, actor: Actor, id: string, note: string) {
  return inWriteTransaction(db, (tx) => {
    const letter = findLetter(tx, id)
    const now = nowIso()
    tx.insert(webhookDeadLetterActions)
      .values({
        id: newId(),
        deadLetterId: letter.id,
        action: 'manual_review',
        deliveryCycle: letter.deliveryCycle,
        note,
        actorStaffUserId: actor.staffUserId,
        createdAt: now,
      })
      .run()
    tx.update(webhookDeadLetters).set({ updatedAt: now }).where(eq(webhookDeadLetters.id, letter.id)).run()
    recordWrite(tx, actor, {
      action: 'webhook_dead_letter.manual_review',
      entityType: 'webhook_dead_letter',
      entityId: letter.id,
      metadata: { note, deliveryCycle: letter.deliveryCycle },
    })
    return getDeadLetter(tx, letter.id)
  })
}

/** Starts a new delivery cycle; refused (409, with `recovery`) when the letter is not eligible. */
export function replayDeadLetter(db: Db, actor: Actor, id: string): DeadLetterView {
  const result = inWriteTransaction(db, (tx) => {
    const letter = findLetter(tx, id)
    const recovery = recoveryOf(tx, letter)
    if (!recovery.eligible) {
      throw conflict(`This dead letter cannot be replayed: ${recovery.reason}`, {
        status: letter.status,
        recovery,
      })
    }
    const now = nowIso()
    const cycle = letter.deliveryCycle + 1
    const deliveries = replayableDeliveries(tx, letter)
    for (const delivery of deliveries) {
      tx.update(webhookDeliveries)
        .set({
          status: 'pending',
          deliveryCycle: cycle,
          attemptsInCycle: 0,
          nextAttemptAt: now,
          updatedAt: now,
        })
        .where(eq(webhookDeliveries.id, delivery.id))
        .run()
    }
    tx.update(webhookDeadLetters)
      .set({ status: 'replaying', deliveryCycle: cycle, availableAt: now, updatedAt: now })
      .where(eq(webhookDeadLetters.id, letter.id))
      .run()
    tx.insert(webhookDeadLetterActions)
      .values({
        id: newId(),
        deadLetterId: letter.id,
        action: 'replay',
        deliveryCycle: cycle,
        note: null,
        actorStaffUserId: actor.staffUserId,
        createdAt: now,
      })
      .run()
    recordWrite(tx, actor, {
      action: 'webhook_dead_letter.replay',
      entityType: 'webhook_dead_letter',
      entityId: letter.id,
      metadata: { deliveryCycle: cycle, subscriptionIds: deliveries.map((d) => d.subscriptionId) },
    })
    return view(tx, findLetter(tx, letter.id))
  })
  deliveriesQueued(actor.tenantId)
  return result
}
