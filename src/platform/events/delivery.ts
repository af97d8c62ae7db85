// Delivering one tenant's outbox: fan each new event out to the subscriptions matching it, claim
// the deliveries that are due, POST them signed, and record every attempt and its consequence
// (success, a retry on the schedule, a disabled subscription on 410, or a dead letter).
// All state lives in the tenant database, so a restart resumes where the last process stopped:
// a delivery claimed by a process that died mid-request is retried once its lease runs out.
import { and, asc, eq, inArray, isNull, lte, sql } from 'drizzle-orm'
import { recordWrite } from '../audit/record-write'
import { type OutboxEventRow, outboxEvents } from '../audit/schema'
import { systemActor } from '../foundation/actor'
import { newId } from '../foundation/ids'
import type { Logger } from '../foundation/log'
import { type LeastValue, leastText } from '../jobs/next-work'
import type { Db } from '../tenancy/databases'
import { preparedOn } from '../tenancy/prepared'
import { inWriteTransaction, type Queryable } from '../tenancy/transaction'
import { markDead, resolveDeadLetterIfDelivered } from './dead-letter-state'
import { type EventName, nameFor } from './names'
import {
  type WebhookDeliveryRow,
  webhookDeliveries,
  webhookDeliveryAttempts,
  webhookSubscriptions,
} from './schema'
import { signatureHeader } from './signing'
import { findSubscription, signingSecrets, subscriptionMatches } from './subscriptions'
import { fetchTarget, type ResolveHost, TargetRefusedError } from './targets'

export interface DeliverySettings {
  tenantId: string
  retryScheduleMs: readonly number[]
  timeoutMs: number
  allowPrivateTargets: boolean
  /** The system resolver unless given (tests give their own). */
  resolveHost?: ResolveHost
  userAgent: string
  log: Logger
}

const FANOUT_BATCH = 200
const FANOUT_ROUNDS = 10
export const CLAIM_BATCH = 50
const CONCURRENCY = 8
/** How long a claim holds its delivery: a process that died mid-request frees it after this. */
const leaseMs = (timeoutMs: number) => 2 * timeoutMs + 1000
const EXCERPT_BYTES = 4096
const MAX_READ_BYTES = 1024 * 1024
const MAX_RETRY_AFTER_MS = 24 * 3600 * 1000

const iso = (ms: number) => new Date(ms).toISOString()

/**
 * The body every subscriber receives: Commerce7's shape, the event named as the subscription
 * knows it (a former name it subscribed with, else the current one).
 */
export function deliveryBody(event: OutboxEventRow, subscription: EventName, tenantId: string): string {
  const { object, action } = nameFor(subscription, event)
  return JSON.stringify({
    object,
    action,
    payload: event.payload,
    user: event.user,
    tenantId,
  })
}

/** Whether the tenant has events not yet fanned out: a read, so that a visit with none takes no write lock. */
const waitingForFanOut = (db: Queryable): boolean =>
  preparedOn(db, 'outbox-waiting-for-fan-out', () =>
    db
      .select({ seq: outboxEvents.seq })
      .from(outboxEvents)
      .where(isNull(outboxEvents.dispatchedAt))
      .limit(1)
      .prepare(),
  ).get() !== undefined

const earliestAttempt: LeastValue = {
  key: 'webhook-deliveries-earliest-attempt',
  table: webhookDeliveries,
  column: webhookDeliveries.nextAttemptAt,
  where: () => inArray(webhookDeliveries.status, ['pending', 'delivering']),
}

/** When the earliest pending (or interrupted) delivery is next due, or null when none is. */
const earliestAttemptAt = (db: Queryable): string | null => leastText(db, earliestAttempt)

type QueuedListener = (tenantId: string) => void
const queuedListeners = new Set<QueuedListener>()

/** Tells `listener` each tenant whose deliveries may be due now (the delivery worker's wake-up). */
export function onDeliveriesQueued(listener: QueuedListener): () => void {
  queuedListeners.add(listener)
  return () => queuedListeners.delete(listener)
}

