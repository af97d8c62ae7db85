// Which events one stream sends, and under which name: the caller's `types` and `locationId`, then
// what it may read. An event needs the read permission of what it carries (the catalogue's
// `readPermission`) where it happened; a caller holding it at some locations only sees the events
// of those locations, never one of another location or of none: the rule a tables-API webhook
// subscription bound to locations follows (src/platform/events/subscriptions.ts).
import type { LocationScope } from '../../platform/auth/location-scope'
import type { Permission } from '../../platform/auth/permissions'
import {
  currentName,
  type EventName,
  nameFor,
  readPermissionOf,
  sameEvent,
  unknownEventProblem,
} from '../../platform/events/names'
import { invalid } from '../../platform/foundation/problem'
import { MAX_STREAM_TYPES } from './model'

export interface StreamFilter {
  /** The names asked for (null: every event). */
  types: EventName[] | null
  locationId: string | null
}

/** `types=order.create,cash_drawer.close`: 400 naming `query/types` for a name no event has. */
export function parseTypes(raw: string | undefined): EventName[] | null {
  if (raw === undefined || raw.trim() === '') return null
  const names = [
    ...new Set(
      raw
        .split(',')
        .map((part) => part.trim())
        .filter(Boolean),
    ),
  ]
  if (names.length > MAX_STREAM_TYPES) throw invalid('query/types', `at most ${MAX_STREAM_TYPES} event names`)
  return names.map((name) => {
    const dot = name.indexOf('.')
    if (dot <= 0 || dot === name.length - 1)
      throw invalid('query/types', `"${name.slice(0, 100)}" is not an event name such as order.create`)
    const event = { object: name.slice(0, dot), action: name.slice(dot + 1) }
    const problem = unknownEventProblem(event)
    if (problem) throw invalid('query/types', problem.message)
    return event
  })
}

/** What a stream knows of the event it decides on. */
export interface EventFacts extends EventName {
  locationId: string | null
}

/**
 * The name the event goes out under, or null when this stream does not send it. `reach` answers
 * where the caller holds a permission (the request's authentication).
 */
export function nameToSend(
  event: EventFacts,
  filter: StreamFilter,
  reach: (permission: Permission) => LocationScope,
): EventName | null {
  if (filter.locationId !== null && event.locationId !== filter.locationId) return null
  const permission = readPermissionOf(event)
  if (permission === null) return null
  const scope = reach(permission)
  if (!scope.all && (event.locationId === null || !scope.ids.includes(event.locationId))) return null
  if (filter.types === null) return currentName(event)
  const asked = filter.types.find((name) => sameEvent(name, event))
  return asked ? nameFor(asked, event) : null
}
