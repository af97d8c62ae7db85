// The time zone of a tenant (its IANA zone, `UTC` unless set), for rules that need the tenant's
// calendar inside work that carries only the tenant's id: a Dynamic tag's "within the last N days"
// is evaluated on every recorded write, by an observer that sees the transaction and the actor.
// Each open platform registers its tenant directory here (tenant ids are unique, so a process
// with several platforms, as tests have, asks each in turn).
import { type Calendar, calendarIn } from '../foundation/dates'

type TimeZoneSource = (tenantId: string) => string | undefined

const sources = new Set<TimeZoneSource>()

export function registerTimeZoneSource(source: TimeZoneSource): () => void {
  sources.add(source)
  return () => sources.delete(source)
}

export function timeZoneOfTenant(tenantId: string): string {
  for (const source of sources) {
    const zone = source(tenantId)
    if (zone) return zone
  }
  return 'UTC'
}

/** The tenant's calendar now: its date today and its zone. */
export const calendarOfTenant = (tenantId: string, now?: Date): Calendar =>
  calendarIn(timeZoneOfTenant(tenantId), now)
