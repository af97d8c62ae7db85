// Ordering windows in a location's time zone. A window is a weekday and two `HH:MM` wall-clock
// times of the location. `startTime < endTime`: the window is that span of that day.
// `endTime < startTime`: the window runs past midnight into the next day (fri 22:00–02:00 is
// Friday 22:00 to Saturday 02:00). `endTime` may be `24:00` (end of the day). Start inclusive,
// end exclusive. Equal times are refused. An empty list of windows means no configured hours.
import { type Weekday, type WindowValue, weekdays } from './schema'

const timePattern = /^([01]\d|2[0-3]):([0-5]\d)$/

/** Minutes since midnight of `HH:MM` (and `24:00` = 1440 where allowed), else null. */
export function minutesOf(time: string, allowEndOfDay = false): number | null {
  if (allowEndOfDay && time === '24:00') return 1440
  const match = timePattern.exec(time)
  return match ? Number(match[1]) * 60 + Number(match[2]) : null
}

/** Problems with one window, as messages keyed by field. */
export function windowProblems(window: WindowValue): [string, string][] {
  const problems: [string, string][] = []
  const start = minutesOf(window.startTime)
  const end = minutesOf(window.endTime, true)
  if (start === null) problems.push(['startTime', 'a time HH:MM from 00:00 to 23:59'])
  if (end === null) problems.push(['endTime', 'a time HH:MM from 00:00 to 24:00'])
  if (start !== null && end !== null && start === end)
    problems.push(['endTime', 'must differ from startTime (a window past midnight ends before it starts)'])
  return problems
}

const dayFormatters = new Map<string, Intl.DateTimeFormat>()

function formatter(timeZone: string) {
  let f = dayFormatters.get(timeZone)
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      weekday: 'short',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    })
    dayFormatters.set(timeZone, f)
  }
  return f
}

/** The weekday and minutes since midnight of an instant on the wall clock of a time zone. */
export function localTime(instant: Date, timeZone: string): { day: Weekday; minutes: number } {
  const parts = formatter(timeZone).formatToParts(instant)
  const get = (type: string) => parts.find((p) => p.type === type)!.value
  const day = get('weekday').toLowerCase().slice(0, 3) as Weekday
  return { day, minutes: Number(get('hour')) * 60 + Number(get('minute')) }
}

const nextDay = (day: Weekday): Weekday => weekdays[(weekdays.indexOf(day) + 1) % 7]!

/** True when the local time falls in the window (a midnight-crossing window spans two days). */
export function inWindow(window: WindowValue, at: { day: Weekday; minutes: number }): boolean {
  const start = minutesOf(window.startTime)!
  const end = minutesOf(window.endTime, true)!
  if (start < end) return at.day === window.day && at.minutes >= start && at.minutes < end
  return (
    (at.day === window.day && at.minutes >= start) || (at.day === nextDay(window.day) && at.minutes < end)
  )
}

/** True when no windows are configured, or the instant falls in one of them. */
export function withinHours(windows: readonly WindowValue[], instant: Date, timeZone: string): boolean {
  if (windows.length === 0) return true
  const at = localTime(instant, timeZone)
  return windows.some((w) => inWindow(w, at))
}