/** A tenant's deliveries may be due now: new ones, a replay, or events left to fan out. */
export function deliveriesQueued(tenantId: string): void {
  for (const listener of queuedListeners) listener(tenantId)
}

/**
 * One batch of the events not yet fanned out, oldest first: a pending delivery per matching
 * enabled subscription. Returns how many events it fanned out and how many deliveries it made.
 */
function fanOutBatch(tx: Queryable, nowMs: number): { events: number; deliveries: number } {
  // Prepared once: it runs at every commit, where building the queries with drizzle cost several
  // times running them (platform/tenancy/prepared.ts).
  const events = preparedOn(tx, 'outbox-to-fan-out', () =>
    tx
      .select({
        seq: outboxEvents.seq,
        id: outboxEvents.id,
        object: outboxEvents.object,
        action: outboxEvents.action,
        locationId: outboxEvents.locationId,
        createdAt: outboxEvents.createdAt,
      })
      .from(outboxEvents)
      .where(isNull(outboxEvents.dispatchedAt))
      .orderBy(asc(outboxEvents.seq))
      .limit(FANOUT_BATCH)
      .prepare(),
  ).all()
  if (events.length === 0) return { events: 0, deliveries: 0 }
  const now = iso(nowMs)
  // The tenant's subscriptions once per batch, not a query per event: a batch of two hundred
  // events held the request thread for tens of milliseconds.
  const subscriptions = preparedOn(tx, 'webhook-subscriptions-all', () =>
    tx.select().from(webhookSubscriptions).prepare(),
  ).all()
  let deliveries = 0
  for (const event of events) {
    for (const sub of subscriptions) {
      if (!subscriptionMatches(sub, event)) continue
      // A subscription receives the events written after it was created, not older ones.
      if (!sub.enabled || sub.createdAt > event.createdAt) continue
      const id = newId()
      tx.insert(webhookDeliveries)
        .values({
          id,
          eventId: event.id,
          subscriptionId: sub.id,
          messageId: `msg_${id.replaceAll('-', '')}`,
          status: 'pending',
          deliveryCycle: 1,
          attemptsInCycle: 0,
          nextAttemptAt: now,
          lastError: null,
          createdAt: now,
          updatedAt: now,
        })
        .onConflictDoNothing()
        .run()
      deliveries++
    }
  }
  // The batch is every event not yet fanned out up to its last one (oldest first).
  preparedOn(tx, 'outbox-mark-fanned-out', () =>
    tx
      .update(outboxEvents)
      .set({ dispatchedAt: sql`${sql.placeholder('now')}` })
      .where(and(isNull(outboxEvents.dispatchedAt), lte(outboxEvents.seq, sql.placeholder('last'))))
      .prepare(),
  ).run({ now, last: events.at(-1)!.seq })
  return { events: events.length, deliveries }
}

/**
 * Fans out the events of a write transaction as it commits (`beforeEachCommit`, platform.ts): an
 * event's deliveries are made with it, and webhook delivery is woken only when there are some.
 * Fanning out in a visit of its own took the tenant's write lock after each commit: in the primary
 * of HTTP workers, beside two workers writing one tenant, that was a lock taken in turn with them
 * some hundred times a second (bench/README.md, twelfth pass). One batch: a backlog (events a
 * process without this left, an upgrade's) is the delivery worker's, woken for it.
 */
export function fanOutAtCommit(tx: Queryable, tenantId: string, nowMs = Date.now()): void {
  const { events, deliveries } = fanOutBatch(tx, nowMs)
  if (deliveries > 0 || events === FANOUT_BATCH) deliveriesQueued(tenantId)
}

/**
 * Fans out one batch of the events not yet fanned out; returns how many. Checks with a read first:
 * a visit of webhook delivery takes the tenant's write lock only when there is work.
 */
export function fanOut(db: Db, nowMs = Date.now()): number {
  if (!waitingForFanOut(db)) return 0
  return inWriteTransaction(db, (tx) => fanOutBatch(tx, nowMs).events)
}

export interface Claim {
  delivery: WebhookDeliveryRow
  attemptId: string
  attemptNumber: number
  url: string
  headers: Record<string, string>
  body: string
}

