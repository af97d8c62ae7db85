// The cadence's part in when a membership is next processed (a shipment picked, a card charged):
// after its first release (service.ts, scheduleOf), or before any is planned. Dates step from an
// anchor (the last processing, else the sign-up) by the cadence: every `count` days, weeks,
// months or years. Month and year steps are counted from the anchor, not from the previous step,
// so a membership signed up on the 31st is processed on the last day of shorter months and
// returns to the 31st afterwards (no drift).
import { daysInMonth } from '../../platform/foundation/dates'
import type { Cadence } from './schema'

interface Ymd {
  year: number
  month: number
  day: number
}

const parse = (date: string): Ymd => {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number]
  return { year, month, day }
}

const format = ({ year, month, day }: Ymd): string =>
  `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`

const DAY_MS = 86_400_000

function dayNumber({ year, month, day }: Ymd): number {
  const d = new Date(0)
  d.setUTCFullYear(year, month - 1, day)
  return Math.round(d.getTime() / DAY_MS)
}

function fromDayNumber(n: number): string {
  const d = new Date(n * DAY_MS)
  return format({ year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() })
}

/** The anchor stepped `times` cadences forward (times >= 0). */
export function stepDate(anchor: string, cadence: Cadence, times: number): string {
  const start = parse(anchor)
  if (cadence.unit === 'day' || cadence.unit === 'week') {
    const days = cadence.count * times * (cadence.unit === 'week' ? 7 : 1)
    return fromDayNumber(dayNumber(start) + days)
  }
  const months = cadence.count * times * (cadence.unit === 'year' ? 12 : 1)
  const index = start.year * 12 + (start.month - 1) + months
  const year = Math.floor(index / 12)
  const month = (index % 12) + 1
  return format({ year, month, day: Math.min(start.day, daysInMonth(year, month)) })
}

/** Roughly how many cadence steps lie between two dates (never more than the true count). */
function stepsBelow(anchor: string, target: string, cadence: Cadence): number {
  const a = parse(anchor)
  const b = parse(target)
  if (cadence.unit === 'day' || cadence.unit === 'week') {
    const size = cadence.count * (cadence.unit === 'week' ? 7 : 1)
    return Math.max(0, Math.floor((dayNumber(b) - dayNumber(a)) / size) - 1)
  }
  const size = cadence.count * (cadence.unit === 'year' ? 12 : 1)
  const months = (b.year - a.year) * 12 + (b.month - a.month)
  return Math.max(0, Math.floor(months / size) - 1)
}

/**
 * The first date on the cadence grid after `anchor` (at least one step) that is not before
 * `notBefore` (the end of a hold), when given.
 */
export function nextProcessDate(anchor: string, cadence: Cadence, notBefore?: string | null): string {
  let k = Math.max(1, notBefore ? stepsBelow(anchor, notBefore, cadence) : 1)
  let date = stepDate(anchor, cadence, k)
  while (notBefore && date < notBefore) date = stepDate(anchor, cadence, ++k)
  return date
}
