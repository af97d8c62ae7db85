// Every location a request names: the x-location-id header, and any `locationId`-like field
// (`locationId`, `locationIds`, `reservationLocationId`, `location_id`...) in the path
// parameters, the query string or the JSON body (nested objects and arrays included).
// A `vps_` session may name only its own location; a `tpk_live_` credential only allowlisted ones.

const locationKey = /^(location|.*[a-z0-9]Location)Ids?$|^(.*_)?location_ids?$/

export interface RequestParts {
  params?: unknown
  query?: unknown
  body?: unknown
}

const MAX_DEPTH = 8

function collect(value: unknown, found: Set<string>, depth: number) {
  if (depth > MAX_DEPTH || value === null || typeof value !== 'object') return
  if (Array.isArray(value)) {
    for (const item of value) collect(item, found, depth + 1)
    return
  }
  for (const [key, field] of Object.entries(value)) {
    if (locationKey.test(key)) {
      if (typeof field === 'string') found.add(field)
      else if (Array.isArray(field)) for (const item of field) if (typeof item === 'string') found.add(item)
    } else {
      collect(field, found, depth + 1)
    }
  }
}

export function namedLocations(headers: Headers, parts: RequestParts): string[] {
  const found = new Set<string>()
  const header = headers.get('x-location-id')
  if (header !== null) found.add(header)
  collect(parts.params, found, 0)
  collect(parts.query, found, 0)
  collect(parts.body, found, 0)
  return [...found]
}

/** The location a request is "at": a path parameter first, then x-location-id, then any other. */
export function primaryLocation(headers: Headers, parts: RequestParts, named: string[]): string | null {
  const fromPath = (parts.params as Record<string, unknown> | undefined)?.locationId
  if (typeof fromPath === 'string') return fromPath
  return headers.get('x-location-id') ?? named[0] ?? null
}