/** Closes attempts left `delivering` by a process that stopped mid-request. */
function closeInterruptedAttempts(tx: Queryable, deliveryId: string, now: string) {
  tx.update(webhookDeliveryAttempts)
    .set({
      status: 'failed',
      errorMessage: 'interrupted: the service stopped before the receiver answered',
      completedAt: now,
    })
    .where(
      and(
        eq(webhookDeliveryAttempts.deliveryId, deliveryId),
        eq(webhookDeliveryAttempts.status, 'delivering'),
      ),
    )
    .run()
}

/** Claims due deliveries: each gets an attempt row (`delivering`) and a lease, in one transaction. */
export function claimDue(db: Db, settings: DeliverySettings, nowMs = Date.now()): Claim[] {
  const now = iso(nowMs)
  const earliest = earliestAttemptAt(db)
  // A read first, as in fanOut.
  if (earliest === null || earliest > now) return []
  return inWriteTransaction(db, (tx) => {
    const due = tx
      .select()
      .from(webhookDeliveries)
      .where(
        and(
          inArray(webhookDeliveries.status, ['pending', 'delivering']),
          lte(webhookDeliveries.nextAttemptAt, now),
        ),
      )
      .orderBy(asc(webhookDeliveries.nextAttemptAt))
      .limit(CLAIM_BATCH)
      .all()
    const claims: Claim[] = []
    for (const delivery of due) {
      if (delivery.status === 'delivering') {
        closeInterruptedAttempts(tx, delivery.id, now)
        if (delivery.attemptsInCycle > settings.retryScheduleMs.length) {
          markDead(tx, delivery, 'interrupted: the service stopped during the last attempt', now)
          continue
        }
      }
      const sub = findSubscription(tx, delivery.subscriptionId)
      if (!sub) {
        markDead(tx, delivery, 'the subscription was deleted before the event could be delivered', now)
        continue
      }
      if (!sub.enabled) {
        markDead(
          tx,
          delivery,
          `the subscription is disabled${sub.disabledReason ? ` (${sub.disabledReason})` : ''}`,
          now,
        )
        continue
      }
      const event = tx.select().from(outboxEvents).where(eq(outboxEvents.id, delivery.eventId)).get()
      if (!event) {
        markDead(tx, delivery, 'the event is no longer in the outbox', now)
        continue
      }
      const body = deliveryBody(event, sub, settings.tenantId)
      const timestamp = Math.floor(nowMs / 1000)
      const headers: Record<string, string> = {
        ...sub.headers,
        'content-type': 'application/json',
        'user-agent': settings.userAgent,
        'webhook-id': delivery.messageId,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signatureHeader(signingSecrets(sub, nowMs), delivery.messageId, timestamp, body),
      }
      const recorded = { ...headers }
      for (const name of Object.keys(sub.headers)) recorded[name] = '[redacted]'
      const attemptNumber = delivery.attemptsInCycle + 1
      const attemptId = newId()
      tx.insert(webhookDeliveryAttempts)
        .values({
          id: attemptId,
          deliveryId: delivery.id,
          eventId: delivery.eventId,
          subscriptionId: sub.id,
          url: sub.url,
          attemptNumber,
          deliveryCycle: delivery.deliveryCycle,
          status: 'delivering',
          requestHeaders: recorded,
          responseStatus: null,
          hasResponseBody: false,
          responseBodyBytes: 0,
          responseExcerpt: null,
          errorMessage: null,
          startedAt: now,
          completedAt: null,
        })
        .run()
      const claimed = tx
        .update(webhookDeliveries)
        .set({
          status: 'delivering',
          attemptsInCycle: attemptNumber,
          nextAttemptAt: iso(nowMs + leaseMs(settings.timeoutMs)),
          updatedAt: now,
        })
        .where(eq(webhookDeliveries.id, delivery.id))
        .returning()
        .get()
      claims.push({ delivery: claimed, attemptId, attemptNumber, url: sub.url, headers, body })
    }
    return claims
  })
}

