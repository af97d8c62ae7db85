// Plain calendar dates (`YYYY-MM-DD`). TypeBox's and Elysia's `date` formats check the shape and
// the month's longest day only (they accept 2023-02-29), so date fields use `calendarDate()` and
// services check the calendar with these.
import { FormatRegistry } from '@sinclair/typebox'
import { t } from 'elysia'
import { invalid } from './problem'

const datePattern = /^(\d{4})-(\d{2})-(\d{2})$/
const monthDays = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

export const isLeapYear = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0

/** Days in a month (1..12) of a year. */
export const daysInMonth = (year: number, month: number): number =>
  month === 2 && isLeapYear(year) ? 29 : monthDays[month - 1]!

/** True for a real `YYYY-MM-DD` day of the proleptic Gregorian calendar (years 0001..9999). */
export function isCalendarDate(value: string): boolean {
  const match = datePattern.exec(value)
  if (!match) return false
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])]
  if (year < 1 || month < 1 || month > 12 || day < 1) return false
  return day <= daysInMonth(year, month)
}

/** Throws 400 `validation_failed` at `path` unless `value` is absent or a real calendar date. */
export function assertCalendarDate(path: string, value: string | null | undefined): void {
  if (value === null || value === undefined) return
  if (!isCalendarDate(value)) throw invalid(path, `${value} is not a calendar date (YYYY-MM-DD)`)
}

if (!FormatRegistry.Has('calendar-date')) FormatRegistry.Set('calendar-date', isCalendarDate)

/** A `YYYY-MM-DD` schema that refuses impossible days. */
export const calendarDate = (description?: string) =>
  t.String({ format: 'calendar-date', description, examples: ['2025-06-30'] })

/**
 * One formatter per (kind, time zone): building an Intl.DateTimeFormat costs far more than
 * formatting with one, and the jobs ask for every tenant's date on every run. Zones are IANA
 * names validated on input, so the map stays small; it is cleared if it ever grows past a bound.
 */
const formatters = new Map<string, Intl.DateTimeFormat>()
function formatterFor(kind: 'date' | 'parts', timeZone: string): Intl.DateTimeFormat {
  const key = `${kind} ${timeZone}`
  let formatter = formatters.get(key)
  if (!formatter) {
    formatter =
      kind === 'date'
        ? // en-CA formats dates as YYYY-MM-DD.
          new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' })
        : new Intl.DateTimeFormat('en-US', {
            timeZone,
            hourCycle: 'h23',
            year: 'numeric',
            month: 'numeric',
            day: 'numeric',
            hour: 'numeric',
            minute: 'numeric',
            second: 'numeric',
          })
    if (formatters.size >= 1000) formatters.clear()
    formatters.set(key, formatter)
  }
  return formatter
}

/** The calendar date of an instant in an IANA time zone, as `YYYY-MM-DD`. */
export function calendarDateIn(instant: Date, timeZone = 'UTC'): string {
  return formatterFor('date', timeZone).format(instant)
}

/** Today's date in an IANA time zone, as `YYYY-MM-DD`. */
export const todayIn = (timeZone: string, now: Date = new Date()): string => calendarDateIn(now, timeZone)

/** A tenant's calendar: its date today, and its zone, which gives a stored timestamp its date. */
export interface Calendar {
  today: string
  timeZone: string
}

export const calendarIn = (timeZone: string, now: Date = new Date()): Calendar => ({
  today: todayIn(timeZone, now),
  timeZone,
})

const zonedTimestamp = /^\d{4}-\d{2}-\d{2}T[^ ]*(Z|[+-]\d{2}:?\d{2})$/

/**
 * The calendar date a stored value stands for: a timestamp with its offset (`createdAt`) on the
 * calendar's zone, so "created on 27 November" means the tenant's 27 November; anything else by
 * its first ten characters (a date of birth is a date). Null when that is no calendar date.
 */
export function dateOnCalendar(value: string, calendar: Calendar): string | null {
  const instant = zonedTimestamp.test(value) ? new Date(value) : null
  const date =
    instant && !Number.isNaN(instant.getTime())
      ? calendarDateIn(instant, calendar.timeZone)
      : value.slice(0, 10)
  return isCalendarDate(date) ? date : null
}

/** Offset of a time zone from UTC at an instant, in milliseconds. */
export function zoneOffsetMs(instant: number, timeZone: string): number {
  const parts = formatterFor('parts', timeZone).formatToParts(new Date(instant))
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value)
  const wall = Date.UTC(
    part('year'),
    part('month') - 1,
    part('day'),
    part('hour'),
    part('minute'),
    part('second'),
  )
  return wall - Math.floor(instant / 1000) * 1000
}

/**
 * The instant a local date and time happen in a zone. A time skipped by a spring-forward change
 * (02:30 on that night) is taken at the offset before the change, i.e. an hour later in wall time.
 */
export function zonedInstant(date: string, time: string, timeZone: string): Date {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number]
  const [hh, mm] = time.split(':').map(Number) as [number, number]
  const wall = Date.UTC(y, m - 1, d, hh, mm)
  const first = wall - zoneOffsetMs(wall, timeZone)
  return new Date(wall - zoneOffsetMs(first, timeZone))
}
