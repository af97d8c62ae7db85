import { and, count, desc, eq, gte, inArray, lt, type SQL } from 'drizzle-orm'
import { auditEntries } from '../../platform/audit/schema'
import { type LocationScope, scopeCondition } from '../../platform/auth/location-scope'
import { namesOfObject, spellingsOf } from '../../platform/events/names'
import { offsetOf, type PageRequest } from '../../platform/foundation/paging'
import { invalid } from '../../platform/foundation/problem'
import type { Queryable } from '../../platform/tenancy/transaction'
import type { AuditListInput } from './model'

const datePattern = /^\d{4}-\d{2}-\d{2}$/

/** A filter bound as a UTC instant; a plain `to` date moves to the start of the next day. */
function boundary(field: 'from' | 'to', value: string): string {
  const parsed = Date.parse(datePattern.test(value) ? `${value}T00:00:00Z` : value)
  if (Number.isNaN(parsed)) throw invalid(`query/${field}`, 'not a valid date or date-time')
  const end = field === 'to' ? (datePattern.test(value) ? parsed + 86_400_000 : parsed + 1) : parsed
  return new Date(end).toISOString()
}

/**
 * An entity type and every former name of it (`club_membership`, `club-membership`): entries keep
 * the names they were written with, and the chain forbids rewriting them.
 */
const entityTypeNames = (entityType: string) => [...new Set([entityType, ...namesOfObject(entityType)])]

/** An action (`club_membership.create`) and its former spellings (`club-membership.create`). */
function actionNames(action: string): string[] {
  const dot = action.indexOf('.')
  if (dot < 1) return [action]
  const spellings = spellingsOf({ object: action.slice(0, dot), action: action.slice(dot + 1) })
  return [...new Set([action, ...spellings.map((name) => `${name.object}.${name.action}`)])]
}

export function listAuditEntries(
  db: Queryable,
  query: Omit<AuditListInput, 'page' | 'limit'> & PageRequest,
  locations: LocationScope,
) {
  const conditions: (SQL | undefined)[] = [
    query.entityType ? inArray(auditEntries.entityType, entityTypeNames(query.entityType)) : undefined,
    query.entityId ? eq(auditEntries.entityId, query.entityId) : undefined,
    query.staffUserId ? eq(auditEntries.staffUserId, query.staffUserId) : undefined,
    query.requestId ? eq(auditEntries.requestId, query.requestId) : undefined,
    query.action ? inArray(auditEntries.action, actionNames(query.action)) : undefined,
    query.subject ? eq(auditEntries.subject, query.subject) : undefined,
    query.locationId ? eq(auditEntries.locationId, query.locationId) : undefined,
    scopeCondition(locations, auditEntries.locationId),
  ]
  const from = query.from === undefined ? undefined : boundary('from', query.from)
  const to = query.to === undefined ? undefined : boundary('to', query.to)
  if (from !== undefined && to !== undefined && from >= to)
    throw invalid('query/to', 'must not be before `from`')
  if (from !== undefined) conditions.push(gte(auditEntries.createdAt, from))
  if (to !== undefined) conditions.push(lt(auditEntries.createdAt, to))
  const where = and(...conditions)
  const total = db.select({ n: count() }).from(auditEntries).where(where).get()?.n ?? 0
  const rows = db
    .select()
    .from(auditEntries)
    .where(where)
    .orderBy(desc(auditEntries.seq))
    .limit(query.limit)
    .offset(offsetOf(query))
    .all()
  return {
    auditEntries: rows.map(({ seq: _seq, prevHash: _prev, ...entry }) => entry),
    page: { total, page: query.page, limit: query.limit },
  }
}
