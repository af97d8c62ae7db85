// Webhook subscriptions of both families. The delivery machinery (outbox, worker, dead letters)
// is in src/platform/events; this file is what the two subscription APIs do with it.
import { and, asc, count, eq } from 'drizzle-orm'
import { diffFields } from '../../platform/audit/diff'
import { recordWrite } from '../../platform/audit/record-write'
import { boundWithin, everyLocation, type LocationScope } from '../../platform/auth/location-scope'
import {
  type SubscriptionFamily,
  type WebhookSubscriptionRow,
  webhookSubscriptions,
} from '../../platform/events/schema'
import {
  checkEventName,
  checkTargetUrl,
  DEFAULT_ROTATION_GRACE_SECONDS,
  insertSubscription,
  type NewSubscription,
  normalizeHeaders,
  rotateSecret,
} from '../../platform/events/subscriptions'
import type { Actor } from '../../platform/foundation/actor'
import { nowIso } from '../../platform/foundation/ids'
import { offsetOf, type PageRequest } from '../../platform/foundation/paging'
import { notFound } from '../../platform/foundation/problem'
import type { Db } from '../../platform/tenancy/databases'
import { inWriteTransaction, type Queryable } from '../../platform/tenancy/transaction'
import type {
  CreateTablesSubscriptionInput,
  CreateWebhookInput,
  RotateSecretInput,
  UpdateWebhookInput,
} from './model'

export interface SubscriptionSettings {
  allowPrivateTargets: boolean
}

/** A legacy webhook as the API shows it: never the secret. */
export const webhookView = (row: WebhookSubscriptionRow) => ({
  id: row.id,
  object: row.object,
  action: row.action,
  url: row.url,
  enabled: row.enabled,
  headers: row.headers,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
})

export const tablesSubscriptionView = (row: WebhookSubscriptionRow) => ({
  id: row.id,
  object: row.object,
  action: row.action,
  url: row.url,
  enabled: row.enabled,
  locationIds: row.locationIds,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
})

/** What audit metadata may say about a subscription (no secret, no header values). */
const auditView = (row: WebhookSubscriptionRow) => ({
  family: row.family,
  object: row.object,
  action: row.action,
  url: row.url,
  enabled: row.enabled,
  headerNames: Object.keys(row.headers),
  locationIds: row.locationIds,
})

/**
 * Legacy webhooks are the business's (their routes need the permission at every location); a
 * tables-API subscription is seen only by callers that reach every location it is bound to.
 */
function findOfFamily(
  db: Queryable,
  family: SubscriptionFamily,
  id: string,
  scope: LocationScope = everyLocation,
): WebhookSubscriptionRow {
  const row = db
    .select()
    .from(webhookSubscriptions)
    .where(
      and(
        eq(webhookSubscriptions.id, id),
        eq(webhookSubscriptions.family, family),
        boundWithin(scope, webhookSubscriptions.locationIds),
      ),
    )
    .get()
  if (!row) throw notFound(family === 'legacy' ? 'webhook' : 'webhook subscription', id)
  return row
}

function listOfFamily(
  db: Queryable,
  family: SubscriptionFamily,
  page: PageRequest,
  scope: LocationScope = everyLocation,
) {
  const where = and(
    eq(webhookSubscriptions.family, family),
    boundWithin(scope, webhookSubscriptions.locationIds),
  )
  const total = db.select({ n: count() }).from(webhookSubscriptions).where(where).get()?.n ?? 0
  const rows = db
    .select()
    .from(webhookSubscriptions)
    .where(where)
    .orderBy(asc(webhookSubscriptions.createdAt), asc(webhookSubscriptions.id))
    .limit(page.limit)
    .offset(offsetOf(page))
    .all()
  return { rows, total }
}

function createOfFamily(
  tx: Queryable,
  actor: Actor,
  family: SubscriptionFamily,
  input: NewSubscription,
  settings: SubscriptionSettings,
) {
  const row = insertSubscription(tx, family, input, settings.allowPrivateTargets)
  recordWrite(tx, actor, {
    action: 'webhook.create',
    entityType: 'webhook_subscription',
    entityId: row.id,
    metadata: { subscription: auditView(row) },
  })
  return row
}

function deleteOfFamily(
  tx: Queryable,
  actor: Actor,
  family: SubscriptionFamily,
  id: string,
  scope: LocationScope = everyLocation,
) {
  const row = findOfFamily(tx, family, id, scope)
  tx.delete(webhookSubscriptions).where(eq(webhookSubscriptions.id, id)).run()
  recordWrite(tx, actor, {
    action: 'webhook.delete',
    entityType: 'webhook_subscription',
    entityId: id,
    metadata: { subscription: auditView(row) },
  })
}

