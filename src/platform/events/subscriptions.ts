// Webhook subscriptions, shared by both families (legacy `/web-hook` and the tables API): the
// rules for targets and custom headers, which subscriptions an event matches, and secret rotation.
import { and, eq, or, sql } from 'drizzle-orm'
import { newId, nowIso } from '../foundation/ids'
import { invalid } from '../foundation/problem'
import type { Queryable } from '../tenancy/transaction'
import { type EventName, sameEvent, spellingsOf, unknownEventProblem } from './names'
import { type SubscriptionFamily, type WebhookSubscriptionRow, webhookSubscriptions } from './schema'
import { newSigningSecret } from './signing'
import { targetUrlProblem } from './targets'

/** Headers the service sets itself; a subscription's custom headers may not replace them. */
const reservedHeaders = new Set([
  'content-type',
  'content-length',
  'content-encoding',
  'transfer-encoding',
  'connection',
  'host',
  'user-agent',
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
])

const headerName = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/

export const MAX_CUSTOM_HEADERS = 20

/** 400 naming `object` or `action` when no event of the catalogue answers to the name. */
export function checkEventName(name: EventName): void {
  const problem = unknownEventProblem(name)
  if (problem) throw invalid(`body/${problem.field}`, problem.message)
}

export function checkTargetUrl(url: string, allowPrivate: boolean): void {
  const problem = targetUrlProblem(url, allowPrivate)
  if (problem) throw invalid('body/url', problem)
}

/** Custom headers, names lower-cased; throws validation_failed naming the bad header. */
export function normalizeHeaders(headers: Record<string, string> | undefined): Record<string, string> {
  const result: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers ?? {})) {
    const lower = name.toLowerCase()
    if (!headerName.test(name)) throw invalid(`body/headers/${name}`, 'is not a valid header name')
    if (reservedHeaders.has(lower))
      throw invalid(`body/headers/${name}`, 'is set by the service and cannot be overridden')
    if (/[\r\n\0]/.test(value)) throw invalid(`body/headers/${name}`, 'must not contain line breaks')
    result[lower] = value
  }
  if (Object.keys(result).length > MAX_CUSTOM_HEADERS)
    throw invalid('body/headers', `at most ${MAX_CUSTOM_HEADERS} custom headers`)
  return result
}

export interface NewSubscription {
  object: string
  action: string
  url: string
  enabled?: boolean
  headers?: Record<string, string>
  /** Bound to these locations' events (null: every location's). */
  locationIds?: readonly string[] | null
}

export function insertSubscription(
  tx: Queryable,
  family: SubscriptionFamily,
  input: NewSubscription,
  allowPrivate: boolean,
): WebhookSubscriptionRow {
  checkEventName(input)
  checkTargetUrl(input.url, allowPrivate)
  const now = nowIso()
  return tx
    .insert(webhookSubscriptions)
    .values({
      id: newId(),
      family,
      object: input.object,
      action: input.action,
      url: input.url,
      enabled: input.enabled ?? true,
      disabledReason: null,
      headers: normalizeHeaders(input.headers),
      secret: newSigningSecret(),
      previousSecret: null,
      previousSecretExpiresAt: null,
      locationIds: input.locationIds ? [...input.locationIds] : null,
      createdAt: now,
      updatedAt: now,
    })
    .returning()
    .get()
}

/** Subscriptions to the event under any of its names, current or former (names.ts). */
const matches = (event: EventName) =>
  or(
    ...spellingsOf(event).map(({ object, action }) =>
      and(
        eq(sql`lower(${webhookSubscriptions.object})`, object),
        eq(sql`lower(${webhookSubscriptions.action})`, action),
      ),
    ),
  )

/** A subscription bound to locations receives only events that happened at one of them. */
const receivesAt = (sub: WebhookSubscriptionRow, locationId: string | null) =>
  sub.locationIds === null || (locationId !== null && sub.locationIds.includes(locationId))

/** Subscriptions of either family that receive the event (its `object`, `action` and location). */
export function matchingSubscriptions(db: Queryable, event: EventKey): WebhookSubscriptionRow[] {
  return db
    .select()
    .from(webhookSubscriptions)
    .where(matches(event))
    .all()
    .filter((sub) => receivesAt(sub, event.locationId))
}

export interface EventKey {
  object: string
  action: string
  locationId: string | null
}

export function subscriptionMatches(sub: WebhookSubscriptionRow, event: EventKey): boolean {
  return sameEvent(sub, event) && receivesAt(sub, event.locationId)
}

export function findSubscription(db: Queryable, id: string): WebhookSubscriptionRow | undefined {
  return db.select().from(webhookSubscriptions).where(eq(webhookSubscriptions.id, id)).get()
}

/** The default and longest grace period of a rotated secret. */
export const DEFAULT_ROTATION_GRACE_SECONDS = 24 * 3600
export const MAX_ROTATION_GRACE_SECONDS = 7 * 24 * 3600

/**
 * A new signing secret for the subscription; the one it replaces keeps signing deliveries, next to
 * the new one, for `graceSeconds` (0: it stops at once). A secret still in its grace period from
 * an earlier rotation is dropped: only the newest two ever sign.
 */
export function rotateSecret(
  tx: Queryable,
  sub: WebhookSubscriptionRow,
  graceSeconds: number,
): WebhookSubscriptionRow {
  const now = Date.now()
  return tx
    .update(webhookSubscriptions)
    .set({
      secret: newSigningSecret(),
      previousSecret: graceSeconds > 0 ? sub.secret : null,
      previousSecretExpiresAt: graceSeconds > 0 ? new Date(now + graceSeconds * 1000).toISOString() : null,
      updatedAt: nowIso(),
    })
    .where(eq(webhookSubscriptions.id, sub.id))
    .returning()
    .get()
}

/** The secrets a delivery is signed with at `nowMs`: the current one, and the previous one in its grace period. */
export function signingSecrets(sub: WebhookSubscriptionRow, nowMs: number): string[] {
  const previousValid =
    sub.previousSecret !== null &&
    sub.previousSecretExpiresAt !== null &&
    Date.parse(sub.previousSecretExpiresAt) > nowMs
  return previousValid ? [sub.secret, sub.previousSecret!] : [sub.secret]
}
