// Opening a stream: the request's filters and resume point, checked, handed to the hub.
import type { Authenticated } from '../../platform/auth/authenticate'
import { bearerOf } from '../../platform/auth/authenticate'
import { bearerCookies } from '../../platform/auth/bearer-cookie'
import { ApiError, notFound } from '../../platform/foundation/problem'
import { outsideOpenGroups } from '../../platform/tenancy/transaction'
import { findLocation } from '../locations'
import { parseTypes } from './filter'
import type { StreamHub } from './hub'

export interface StreamRequest {
  types?: string
  locationId?: string
  since?: string
  follow?: 'true' | 'false'
  lastEventId?: string
}

export async function openEventStream(
  hub: StreamHub,
  auth: Authenticated,
  request: StreamRequest,
): Promise<Response> {
  const types = parseTypes(request.types)
  const locationId = request.locationId ?? null
  if (locationId !== null && !findLocation(auth.db, locationId)) throw notFound('location', locationId)
  // Where the stream starts is the outbox's last committed event: read once this process's open
  // group of writes (another request's, this turn) has committed, or it would count their events.
  await outsideOpenGroups(auth.db)
  // EventSource resends the URL it was opened with: the id it last received wins over `since`.
  const resumeFrom = request.lastEventId ?? request.since
  return hub.open({
    auth,
    filter: { types, locationId },
    since: resumeFrom === undefined ? null : Number(resumeFrom),
    follow: request.follow !== 'false',
  })
}

/** How long the stream cookie lasts; the token in it is checked on every stream as always. */
const COOKIE_SECONDS = 12 * 3600

/**
 * 204 setting the cookies that let the browser's EventSource (which cannot send headers) open the
 * stream with the token this request was sent with.
 */
export function streamCookieResponse(request: Request, auth: Authenticated): Response {
  const token = bearerOf(request.headers)
  // Identity headers set by a trusted proxy (AUTH_TRUST_IDENTITY_HEADERS) reach the stream as well.
  if (token === null)
    throw new ApiError('unauthenticated', 'Only a bearer token can be handed to the stream cookie')
  const secure =
    new URL(request.url).protocol === 'https:' || request.headers.get('x-forwarded-proto') === 'https'
  const headers = new Headers()
  for (const cookie of bearerCookies(token, auth.tenant.id, {
    path: '/events/stream',
    maxAgeSeconds: COOKIE_SECONDS,
    secure,
  }))
    headers.append('set-cookie', cookie)
  return new Response(null, { status: 204, headers })
}