export interface Outcome {
  responseStatus: number | null
  hasResponseBody: boolean
  responseBodyBytes: number
  responseExcerpt: string | null
  errorMessage: string | null
  retryAfterMs: number | null
}

const isSuccess = (outcome: Outcome) =>
  outcome.errorMessage === null && outcome.responseStatus !== null && outcome.responseStatus < 300

/** `Retry-After` as seconds or an HTTP date, in milliseconds from now; null when absent or bad. */
export function parseRetryAfter(value: string | null, nowMs = Date.now()): number | null {
  if (!value) return null
  const trimmed = value.trim()
  if (/^\d+$/.test(trimmed)) return Math.min(Number(trimmed) * 1000, MAX_RETRY_AFTER_MS)
  const at = Date.parse(trimmed)
  if (Number.isNaN(at)) return null
  return Math.min(Math.max(at - nowMs, 0), MAX_RETRY_AFTER_MS)
}

async function readBody(response: Response): Promise<{ bytes: number; excerpt: string | null }> {
  if (!response.body) return { bytes: 0, excerpt: null }
  const reader = response.body.getReader()
  const kept: Uint8Array[] = []
  let keptBytes = 0
  let bytes = 0
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      bytes += value.byteLength
      if (keptBytes < EXCERPT_BYTES) {
        const part = value.subarray(0, EXCERPT_BYTES - keptBytes)
        kept.push(part)
        keptBytes += part.byteLength
      }
      if (bytes >= MAX_READ_BYTES) {
        await reader.cancel()
        break
      }
    }
  } catch {
    // A body cut off mid-stream still tells what arrived.
  }
  if (bytes === 0) return { bytes: 0, excerpt: null }
  return { bytes, excerpt: new TextDecoder().decode(Buffer.concat(kept)) }
}

/** Sends one claimed delivery. Never throws: every failure becomes part of the outcome. */
export async function sendAttempt(claim: Claim, settings: DeliverySettings): Promise<Outcome> {
  const empty = { hasResponseBody: false, responseBodyBytes: 0, responseExcerpt: null, retryAfterMs: null }
  let response: Response
  const signal = AbortSignal.timeout(settings.timeoutMs)
  try {
    response = await fetchTarget(
      claim.url,
      { method: 'POST', headers: claim.headers, body: claim.body, redirect: 'manual', signal },
      { allowPrivate: settings.allowPrivateTargets, resolveHost: settings.resolveHost },
    )
  } catch (error) {
    if (error instanceof TargetRefusedError)
      return { ...empty, responseStatus: null, errorMessage: `target refused: ${error.message}` }
    const timedOut = signal.aborted
    return {
      ...empty,
      responseStatus: null,
      errorMessage: timedOut
        ? `no answer within ${settings.timeoutMs} ms`
        : `request failed: ${error instanceof Error ? error.message : String(error)}`,
    }
  }
  const { bytes, excerpt } = await readBody(response)
  const ok = response.status >= 200 && response.status < 300
  return {
    responseStatus: response.status,
    hasResponseBody: bytes > 0,
    responseBodyBytes: bytes,
    responseExcerpt: excerpt,
    errorMessage: ok
      ? null
      : response.status >= 300 && response.status < 400
        ? `the receiver answered ${response.status} (redirects are not followed)`
        : `the receiver answered ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`,
    retryAfterMs: ok ? null : parseRetryAfter(response.headers.get('retry-after')),
  }
}

