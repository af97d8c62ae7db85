// Legacy webhooks (`/web-hook`), the delivery log (`/web-hook-log`) and dead letters
// (`/web-hook-dead-letters`). Delivery itself is the worker's (src/platform/events).
import { Elysia, t } from 'elysia'
import type { AuthPlugin } from '../../platform/auth/plugin'
import {
  getDeadLetter,
  listDeadLetters,
  replayDeadLetter,
  reviewDeadLetter,
} from '../../platform/events/dead-letters'
import { listWebHookLog } from '../../platform/events/log'
import { pageOf } from '../../platform/foundation/paging'
import {
  CreatedWebhook,
  CreateWebhook,
  DeadLetter,
  DeadLetterDetail,
  DeadLetterList,
  DeadLetterListQuery,
  IdParams,
  ManualReview,
  RotatedWebhook,
  RotateSecret,
  UpdateWebhook,
  WebHookLogList,
  WebHookLogQuery,
  Webhook,
  WebhookList,
  WebhookListQuery,
} from './model'
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhooks,
  rotateWebhookSecret,
  type SubscriptionSettings,
  updateWebhook,
} from './service'

const deliveryRules =
  'Each matching event is POSTed as `{object, action, payload, user, tenantId}` with Standard Webhooks headers ' +
  '(`webhook-id`, stable across retries and replays; `webhook-timestamp`; `webhook-signature: v1,<base64 HMAC-SHA256>` ' +
  'keyed with the `whsec_` secret). 2xx is success; other answers and timeouts retry on WEBHOOK_RETRY_SCHEDULE ' +
  '(honouring `Retry-After`); 410 disables the subscription; a spent schedule makes a dead letter.'

export const webhookRoutes = (auth: AuthPlugin, settings: SubscriptionSettings) =>
  new Elysia({ name: 'webhooks', detail: { tags: ['Webhooks'] } })
    .use(auth)
    .get('/web-hook', ({ db, query }) => listWebhooks(db, pageOf(query)), {
      permission: 'webhooks:read',
      tenantWide: true,
      query: WebhookListQuery,
      response: WebhookList,
      detail: { summary: 'List webhooks', description: 'Oldest first. The secret is never listed.' },
    })
    .post(
      '/web-hook',
      ({ db, actor, body, set }) => {
        set.status = 201
        return createWebhook(db, actor, body, settings)
      },
      {
        permission: 'webhooks:manage',
        tenantWide: true,
        body: CreateWebhook,
        response: { 201: CreatedWebhook },
        detail: {
          summary: 'Create a webhook',
          description: `Answers the webhook with its \`secret\`, shown only here. ${deliveryRules}`,
        },
      },
    )
    .get('/web-hook/:id', ({ db, params }) => getWebhook(db, params.id), {
      permission: 'webhooks:read',
      tenantWide: true,
      params: IdParams,
      response: Webhook,
      detail: { summary: 'Get a webhook' },
    })
    .put(
      '/web-hook/:id',
      ({ db, actor, params, body }) => updateWebhook(db, actor, params.id, body, settings),
      {
        permission: 'webhooks:manage',
        tenantWide: true,
        params: IdParams,
        body: UpdateWebhook,
        response: Webhook,
        detail: {
          summary: 'Update a webhook',
          description:
            'Not in the published table; added so a subscription can be re-enabled (after a 410 disabled it) or moved. ' +
            'Partial: fields not sent keep their value. The secret does not change.',
        },
      },
    )
    .post(
      '/web-hook/:id/rotate-secret',
      ({ db, actor, params, body }) => rotateWebhookSecret(db, actor, params.id, body),
      {
        permission: 'webhooks:manage',
        tenantWide: true,
        params: IdParams,
        body: RotateSecret,
        response: RotatedWebhook,
        detail: {
          summary: 'Rotate a webhook’s signing secret',
          description:
            'Standard Webhooks secret rotation: answers a new `whsec_` secret, shown only here. For `graceSeconds` (default a day) every delivery carries two signatures, space-separated in `webhook-signature` (`v1,<new> v1,<old>`), so a receiver verifies with either while it switches; then only the new one. Rotating again drops a secret still in its grace period. Audited as `webhook.rotate_secret`.',
        },
      },
    )
    .delete(
      '/web-hook/:id',
      ({ db, actor, params, set }) => {
        deleteWebhook(db, actor, params.id)
        set.status = 204
      },
      {
        permission: 'webhooks:manage',
        tenantWide: true,
        params: IdParams,
        response: { 204: t.Void() },
        detail: {
          summary: 'Delete a webhook',
          description:
            'Answers 204 with no body. Deliveries still pending for it become dead letters (not replayable without an enabled subscription).',
        },
      },
    )
    .get('/web-hook-log', ({ db, query }) => listWebHookLog(db, { ...query, ...pageOf(query) }), {
      permission: 'webhooks:read',
      tenantWide: true,
      query: WebHookLogQuery,
      response: WebHookLogList,
      detail: {
        summary: 'List delivery attempts',
        description:
          'Every finished delivery attempt, newest first, with its event. Failed ones carry `error {data, status, message}`. ' +
          'Attempts still in flight appear once they finish.',
      },
    })
    .get(
      '/web-hook-dead-letters',
      ({ db, query }) => listDeadLetters(db, { status: query.status, ...pageOf(query) }),
      {
        permission: 'webhooks:read',
        tenantWide: true,
        query: DeadLetterListQuery,
        response: DeadLetterList,
        detail: {
          summary: 'List dead letters',
          description:
            'Events some subscription did not receive within the retry schedule, newest first. One per event.',
        },
      },
    )
    .get('/web-hook-dead-letters/:id', ({ db, params }) => getDeadLetter(db, params.id), {
      permission: 'webhooks:read',
      tenantWide: true,
      params: IdParams,
      response: DeadLetterDetail,
      detail: { summary: 'Get a dead letter', description: 'With every delivery attempt of its event.' },
    })
    .post(
      '/web-hook-dead-letters/:id/manual-review',
      ({ db, actor, params, body }) => reviewDeadLetter(db, actor, params.id, body.note),
      {
        permission: 'webhooks:manage',
        tenantWide: true,
        params: IdParams,
        body: ManualReview,
        response: DeadLetterDetail,
        detail: {
          summary: 'Record a manual review',
          description:
            'Records the note as action `manual_review` (shown as `recovery.latestAction`); the status does not change.',
        },
      },
    )
    .post(
      '/web-hook-dead-letters/:id/replay',
      ({ db, actor, params }) => replayDeadLetter(db, actor, params.id),
      {
        permission: 'webhooks:manage',
        tenantWide: true,
        params: IdParams,
        response: DeadLetter,
        detail: {
          summary: 'Replay a dead letter',
          description:
            'Starts a new delivery cycle (a fresh retry schedule) for the deliveries that failed, to their subscriptions that are still enabled and matching; ' +
            'the `webhook-id` stays the same so receivers can de-duplicate. Refused with 409 and `recovery` when `recovery.eligible` is false.',
        },
      },
    )
