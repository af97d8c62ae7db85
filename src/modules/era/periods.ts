// Business-date arithmetic for ERA reports: plain calendar days (YYYY-MM-DD), weeks from Monday
// (ISO), months and years, clipped to the requested range.
import type { EraTimeRange } from './schema'

const DAY_MS = 86_400_000

const toUtc = (date: string) => Date.parse(`${date}T00:00:00Z`)
const fromUtc = (ms: number) => new Date(ms).toISOString().slice(0, 10)

export const addDays = (date: string, days: number) => fromUtc(toUtc(date) + days * DAY_MS)

export const daysBetween = (start: string, end: string) => Math.round((toUtc(end) - toUtc(start)) / DAY_MS)

export interface Period {
  periodStart: string
  periodEnd: string
}

/** The period of `timeRange` holding `date`, clipped to [start, end]. */
export function periodOf(date: string, timeRange: EraTimeRange, start: string, end: string): Period {
  let from: string
  let to: string
  switch (timeRange) {
    case 'custom':
      return { periodStart: start, periodEnd: end }
    case 'day':
      from = date
      to = date
      break
    case 'week': {
      const weekday = (new Date(toUtc(date)).getUTCDay() + 6) % 7 // Monday 0 .. Sunday 6
      from = addDays(date, -weekday)
      to = addDays(from, 6)
      break
    }
    case 'month': {
      from = `${date.slice(0, 7)}-01`
      const [y, m] = [Number(date.slice(0, 4)), Number(date.slice(5, 7))]
      to = fromUtc(Date.UTC(y, m, 0))
      break
    }
    case 'year':
      from = `${date.slice(0, 4)}-01-01`
      to = `${date.slice(0, 4)}-12-31`
      break
  }
  return { periodStart: from < start ? start : from, periodEnd: to > end ? end : to }
}

/** Every period of the range, in order (so periods without activity still get rows). */
export function periodsOf(timeRange: EraTimeRange, start: string, end: string): Period[] {
  const result: Period[] = []
  let date = start
  while (date <= end) {
    const period = periodOf(date, timeRange, start, end)
    result.push(period)
    date = addDays(period.periodEnd, 1)
  }
  return result
}
