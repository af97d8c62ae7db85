import { t } from 'elysia'
import { oneOf } from '../../platform/foundation/types'

/** An outbox position: what `id:` carries and `Last-Event-ID` / `since` send back. */
const position = (description: string) => t.String({ pattern: '^[0-9]{1,15}$', maxLength: 15, description })

export const MAX_STREAM_TYPES = 100

export const EventStreamQuery = t.Object({
  types: t.Optional(
    t.String({
      maxLength: 4000,
      description:
        'Comma-separated event names of the catalogue (`order.create,order.update`); former names are accepted, and events come under the name asked for. Absent: every event the caller may read.',
    }),
  ),
  locationId: t.Optional(
    t.String({
      maxLength: 100,
      description: 'Only events that happened at this location (one the caller reaches).',
    }),
  ),
  since: t.Optional(
    position(
      'Resume just after this event id (`Last-Event-ID` wins when both are sent). Older than `EVENT_STREAM_RETENTION`: a `reset` event.',
    ),
  ),
  follow: t.Optional(
    oneOf(['true', 'false'], {
      description:
        '`false`: send what is there after `since` (or nothing) and end with `end` (`reason: caught_up`), for clients that sync now and then. Default `true`: stay open.',
    }),
  ),
})

export const EventStreamHeaders = t.Object({
  'last-event-id': t.Optional(
    position('The `id:` of the last event received: the stream resumes just after it.'),
  ),
})

/** The OpenAPI description of the stream's answer: `text/event-stream`, not JSON. */
export const eventStreamResponse = {
  description:
    'A `text/event-stream`. Each event of the catalogue (`webhooks`) the caller may read is one message: `id:` its position in the tenant outbox, `event:` its name (`order.create`), `data:` the same JSON body a webhook receives (`{object, action, payload, user, tenantId}`). ' +
    'Besides them: `reset` (`data: {reason, since, resumeFrom}`: the id asked to resume from is older than the retention window or unknown; refetch what you show, the stream goes on from `resumeFrom`), ' +
    '`end` (`data: {reason, detail}`, then the stream closes; `reason` is `access_revoked`, `slow_client`, `tenant_moved`, `server_stopping` or `caught_up`; reconnect with `Last-Event-ID` except after `access_revoked`), ' +
    'and a comment line (`: heartbeat`) every 15 s.',
  content: { 'text/event-stream': { schema: { type: 'string' } } },
} as const