/** Records an attempt's outcome and decides what comes next for its delivery. */
export function recordOutcome(
  db: Db,
  settings: DeliverySettings,
  claim: Claim,
  outcome: Outcome,
  nowMs = Date.now(),
) {
  const now = iso(nowMs)
  inWriteTransaction(db, (tx) => {
    const success = isSuccess(outcome)
    tx.update(webhookDeliveryAttempts)
      .set({
        status: success ? 'succeeded' : 'failed',
        responseStatus: outcome.responseStatus,
        hasResponseBody: outcome.hasResponseBody,
        responseBodyBytes: outcome.responseBodyBytes,
        responseExcerpt: outcome.responseExcerpt,
        errorMessage: outcome.errorMessage,
        completedAt: now,
      })
      .where(eq(webhookDeliveryAttempts.id, claim.attemptId))
      .run()
    const delivery = tx
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.id, claim.delivery.id))
      .get()
    // Only the claim that still holds the delivery decides; a stale one (lease lost) just logs.
    if (delivery?.status !== 'delivering' || delivery.attemptsInCycle !== claim.attemptNumber) return
    if (success) {
      tx.update(webhookDeliveries)
        .set({ status: 'succeeded', nextAttemptAt: null, lastError: null, updatedAt: now })
        .where(eq(webhookDeliveries.id, delivery.id))
        .run()
      resolveDeadLetterIfDelivered(tx, delivery.eventId, now)
      return
    }
    const error = outcome.errorMessage ?? 'delivery failed'
    if (outcome.responseStatus === 410) {
      disableGoneSubscription(tx, settings.tenantId, delivery.subscriptionId, now)
      markDead(tx, delivery, `${error}: the subscription was disabled`, now)
      return
    }
    const retry = settings.retryScheduleMs[claim.attemptNumber - 1]
    if (retry === undefined) {
      markDead(tx, delivery, error, now)
      return
    }
    const delay = Math.max(retry, outcome.retryAfterMs ?? 0)
    tx.update(webhookDeliveries)
      .set({ status: 'pending', nextAttemptAt: iso(nowMs + delay), lastError: error, updatedAt: now })
      .where(eq(webhookDeliveries.id, delivery.id))
      .run()
  })
}

function disableGoneSubscription(tx: Queryable, tenantId: string, subscriptionId: string, now: string) {
  const reason = 'the receiver answered 410 Gone'
  const changed = tx
    .update(webhookSubscriptions)
    .set({ enabled: false, disabledReason: reason, updatedAt: now })
    .where(and(eq(webhookSubscriptions.id, subscriptionId), eq(webhookSubscriptions.enabled, true)))
    .returning({ id: webhookSubscriptions.id, family: webhookSubscriptions.family })
    .get()
  if (!changed) return
  recordWrite(tx, systemActor(tenantId, 'webhooks'), {
    action: 'webhook.disable',
    entityType: 'webhook_subscription',
    entityId: subscriptionId,
    metadata: { reason, family: changed.family },
  })
}

/** When the next delivery of this tenant falls due (now when events wait for fan-out), or null. */
export function nextDueAt(db: Db): number | null {
  if (waitingForFanOut(db)) return Date.now()
  const at = earliestAttemptAt(db)
  return at ? Date.parse(at) : null
}

/**
 * One pass over a tenant: fan out, claim what is due, send (a few at a time), record.
 * `database()` is asked again after each request, because the pool may have closed the handle
 * it gave before. Returns when this tenant next needs the worker, or null when nothing waits.
 */
export async function deliverTenant(
  database: () => Db,
  settings: DeliverySettings,
  signal: AbortSignal,
): Promise<number | null> {
  for (let round = 0; round < FANOUT_ROUNDS; round++) {
    if (fanOut(database()) < FANOUT_BATCH) break
    // Requests take their turn between batches of a busy tenant's backlog.
    await new Promise<void>((resolve) => setImmediate(resolve))
  }
  if (signal.aborted) return Date.now()
  const claims = claimDue(database(), settings)
  let next = 0
  const workers = Array.from({ length: Math.min(CONCURRENCY, claims.length) }, async () => {
    for (let claim = claims[next++]; claim; claim = claims[next++]) {
      const outcome = await sendAttempt(claim, settings)
      recordOutcome(database(), settings, claim, outcome)
      settings.log.debug('webhook attempt', {
        tenantId: settings.tenantId,
        deliveryId: claim.delivery.id,
        attempt: claim.attemptNumber,
        status: outcome.responseStatus,
        error: outcome.errorMessage,
      })
    }
  })
  await Promise.all(workers)
  if (claims.length === CLAIM_BATCH) return Date.now()
  return nextDueAt(database())
}
