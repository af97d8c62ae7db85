import type { Actor } from '../../platform/foundation/actor'
import { invalid } from '../../platform/foundation/problem'

import type { Queryable } from '../../platform/tenancy/transaction'
import { findLocation, type LocationRow, onlyLocation } from '../locations'

export const TIME_PATTERN = '^([01][0-9]|2[0-3]):[0-5][0-9]$'

/** 0 = Sunday .. 6 = Saturday of a calendar date (a date has no zone). */
export function weekdayOf(date: string): number {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number]
  return new Date(Date.UTC(y, m - 1, d)).getUTCDay()
}

/** The calendar date `days` after `date`. */
export function addDays(date: string, days: number): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number]
  return new Date(Date.UTC(y, m - 1, d + days)).toISOString().slice(0, 10)
}

/**
 * The location a write is for: the one given, else the request's location (`x-location-id`),
 * else the tenant's only location. 400 when it names no location of this tenant, or when the
 * tenant has several and none was named.
 */
export function chooseLocation(
  db: Queryable,
  actor: Actor,
  given: string | undefined,
  path: string,
): LocationRow {
  const id = given ?? actor.locationId ?? undefined
  if (id !== undefined) {
    const row = findLocation(db, id)
    if (!row) throw invalid(path, `no location ${id} in this tenant`)
    return row
  }
  const only = onlyLocation(db)
  if (only) return only
  throw invalid(path, 'this tenant has several locations: name one (or send x-location-id)')
}
