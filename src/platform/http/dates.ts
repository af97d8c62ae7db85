// Plain calendar dates (`YYYY-MM-DD`): a strict schema format and "today" in a tenant's zone.
// Elysia's own `date` format also accepts other spellings and rolls 2023-02-30 over to March,
// so date-only fields use `calendar-date` instead.
import { FormatRegistry } from '@sinclair/typebox'
import { t } from 'elysia'

const datePattern = /^(\d{4})-(\d{2})-(\d{2})$/

/** True for a real `YYYY-MM-DD` day of the proleptic Gregorian calendar (years 0001..9999). */
export function isCalendarDate(value: string): boolean {
  const match = datePattern.exec(value)
  if (!match) return false
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])]
  if (year < 1 || month < 1 || month > 12 || day < 1) return false
  return day <= daysInMonth(year, month)
}

const monthDays = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

/** Days in a month (1..12) of a year. */
export const daysInMonth = (year: number, month: number): number =>
  month === 2 && isLeapYear(year) ? 29 : monthDays[month - 1]!

export const isLeapYear = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0

if (!FormatRegistry.Has('calendar-date')) FormatRegistry.Set('calendar-date', isCalendarDate)

/** A `YYYY-MM-DD` schema (OpenAPI shows it as format `date`). */
export const calendarDate = (description?: string) =>
  t.String({ format: 'calendar-date', description, examples: ['2025-06-30'] })

/** Today's date in a IANA time zone, as `YYYY-MM-DD`. */
export function todayIn(timeZone: string, now: Date = new Date()): string {
  return new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(now)
}
