// The one write recorder: the audit entry and the outbox events of a write, appended in the
// write's own transaction (docs/architecture.md, "One write"). Services describe what they changed;
// they never assemble audit entries or events by hand, so no committed write lacks its entry and
// no rolled-back write leaves one behind.
import type { Actor } from '../foundation/actor'
import { inWriteWork, type Queryable } from '../tenancy/transaction'
import { appendAudit } from './audit'
import { appendEvent, type DomainEvent } from './outbox'

export interface WriteRecord {
  /** The audit action, `<entity>.<verb>`: `vendor.create`, `cash_drawer.close`. */
  action: string
  entityType: string
  entityId: string | null
  /** What the audit entry keeps of the change (a diff, the removed row, the reason...). */
  metadata?: Record<string, unknown>
  /**
   * The payload of the usual event, whose object is `entityType`, action the verb after the last
   * dot of `action` and aggregate `entityId`. Omitted: no such event.
   */
  event?: Record<string, unknown>
  /** Further events, or events named otherwise than the entry (a `cash_drawer` entry's `entry` event). */
  events?: readonly DomainEvent[]
}

/** Sees every recorded write in its transaction, after its entry and events (dynamic tags re-evaluate the written record). */
export type WriteObserver = (tx: Queryable, actor: Actor, record: WriteRecord) => void

const observers = new Set<WriteObserver>()

/** Adds an observer of every recorded write; answers the function that removes it. */
export function observeWrites(observer: WriteObserver): () => void {
  observers.add(observer)
  return () => observers.delete(observer)
}

export function recordWrite(tx: Queryable, actor: Actor, record: WriteRecord): void {
  if (!inWriteWork(tx)) {
    // A recorder outside a transaction could commit an entry for a write that then fails.
    throw new Error(`recordWrite(${record.action}) must run inside the write's transaction`)
  }
  appendAudit(tx, actor, {
    action: record.action,
    entityType: record.entityType,
    entityId: record.entityId,
    metadata: record.metadata,
  })
  if (record.event) {
    appendEvent(tx, actor, {
      object: record.entityType,
      action: record.action.slice(record.action.lastIndexOf('.') + 1),
      aggregateId: record.entityId,
      payload: record.event,
    })
  }
  for (const event of record.events ?? []) appendEvent(tx, actor, event)
  for (const observer of observers) observer(tx, actor, record)
}
