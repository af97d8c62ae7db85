import { t } from 'elysia'
import {
  DEFAULT_ROTATION_GRACE_SECONDS,
  MAX_CUSTOM_HEADERS,
  MAX_ROTATION_GRACE_SECONDS,
} from '../../platform/events/subscriptions'
import { pageInfoSchema, pagingQuery } from '../../platform/foundation/paging'
import { int } from '../../platform/foundation/types'
import { idempotencyKeyHeader } from '../../platform/http/idempotency'

const eventName = (what: string, example: string) =>
  t.String({
    minLength: 1,
    maxLength: 100,
    pattern: '^[A-Za-z][A-Za-z0-9_.-]*$',
    description: `The event ${what} to receive, matched case-insensitively; a name the event catalogue does not have (docs/events.md) is 400. E.g. \`${example}\`.`,
  })

const targetUrl = t.String({
  minLength: 1,
  maxLength: 2000,
  description:
    'http(s) URL that receives a POST per event. Private, loopback and link-local targets are refused unless WEBHOOK_ALLOW_PRIVATE_TARGETS=true.',
})

const customHeaders = t.Record(t.String({ minLength: 1, maxLength: 100 }), t.String({ maxLength: 2000 }), {
  maxProperties: MAX_CUSTOM_HEADERS,
  description:
    'Extra headers sent with every delivery (at most 20; names lower-cased). `content-type`, `user-agent`, `host` and the `webhook-*` headers are the service’s own. Values are redacted in attempt records.',
})

const timestamps = {
  createdAt: t.String({ format: 'date-time' }),
  updatedAt: t.String({ format: 'date-time' }),
}

const subscriptionFields = {
  id: t.String({ format: 'uuid' }),
  object: t.String(),
  action: t.String(),
  url: t.String(),
  enabled: t.Boolean({
    description:
      'Disabled subscriptions receive nothing; the service disables one whose receiver answers 410.',
  }),
}

export const Webhook = t.Object(
  { ...subscriptionFields, headers: t.Record(t.String(), t.String()), ...timestamps },
  { $id: '#/components/schemas/Webhook' },
)

export const CreatedWebhook = t.Object({
  ...subscriptionFields,
  headers: t.Record(t.String(), t.String()),
  ...timestamps,
  secret: t.String({
    description: 'The `whsec_` signing secret (Standard Webhooks). Shown only in this response.',
  }),
})

export const CreateWebhook = t.Object(
  {
    object: eventName('object', 'customer'),
    action: eventName('action', 'create'),
    url: targetUrl,
    enabled: t.Optional(t.Boolean({ default: true })),
    headers: t.Optional(customHeaders),
  },
  { additionalProperties: false },
)

export const UpdateWebhook = t.Object(
  {
    object: t.Optional(eventName('object', 'customer')),
    action: t.Optional(eventName('action', 'create')),
    url: t.Optional(targetUrl),
    enabled: t.Optional(t.Boolean()),
    headers: t.Optional(customHeaders),
  },
  {
    additionalProperties: false,
    description: 'Partial update: only the fields sent change; `headers` replaces the whole map.',
  },
)

export const WebhookList = t.Object({ webhooks: t.Array(Webhook), page: pageInfoSchema })
export const WebhookListQuery = t.Object({ ...pagingQuery(100) })
export const IdParams = t.Object({ id: t.String({ minLength: 1, maxLength: 200 }) })

const boundTo = {
  locationIds: t.Nullable(
    t.Array(t.String({ format: 'uuid' }), {
      description:
        'The locations whose events it receives (made by a caller bound to them); null: every location’s events.',
    }),
  ),
}

export const TablesSubscription = t.Object(
  { ...subscriptionFields, ...boundTo, ...timestamps },
  { $id: '#/components/schemas/TablesWebhookSubscription' },
)

export const CreateTablesSubscription = t.Object(
  {
    object: eventName('object', 'reservation'),
    action: eventName('action', 'create'),
    url: targetUrl,
    enabled: t.Optional(t.Boolean({ default: true })),
  },
  { additionalProperties: false },
)

export const CreatedTablesSubscription = t.Object({
  data: t.Object({
    ...subscriptionFields,
    ...boundTo,
    ...timestamps,
    signingSecret: t.String({
      description: 'The `whsec_` signing secret (Standard Webhooks). Shown only in this response.',
    }),
  }),
})

export const TablesSubscriptionList = t.Object({ data: t.Array(TablesSubscription) })

export const IdempotencyHeaders = t.Object({
  'idempotency-key': t.String({
    ...idempotencyKeyHeader,
    description: 'Required: the same key and request replays the first response (24 hours).',
  }),
})

export const WebHookLogQuery = t.Object({
  object: t.Optional(t.String({ maxLength: 100, description: 'Event object, case-insensitive.' })),
  action: t.Optional(t.String({ maxLength: 100, description: 'Event action, case-insensitive.' })),
  isSuccess: t.Optional(t.Boolean({ description: 'Only successful (true) or failed (false) attempts.' })),
  ...pagingQuery(100),
})