/** A new signing secret; the old one keeps signing next to it for the grace period. */
function rotateOfFamily(
  tx: Queryable,
  actor: Actor,
  family: SubscriptionFamily,
  id: string,
  input: RotateSecretInput,
  scope: LocationScope = everyLocation,
) {
  const graceSeconds = input.graceSeconds ?? DEFAULT_ROTATION_GRACE_SECONDS
  const row = rotateSecret(tx, findOfFamily(tx, family, id, scope), graceSeconds)
  recordWrite(tx, actor, {
    action: 'webhook.rotate_secret',
    entityType: 'webhook_subscription',
    entityId: id,
    metadata: { graceSeconds, previousSecretExpiresAt: row.previousSecretExpiresAt },
  })
  return row
}

// Legacy `/web-hook`.

export function listWebhooks(db: Queryable, page: PageRequest) {
  const { rows, total } = listOfFamily(db, 'legacy', page)
  return { webhooks: rows.map(webhookView), page: { total, page: page.page, limit: page.limit } }
}

export const getWebhook = (db: Queryable, id: string) => webhookView(findOfFamily(db, 'legacy', id))

export function createWebhook(
  db: Db,
  actor: Actor,
  input: CreateWebhookInput,
  settings: SubscriptionSettings,
) {
  return inWriteTransaction(db, (tx) => {
    const row = createOfFamily(tx, actor, 'legacy', input, settings)
    return { ...webhookView(row), secret: row.secret }
  })
}

export function updateWebhook(
  db: Db,
  actor: Actor,
  id: string,
  patch: UpdateWebhookInput,
  settings: SubscriptionSettings,
) {
  return inWriteTransaction(db, (tx) => {
    const before = findOfFamily(tx, 'legacy', id)
    if (patch.object !== undefined || patch.action !== undefined)
      checkEventName({ object: patch.object ?? before.object, action: patch.action ?? before.action })
    if (patch.url !== undefined) checkTargetUrl(patch.url, settings.allowPrivateTargets)
    const next = {
      ...patch,
      ...(patch.headers !== undefined ? { headers: normalizeHeaders(patch.headers) } : {}),
    }
    const changes = diffFields(before, next)
    if (Object.keys(changes).length === 0) return webhookView(before)
    const row = tx
      .update(webhookSubscriptions)
      .set({
        ...next,
        // Enabling again (after a 410, say) forgets why the service had disabled it.
        ...(next.enabled === true ? { disabledReason: null } : {}),
        updatedAt: nowIso(),
      })
      .where(eq(webhookSubscriptions.id, id))
      .returning()
      .get()
    if (changes.headers) changes.headers = { from: Object.keys(before.headers), to: Object.keys(row.headers) }
    recordWrite(tx, actor, {
      action: 'webhook.update',
      entityType: 'webhook_subscription',
      entityId: id,
      metadata: { changes },
    })
    return webhookView(row)
  })
}

export function rotateWebhookSecret(db: Db, actor: Actor, id: string, input: RotateSecretInput) {
  return inWriteTransaction(db, (tx) => {
    const row = rotateOfFamily(tx, actor, 'legacy', id, input)
    return { ...webhookView(row), secret: row.secret, previousSecretExpiresAt: row.previousSecretExpiresAt }
  })
}

export function deleteWebhook(db: Db, actor: Actor, id: string): void {
  inWriteTransaction(db, (tx) => deleteOfFamily(tx, actor, 'legacy', id))
}

// Tables API `/tables-api/v1/webhook-subscriptions`.

export function listTablesSubscriptions(db: Queryable, page: PageRequest, scope: LocationScope) {
  return { data: listOfFamily(db, 'tables', page, scope).rows.map(tablesSubscriptionView) }
}

/** Joins the caller's transaction (idempotentWrite) so the stored response commits with the row. */
export function createTablesSubscription(
  db: Db,
  actor: Actor,
  input: CreateTablesSubscriptionInput,
  scope: LocationScope,
  settings: SubscriptionSettings,
) {
  return inWriteTransaction(db, (tx) => {
    // A caller bound to some locations (a credential's allowlist) subscribes to their events only.
    const locationIds = scope.all ? null : scope.ids
    const row = createOfFamily(tx, actor, 'tables', { ...input, locationIds }, settings)
    return { data: { ...tablesSubscriptionView(row), signingSecret: row.secret } }
  })
}

export function deleteTablesSubscription(db: Db, actor: Actor, id: string, scope: LocationScope): void {
  inWriteTransaction(db, (tx) => deleteOfFamily(tx, actor, 'tables', id, scope))
}

/** Joins the caller's transaction (idempotentWrite) so the stored response commits with the row. */
export function rotateTablesSubscriptionSecret(
  db: Db,
  actor: Actor,
  id: string,
  input: RotateSecretInput,
  scope: LocationScope,
) {
  return inWriteTransaction(db, (tx) => {
    const row = rotateOfFamily(tx, actor, 'tables', id, input, scope)
    return {
      data: {
        ...tablesSubscriptionView(row),
        signingSecret: row.secret,
        previousSecretExpiresAt: row.previousSecretExpiresAt,
      },
    }
  })
}
