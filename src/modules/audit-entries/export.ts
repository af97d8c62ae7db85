// The audit log export (`GET /exports/audit-log`): the trail oldest first, filtered by the
// caller's locations as the list is (entries of no location are the whole business's).
import { and, asc, gt, gte, lt } from 'drizzle-orm'
import { auditEntries } from '../../platform/audit/schema'
import { scopeCondition } from '../../platform/auth/location-scope'
import type { ExportQuery, ExportSource } from '../../platform/http/export-stream'
import type { Queryable } from '../../platform/tenancy/transaction'

const columns = [
  'id',
  'createdAt',
  'action',
  'entityType',
  'entityId',
  'subject',
  'staffUserId',
  'locationId',
  'requestId',
  'method',
  'route',
  'metadata',
  'hash',
] as const

function page(db: Queryable, query: ExportQuery) {
  const rows = db
    .select()
    .from(auditEntries)
    .where(
      and(
        query.from === undefined ? undefined : gte(auditEntries.createdAt, query.from),
        query.to === undefined ? undefined : lt(auditEntries.createdAt, query.to),
        scopeCondition(query.locations, auditEntries.locationId),
        query.after === null ? undefined : gt(auditEntries.seq, Number(query.after)),
      ),
    )
    .orderBy(asc(auditEntries.seq))
    .limit(query.limit)
    .all()
  const last = rows.at(-1)
  return {
    rows: rows.map((row) => ({
      id: row.id,
      createdAt: row.createdAt,
      action: row.action,
      entityType: row.entityType,
      entityId: row.entityId,
      subject: row.subject,
      staffUserId: row.staffUserId,
      locationId: row.locationId,
      requestId: row.requestId,
      method: row.method,
      route: row.route,
      metadata: JSON.stringify(row.metadata),
      hash: row.hash,
    })),
    next: rows.length === query.limit && last ? String(last.seq) : null,
  }
}

export const auditLogExport: ExportSource = { columns, page }
