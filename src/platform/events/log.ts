// The web-hook log: every finished attempt with its event, newest first. Attempts still in
// flight appear once they finish (within the request timeout); dead letters show them at once.
import { and, count, desc, eq, inArray, ne, type SQL, sql } from 'drizzle-orm'
import { outboxEvents } from '../audit/schema'
import { offsetOf, type PageRequest } from '../foundation/paging'
import type { Queryable } from '../tenancy/transaction'
import { namesOfAction, namesOfObject } from './names'
import { type WebhookDeliveryAttemptRow, webhookDeliveryAttempts } from './schema'

export interface WebHookLogQuery extends PageRequest {
  object?: string
  action?: string
  isSuccess?: boolean
}

export interface WebHookLogEntry {
  id: string
  url: string
  object: string
  action: string
  payload: Record<string, unknown>
  user: string | null
  isSuccess: boolean
  error: { data: Record<string, unknown>; status: number; message: string } | null
  subscriptionId: string
  eventId: string
  attemptNumber: number
  deliveryCycle: number
  createdAt: string
  updatedAt: string
}

/** The receiver's answer as `error.data`: its JSON object, or its text under `body`. */
function errorData(excerpt: string | null): Record<string, unknown> {
  if (!excerpt) return {}
  try {
    const parsed: unknown = JSON.parse(excerpt)
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
      return parsed as Record<string, unknown>
    return { body: parsed }
  } catch {
    return { body: excerpt }
  }
}

function entry(
  attempt: WebhookDeliveryAttemptRow,
  event: { object: string; action: string; payload: Record<string, unknown>; user: string | null },
): WebHookLogEntry {
  const isSuccess = attempt.status === 'succeeded'
  return {
    id: attempt.id,
    url: attempt.url,
    object: event.object,
    action: event.action,
    payload: event.payload,
    user: event.user,
    isSuccess,
    error: isSuccess
      ? null
      : {
          data: errorData(attempt.responseExcerpt),
          status: attempt.responseStatus ?? 0,
          message: attempt.errorMessage ?? 'delivery failed',
        },
    subscriptionId: attempt.subscriptionId,
    eventId: attempt.eventId,
    attemptNumber: attempt.attemptNumber,
    deliveryCycle: attempt.deliveryCycle,
    createdAt: attempt.startedAt,
    updatedAt: attempt.completedAt ?? attempt.startedAt,
  }
}

export function listWebHookLog(db: Queryable, query: WebHookLogQuery) {
  const conditions: (SQL | undefined)[] = [ne(webhookDeliveryAttempts.status, 'delivering')]
  // Filters answer to an event's former names too (names.ts).
  if (query.object) conditions.push(inArray(sql`lower(${outboxEvents.object})`, namesOfObject(query.object)))
  if (query.action) conditions.push(inArray(sql`lower(${outboxEvents.action})`, namesOfAction(query.action)))
  if (query.isSuccess !== undefined)
    conditions.push(eq(webhookDeliveryAttempts.status, query.isSuccess ? 'succeeded' : 'failed'))
  const where = and(...conditions)
  const total =
    db
      .select({ n: count() })
      .from(webhookDeliveryAttempts)
      .innerJoin(outboxEvents, eq(outboxEvents.id, webhookDeliveryAttempts.eventId))
      .where(where)
      .get()?.n ?? 0
  const rows = db
    .select({
      attempt: webhookDeliveryAttempts,
      event: {
        object: outboxEvents.object,
        action: outboxEvents.action,
        payload: outboxEvents.payload,
        user: outboxEvents.user,
      },
    })
    .from(webhookDeliveryAttempts)
    .innerJoin(outboxEvents, eq(outboxEvents.id, webhookDeliveryAttempts.eventId))
    .where(where)
    .orderBy(desc(webhookDeliveryAttempts.seq))
    .limit(query.limit)
    .offset(offsetOf(query))
    .all()
  return { webHookLogs: rows.map((row) => entry(row.attempt, row.event)), total }
}
