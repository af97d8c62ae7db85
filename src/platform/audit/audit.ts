// The append-only, hash-chained audit trail. Every write calls appendAudit inside its own
// transaction, so a committed write always has its entry and a rolled-back one never does.
import { asc, eq, gt, sql } from 'drizzle-orm'
import type { Actor } from '../foundation/actor'
import { newId, nowIso } from '../foundation/ids'
import { preparedOn } from '../tenancy/prepared'
import { insertRow } from '../tenancy/row-by-id'
import type { Queryable } from '../tenancy/transaction'
import { type AuditEntryRow, auditEntries } from './schema'

export const GENESIS_HASH = '0'.repeat(64)

export interface AuditRecord {
  action: string
  entityType: string
  entityId: string | null
  metadata?: Record<string, unknown>
}

type HashedFields = Omit<AuditEntryRow, 'seq' | 'hash'>

function entryHash(entry: HashedFields): string {
  const canonical = JSON.stringify([
    entry.prevHash,
    entry.id,
    entry.subject,
    entry.staffUserId,
    entry.tenantId,
    entry.locationId,
    entry.requestId,
    entry.ipAddress,
    entry.userAgent,
    entry.method,
    entry.route,
    entry.action,
    entry.entityType,
    entry.entityId,
    entry.metadata,
    entry.createdAt,
  ])
  return new Bun.CryptoHasher('sha256').update(canonical).digest('hex')
}

// Every write appends an entry: the previous hash is read by a statement prepared per connection.
// By the largest seq rather than ORDER BY ... LIMIT ?: SQLite plans a statement whose LIMIT is a
// bound parameter again at each run, 7 µs of the 8 this read took (bench/README.md, seventeenth pass).
const lastHash = (tx: Queryable) =>
  preparedOn(tx, 'audit-last-hash', () =>
    tx
      .select({ hash: auditEntries.hash })
      .from(auditEntries)
      .where(eq(auditEntries.seq, sql`(SELECT max(${auditEntries.seq}) FROM ${auditEntries})`))
      .prepare(),
  ).get()?.hash

export function appendAudit(tx: Queryable, actor: Actor, record: AuditRecord): AuditEntryRow {
  const fields: HashedFields = {
    id: newId(),
    subject: actor.subject,
    staffUserId: actor.staffUserId,
    tenantId: actor.tenantId,
    locationId: actor.locationId,
    requestId: actor.requestId,
    ipAddress: actor.ipAddress,
    userAgent: actor.userAgent,
    method: actor.method,
    route: actor.route,
    action: record.action,
    entityType: record.entityType,
    entityId: record.entityId,
    metadata: record.metadata ?? {},
    createdAt: nowIso(),
    prevHash: lastHash(tx) ?? GENESIS_HASH,
  }
  return insertRow(tx, auditEntries, { ...fields, hash: entryHash(fields) })
}

export type ChainVerdict =
  | { ok: true; count: number }
  | { ok: false; count: number; firstBadEntryId: string; seq: number }

/** Recomputes the hash chain from the first entry; names the first entry that does not fit. */
export function verifyAuditChain(db: Queryable): ChainVerdict {
  let prevHash = GENESIS_HASH
  let count = 0
  let afterSeq = 0
  for (;;) {
    const batch = db
      .select()
      .from(auditEntries)
      .where(gt(auditEntries.seq, afterSeq))
      .orderBy(asc(auditEntries.seq))
      .limit(1000)
      .all()
    if (batch.length === 0) return { ok: true, count }
    for (const entry of batch) {
      const { seq, hash, ...fields } = entry
      if (entry.prevHash !== prevHash || entryHash(fields) !== hash) {
        return { ok: false, count, firstBadEntryId: entry.id, seq }
      }
      prevHash = hash
      count++
      afterSeq = seq
    }
  }
}
