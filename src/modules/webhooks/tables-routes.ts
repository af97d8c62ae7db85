// The tables API's webhook subscriptions. Today they authenticate staff like every route
// (`webhooks:read` / `webhooks:manage`); the `tpk_live_` credential scope `webhooks:manage` is
// added where credentials are resolved (src/platform/auth), leaving these handlers as they are.
import { Elysia, t } from 'elysia'
import type { AuthPlugin } from '../../platform/auth/plugin'
import { pageOf, pagingQuery } from '../../platform/foundation/paging'
import { idempotentWrite } from '../../platform/http/idempotency'
import {
  CreatedTablesSubscription,
  CreateTablesSubscription,
  IdempotencyHeaders,
  IdParams,
  RotatedTablesSubscription,
  RotateSecret,
  TablesSubscriptionList,
} from './model'
import {
  createTablesSubscription,
  deleteTablesSubscription,
  listTablesSubscriptions,
  rotateTablesSubscriptionSecret,
  type SubscriptionSettings,
} from './service'

export const tablesWebhookRoutes = (auth: AuthPlugin, settings: SubscriptionSettings) =>
  new Elysia({
    name: 'tables-webhook-subscriptions',
    prefix: '/tables-api/v1/webhook-subscriptions',
    detail: { tags: ['Tables API'] },
  })
    .use(auth)
    .get('', ({ db, query, locations }) => listTablesSubscriptions(db, pageOf(query), locations), {
      permission: 'webhooks:read',
      credentialScope: 'webhooks:manage',
      query: t.Object({ ...pagingQuery(100) }),
      response: TablesSubscriptionList,
      detail: {
        summary: 'List webhook subscriptions',
        description:
          'Tables-API subscriptions only (legacy `/web-hook` ones are listed there), oldest first. A caller bound to ' +
          'some locations (a credential with an allowlist, a location role) lists only subscriptions bound within them.',
      },
    })
    .post(
      '',
      ({ db, actor, body, headers, path, set, locations }) => {
        const result = idempotentWrite(
          db,
          actor,
          { key: headers['idempotency-key'], method: 'POST', path, body },
          () => ({ status: 201, body: createTablesSubscription(db, actor, body, locations, settings) }),
        )
        set.status = result.status
        if (result.replayed) set.headers['idempotent-replayed'] = 'true'
        return result.body
      },
      {
        permission: 'webhooks:manage',
        credentialScope: 'webhooks:manage',
        headers: IdempotencyHeaders,
        body: CreateTablesSubscription,
        response: { 201: CreatedTablesSubscription },
        detail: {
          summary: 'Create a webhook subscription',
          description:
            'Answers `{data}` with the `signingSecret`, shown only here (and in a replay of this request by its `idempotency-key`, ' +
            'for 24 hours, which answers the same subscription rather than creating another). Deliveries are the same as legacy webhooks’. ' +
            'Made by a caller bound to some locations (a credential with an allowlist, a location role), the subscription is bound to them ' +
            '(`locationIds`) and receives only events that happened there; made tenant-wide (`locationIds: null`) it receives every event.',
        },
      },
    )
    .post(
      '/:id/rotate-secret',
      ({ db, actor, params, body, headers, path, set, locations }) => {
        const result = idempotentWrite(
          db,
          actor,
          { key: headers['idempotency-key'], method: 'POST', path, body },
          () => ({
            status: 200,
            body: rotateTablesSubscriptionSecret(db, actor, params.id, body, locations),
          }),
        )
        set.status = result.status
        if (result.replayed) set.headers['idempotent-replayed'] = 'true'
        return result.body
      },
      {
        permission: 'webhooks:manage',
        credentialScope: 'webhooks:manage',
        headers: IdempotencyHeaders,
        params: IdParams,
        body: RotateSecret,
        response: RotatedTablesSubscription,
        detail: {
          summary: 'Rotate a webhook subscription’s signing secret',
          description:
            'Standard Webhooks secret rotation: answers a new `whsec_` secret, shown only here. For `graceSeconds` (default a day) every delivery carries two signatures, space-separated in `webhook-signature` (`v1,<new> v1,<old>`), so a receiver verifies with either while it switches; then only the new one. Rotating again drops a secret still in its grace period. Audited as `webhook.rotate_secret`.' +
            ' A replay of the same `idempotency-key` answers the same secret. A subscription the caller does not reach is 404.',
        },
      },
    )
    .delete(
      '/:id',
      ({ db, actor, params, headers, path, set, locations }) => {
        const result = idempotentWrite(
          db,
          actor,
          { key: headers['idempotency-key'], method: 'DELETE', path, body: null },
          () => {
            deleteTablesSubscription(db, actor, params.id, locations)
            return { status: 204, body: null }
          },
        )
        set.status = result.status
        if (result.replayed) set.headers['idempotent-replayed'] = 'true'
      },
      {
        permission: 'webhooks:manage',
        credentialScope: 'webhooks:manage',
        headers: IdempotencyHeaders,
        params: IdParams,
        response: { 204: t.Void() },
        detail: {
          summary: 'Delete a webhook subscription',
          description:
            'Answers 204 with no body; a replay of the same `idempotency-key` answers 204 again. A subscription bound to a location ' +
            'the caller does not reach (or a tenant-wide one, for a bound caller) is 404.',
        },
      },
    )
