// When each experience can be booked: the current version of every published, unarchived
// experience, with its slots; and the concrete start times one of them offers on a date.
import { and, asc, eq, isNotNull, isNull } from 'drizzle-orm'
import { type LocationScope, scopeCondition } from '../../platform/auth/location-scope'
import { zonedInstant } from '../../platform/foundation/dates'
import type { Queryable } from '../../platform/tenancy/transaction'
import { locationTimeZones } from '../locations'
import { addDays, weekdayOf } from './clock'
import {
  type ExperienceRow,
  type ExperienceVersionRow,
  experiences,
  experienceVersions,
  type PaymentOption,
} from './schema'

export interface Bookable {
  experience: ExperienceRow
  version: ExperienceVersionRow
  timeZone: string
}

/** Published, unarchived experiences with their current version (optionally of one location). */
export function bookableExperiences(
  db: Queryable,
  filter: { locationId?: string; experienceId?: string; within?: LocationScope } = {},
): Bookable[] {
  const held = db
    .select({ experience: experiences, version: experienceVersions })
    .from(experiences)
    .innerJoin(experienceVersions, eq(experienceVersions.id, experiences.currentVersionId))
    .where(
      and(
        isNull(experiences.archivedAt),
        isNotNull(experiences.currentVersionId),
        filter.within ? scopeCondition(filter.within, experiences.locationId) : undefined,
        filter.locationId ? eq(experiences.locationId, filter.locationId) : undefined,
        filter.experienceId ? eq(experiences.id, filter.experienceId) : undefined,
      ),
    )
    .orderBy(asc(experiences.name), asc(experiences.id))
    .all()
  const timeZones = locationTimeZones(
    db,
    held.map((h) => h.experience.locationId),
  )
  // One held at a location since removed is left out (the location gives its time zone).
  return held.flatMap((h) => {
    const timeZone = timeZones.get(h.experience.locationId)
    return timeZone === undefined ? [] : [{ ...h, timeZone }]
  })
}

/** The schedules of the experiences held within the request's locations. */
export function listSchedules(
  db: Queryable,
  filter: { locationId?: string; experienceId?: string },
  scope: LocationScope,
) {
  const bookable = bookableExperiences(db, { ...filter, within: scope })
  return {
    data: bookable.map(({ experience, version, timeZone }) => ({
      experienceId: experience.id,
      experienceVersionId: version.id,
      name: experience.name,
      publicName: version.publicName,
      locationId: experience.locationId,
      timeZone,
      visibility: version.visibility,
      partyMin: version.partyMin,
      partyMax: version.partyMax,
      cutoffMinutes: version.cutoffMinutes,
      durationMinutes: version.durationMinutes,
      slots: version.schedule,
    })),
  }
}

export interface SlotOccurrence {
  startsAt: string
  endsAt: string
  /** The local calendar date the booking is for. */
  businessDate: string
  capacity: number
  priceAmount: number
  currency: string
  paymentOption: PaymentOption
}

/** When a booking of a version that starts at `startsAt` ends. */
export const endOf = (version: ExperienceVersionRow, startsAt: string): string =>
  new Date(Date.parse(startsAt) + version.durationMinutes * 60_000).toISOString()

/** The start times a version offers on a local date, earliest first. */
export function occurrencesOn(
  version: ExperienceVersionRow,
  date: string,
  timeZone: string,
): SlotOccurrence[] {
  const weekday = weekdayOf(date)
  const found: SlotOccurrence[] = []
  for (const slot of version.schedule) {
    if (!slot.daysOfWeek.includes(weekday)) continue
    for (const time of slot.times) {
      const start = zonedInstant(date, time, timeZone)
      found.push({
        startsAt: start.toISOString(),
        endsAt: endOf(version, start.toISOString()),
        businessDate: date,
        capacity: slot.capacity,
        priceAmount: slot.priceAmount,
        currency: slot.currency,
        paymentOption: slot.paymentOption,
      })
    }
  }
  return found.sort((a, b) => a.startsAt.localeCompare(b.startsAt))
}

/** The occurrence of a version that starts at an instant (searching the dates around it). */
export function occurrenceAt(version: ExperienceVersionRow, startsAt: string, timeZone: string) {
  const day = startsAt.slice(0, 10)
  for (const date of [addDays(day, -1), day, addDays(day, 1)]) {
    const hit = occurrencesOn(version, date, timeZone).find((o) => o.startsAt === startsAt)
    if (hit) return hit
  }
  return undefined
}