export const WebHookLog = t.Object(
  {
    id: t.String({ description: 'The delivery attempt id.' }),
    url: t.String(),
    object: t.String(),
    action: t.String(),
    payload: t.Record(t.String(), t.Unknown()),
    user: t.Nullable(t.String({ description: 'Who caused the event: a staff user id or a subject.' })),
    isSuccess: t.Boolean(),
    error: t.Nullable(
      t.Object({
        data: t.Record(t.String(), t.Unknown(), {
          description: 'The receiver’s JSON answer, or its text under `body` (first 4 KiB).',
        }),
        status: int({ description: 'The receiver’s HTTP status; 0 when no answer came.' }),
        message: t.String(),
      }),
    ),
    subscriptionId: t.String(),
    eventId: t.String(),
    attemptNumber: int({ minimum: 1 }),
    deliveryCycle: int({ minimum: 1 }),
    ...timestamps,
  },
  { $id: '#/components/schemas/WebHookLog' },
)

export const WebHookLogList = t.Object({ webHookLogs: t.Array(WebHookLog), total: int({ minimum: 0 }) })

const DeliveryAttempt = t.Object(
  {
    id: t.String(),
    subscriptionId: t.String(),
    attemptNumber: int({ minimum: 1, description: 'Within its delivery cycle.' }),
    deliveryCycle: int({ minimum: 1 }),
    status: t.Union([t.Literal('delivering'), t.Literal('succeeded'), t.Literal('failed')]),
    requestHeaders: t.Record(t.String(), t.String()),
    responseStatus: t.Nullable(int()),
    hasResponseBody: t.Boolean(),
    responseBodyBytes: int({ minimum: 0 }),
    errorMessage: t.Nullable(t.String()),
    startedAt: t.String({ format: 'date-time' }),
    completedAt: t.Nullable(t.String({ format: 'date-time' })),
  },
  { $id: '#/components/schemas/DeliveryAttempt' },
)

const deadLetterStatus = t.Union([t.Literal('pending'), t.Literal('replaying'), t.Literal('delivered')], {
  description:
    '`pending`: some subscription did not get the event; `replaying`: a replay cycle is under way; `delivered`: a replay reached every subscription that had failed.',
})

const deadLetterFields = {
  id: t.String(),
  eventId: t.String(),
  objectType: t.String(),
  action: t.String(),
  aggregateId: t.Nullable(t.String()),
  payloadKeys: t.Array(t.String()),
  status: deadLetterStatus,
  attemptCount: int({ minimum: 0 }),
  deliveryCycle: int({ minimum: 1 }),
  availableAt: t.String({ format: 'date-time', description: 'When it became (or its replay was) due.' }),
  lastError: t.Nullable(t.String()),
  ...timestamps,
  attemptSummary: t.Object({
    total: int(),
    failed: int(),
    succeeded: int(),
    delivering: int(),
  }),
  subscriptionSummary: t.Object({
    matching: int({ description: 'Subscriptions (either family) matching the event now.' }),
    enabled: int(),
  }),
  recovery: t.Object({
    eligible: t.Boolean(),
    reasonCode: t.Union([
      t.Literal('replayable'),
      t.Literal('replay_in_progress'),
      t.Literal('already_delivered'),
      t.Literal('no_enabled_subscription'),
    ]),
    reason: t.String(),
    latestAction: t.Nullable(
      t.Object({
        id: t.String(),
        action: t.Union([t.Literal('manual_review'), t.Literal('replay')]),
        deliveryCycle: int(),
        note: t.Nullable(t.String()),
        actorStaffUserId: t.Nullable(t.String()),
        createdAt: t.String({ format: 'date-time' }),
      }),
    ),
  }),
}

export const DeadLetter = t.Object(deadLetterFields, { $id: '#/components/schemas/DeadLetter' })
export const DeadLetterDetail = t.Object({ ...deadLetterFields, attempts: t.Array(DeliveryAttempt) })
export const DeadLetterList = t.Object({ deadLetters: t.Array(DeadLetter), total: int({ minimum: 0 }) })
export const DeadLetterListQuery = t.Object({ status: t.Optional(deadLetterStatus), ...pagingQuery(100) })
export const ManualReview = t.Object(
  { note: t.String({ minLength: 1, maxLength: 5000 }) },
  { additionalProperties: false },
)

export type CreateWebhookInput = typeof CreateWebhook.static
export type UpdateWebhookInput = typeof UpdateWebhook.static
export type CreateTablesSubscriptionInput = typeof CreateTablesSubscription.static

export const RotateSecret = t.Object(
  {
    graceSeconds: t.Optional(
      int({
        minimum: 0,
        maximum: MAX_ROTATION_GRACE_SECONDS,
        description: `How long the replaced secret keeps signing deliveries next to the new one; default ${DEFAULT_ROTATION_GRACE_SECONDS} (a day), 0 stops it at once.`,
        examples: [DEFAULT_ROTATION_GRACE_SECONDS],
      }),
    ),
  },
  { additionalProperties: false },
)

export type RotateSecretInput = typeof RotateSecret.static

const previousSecretExpiresAt = t.Nullable(
  t.String({
    format: 'date-time',
    description:
      'Until when deliveries also carry a signature with the replaced secret; null when they do not.',
  }),
)

export const RotatedWebhook = t.Object({
  ...subscriptionFields,
  headers: t.Record(t.String(), t.String()),
  ...timestamps,
  secret: t.String({ description: 'The new `whsec_` signing secret. Shown only in this response.' }),
  previousSecretExpiresAt,
})

export const RotatedTablesSubscription = t.Object({
  data: t.Object({
    ...subscriptionFields,
    ...boundTo,
    ...timestamps,
    signingSecret: t.String({ description: 'The new `whsec_` signing secret. Shown only in this response.' }),
    previousSecretExpiresAt,
  }),
})
