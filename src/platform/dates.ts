// Plain calendar dates (`YYYY-MM-DD`). TypeBox's `date` format checks the shape and the month's
// longest day only (it accepts 2023-02-29), so services check the calendar with this.
import { invalid } from './http/problem'

const datePattern = /^(\d{4})-(\d{2})-(\d{2})$/

/** True for a real calendar date in `YYYY-MM-DD` form (leap years included). */
export function isCalendarDate(value: string): boolean {
  const match = datePattern.exec(value)
  if (!match) return false
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])]
  if (month < 1 || month > 12 || day < 1) return false
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate()
  return day <= daysInMonth
}

/** Throws 400 `validation_failed` at `path` unless `value` is absent or a real calendar date. */
export function assertCalendarDate(path: string, value: string | null | undefined): void {
  if (value === null || value === undefined) return
  if (!isCalendarDate(value)) throw invalid(path, `${value} is not a calendar date (YYYY-MM-DD)`)
}

/** The calendar date of an instant in an IANA time zone, as `YYYY-MM-DD`. */
export function calendarDateIn(instant: Date, timeZone = 'UTC'): string {
  // en-CA formats dates as YYYY-MM-DD.
  return new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(instant)
}
