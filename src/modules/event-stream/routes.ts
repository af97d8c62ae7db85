import { Elysia, t } from 'elysia'
import type { AuthPlugin } from '../../platform/auth/plugin'
import type { StreamHub } from './hub'
import { EventStreamHeaders, EventStreamQuery, eventStreamResponse } from './model'
import { openEventStream, streamCookieResponse } from './service'

const summary = 'Follow the tenant’s events live (server-sent events)'
const description =
  'The events of the catalogue (the document’s `webhooks`) as they commit, with the names and payloads webhooks carry, as a `text/event-stream` for `EventSource`. ' +
  'An event is sent when the caller holds the read permission of what it carries where it happened (a caller bound to locations sees only theirs, and no event of no location); `types` and `locationId` narrow further. ' +
  'Resume after a disconnection with `Last-Event-ID` (EventSource sends it) or `since`: every event after that id comes once, in order, none skipped, within `EVENT_STREAM_RETENTION`; an older or unknown id gets a `reset` event. ' +
  'At most `EVENT_STREAM_MAX_PER_CREDENTIAL` streams per credential (across the server’s HTTP workers) and `EVENT_STREAM_MAX_STREAMS` per process: one more is 429.'

/** Each route its own options: Elysia's macros write into them. */
const options = () =>
  ({
    query: EventStreamQuery,
    headers: EventStreamHeaders,
    detail: { summary, description, responses: { 200: eventStreamResponse }, 'x-problems': ['rate_limited'] },
  }) as const

/** `/events/stream` for staff and sessions; its tables-API twin also takes a `tpk_live_` credential with `events:read`. */
export const eventStreamRoutes = (auth: AuthPlugin, hub: StreamHub) =>
  new Elysia({ name: 'event-stream', detail: { tags: ['Events'] } })
    .use(auth)
    .get(
      '/events/stream',
      ({ db, actor, tenant, permissions, locations, reach, recheck, query, headers }) =>
        openEventStream(
          hub,
          { db, actor, tenant, permissions, locations, reach, recheck },
          { ...query, lastEventId: headers['last-event-id'] },
        ),
      { permission: 'events:read', bearerCookie: true, ...options() },
    )
    .post(
      '/events/stream/cookie',
      ({ request, db, actor, tenant, permissions, locations, reach, recheck }) =>
        streamCookieResponse(request, { db, actor, tenant, permissions, locations, reach, recheck }),
      {
        permission: 'events:read',
        response: { 204: t.Void() },
        detail: {
          summary: 'Let the browser’s EventSource open the stream',
          description:
            'EventSource cannot send an Authorization header. This answers 204 with two cookies (HttpOnly, SameSite=Strict, `Path=/events/stream`, 12 hours) holding the bearer token this request was sent with and its tenant; `GET /events/stream` sent without an Authorization header authenticates with them, as strictly as with the header. The token never goes into a URL.',
        },
      },
    )
    .get(
      '/tables-api/v1/events/stream',
      ({ db, actor, tenant, permissions, locations, reach, recheck, query, headers }) =>
        openEventStream(
          hub,
          { db, actor, tenant, permissions, locations, reach, recheck },
          { ...query, lastEventId: headers['last-event-id'] },
        ),
      { permission: 'events:read', credentialScope: 'events:read', ...options() },
    )
