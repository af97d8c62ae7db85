// Appending events to the transactional outbox, and reading them back. Webhook delivery fans them
// out as they commit (platform/events/delivery.ts); the live event stream
// (src/modules/event-stream) reads them after their commit;
// writing them in the same transaction as the change means no committed change loses its event.
import { and, asc, gt, lte, max, min } from 'drizzle-orm'
import type { Actor } from '../foundation/actor'
import { newId, nowIso } from '../foundation/ids'
import { insertRow } from '../tenancy/row-by-id'
import type { Queryable } from '../tenancy/transaction'
import { type OutboxEventRow, outboxEvents } from './schema'

export interface DomainEvent {
  /** Lower-case object name, as Commerce7 sends it: `customer`, `order`, `vendor`... */
  object: string
  /** `create`, `update`, `delete`, or a domain verb such as `submit` or `merge`. */
  action: string
  aggregateId: string | null
  payload: Record<string, unknown>
}

type AppendListener = (tenantId: string) => void
const listeners = new Set<AppendListener>()

/**
 * Tells `listener` the tenant of every event appended in this process (the live event stream's
 * wake-up hint). Returns the function that removes the listener.
 */
export function onEventAppended(listener: AppendListener): () => void {
  listeners.add(listener)
  return () => listeners.delete(listener)
}

/**
 * Where the event happened: the location of the record it carries (its payload's `locationId`),
 * else where the actor acted. Subscriptions bound to locations receive only their locations' events.
 */
function eventLocation(event: DomainEvent, actor: Actor): string | null {
  const own = event.payload.locationId
  return typeof own === 'string' ? own : actor.locationId
}

export function appendEvent(tx: Queryable, actor: Actor, event: DomainEvent): OutboxEventRow {
  // A hint only: the transaction commits synchronously before any listener's work can run.
  for (const listener of listeners) listener(actor.tenantId)
  return insertRow(tx, outboxEvents, {
    id: newId(),
    object: event.object,
    action: event.action,
    aggregateId: event.aggregateId,
    payload: event.payload,
    user: actor.staffUserId ?? actor.subject,
    locationId: eventLocation(event, actor),
    requestId: actor.requestId,
    createdAt: nowIso(),
    dispatchedAt: null,
  })
}

/** The newest event's position in the outbox (0: none yet). */
export function lastEventSeq(db: Queryable): number {
  return (
    db
      .select({ seq: max(outboxEvents.seq) })
      .from(outboxEvents)
      .get()?.seq ?? 0
  )
}

/** Events after position `after`, up to `through`, oldest first: at most `limit`. */
export function eventsBetween(
  db: Queryable,
  after: number,
  through: number,
  limit: number,
): OutboxEventRow[] {
  return db
    .select()
    .from(outboxEvents)
    .where(and(gt(outboxEvents.seq, after), lte(outboxEvents.seq, through)))
    .orderBy(asc(outboxEvents.seq))
    .limit(limit)
    .all()
}

/**
 * Whether every event after position `after` is still in the outbox and written at or after
 * `notBefore` (an ISO time): what resuming from `after` needs. The outbox keeps every event (no
 * job prunes it); the oldest position is checked all the same, so a pruned outbox would answer
 * false rather than skip what it lost.
 */
export function resumableAfter(db: Queryable, after: number, notBefore: string): boolean {
  const oldest =
    db
      .select({ seq: min(outboxEvents.seq) })
      .from(outboxEvents)
      .get()?.seq ?? null
  if (oldest !== null && after < oldest - 1) return false
  const next = db
    .select({ createdAt: outboxEvents.createdAt })
    .from(outboxEvents)
    .where(gt(outboxEvents.seq, after))
    .orderBy(asc(outboxEvents.seq))
    .limit(1)
    .get()
  return next === undefined || next.createdAt >= notBefore
}
