// Opening a stream: the request's filters and resume point, checked, handed to the hub.
import type { Authenticated } from '../../platform/auth/authenticate'
import { notFound } from '../../platform/http/problem'
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

export function openEventStream(hub: StreamHub, auth: Authenticated, request: StreamRequest): Response {
  const types = parseTypes(request.types)
  const locationId = request.locationId ?? null
  if (locationId !== null && !findLocation(auth.db, locationId)) throw notFound('location', locationId)
  // EventSource resends the URL it was opened with: the id it last received wins over `since`.
  const resumeFrom = request.lastEventId ?? request.since
  return hub.open({
    auth,
    filter: { types, locationId },
    since: resumeFrom === undefined ? null : Number(resumeFrom),
    follow: request.follow !== 'false',
  })
}
