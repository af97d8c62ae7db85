// Shipping rate arithmetic, exact. Weights are decimals with at most three places (thousandths of
// a pound or kilogram). To compare and divide weights of either unit without floating point,
// each is turned into an integer count of 10⁻¹¹ kg (a hundredth of a microgram) as a BigInt:
// 1 lb is exactly 0.45359237 kg, so a thousandth of a pound is 45 359 237 of those units and a
// thousandth of a kilogram 100 000 000. Prices are integer cents.
import { invalid } from '../../platform/foundation/problem'
import type { RateValue, TopRateValue, WeightUnit } from './schema'

const PER_MILLI: Record<WeightUnit, bigint> = { Lbs: 45_359_237n, Kg: 100_000_000n }

/** Thousandths of the unit when `value` has at most three decimal places, else null. */
export function toMilli(value: number): number | null {
  if (!Number.isFinite(value)) return null
  const milli = Math.round(value * 1000)
  return milli / 1000 === value ? milli : null
}

/** A weight as an exact integer of 10⁻¹¹ kg. Throws on more than three decimal places. */
export function exactWeight(value: number, unit: WeightUnit): bigint {
  const milli = toMilli(value)
  if (milli === null) throw new RangeError(`${value} has more than three decimal places`)
  return BigInt(milli) * PER_MILLI[unit]
}

export interface ServiceRates {
  rates: RateValue[]
  topRate: TopRateValue
}

const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b

/** A price beyond the top band, refused (400) past 2^53 cents, where it could not be exact. */
function exactPrice(cents: bigint): number {
  if (cents > BigInt(Number.MAX_SAFE_INTEGER))
    throw invalid('weight', `the price at this weight would pass ${Number.MAX_SAFE_INTEGER} cents`)
  return Number(cents)
}

/** The price of the first band that holds `weight` (bands sorted ascending), or null beyond them. */
function bandPrice(bands: { to: bigint; price: number }[], weight: bigint): number | null {
  for (const band of bands) if (weight <= band.to) return band.price
  return null
}

/**
 * The price in cents of shipping `weight` with a service:
 * - the band with the smallest `toWeight` at or above the weight (bands are inclusive upward);
 * - above the last band, without wrap: the last band's price plus `topRate.price` for every
 *   `forEveryXWeight` (or part of it) above the last band's `toWeight`;
 * - above the last band, with wrap (`isWrapShipping`): the weight is shipped as full packages of
 *   the last band's weight, each at the last band's price, plus the band price of what is left.
 */
export function shippingPrice(service: ServiceRates, weight: number, unit: WeightUnit): number {
  const w = exactWeight(weight, unit)
  if (w < 0n) throw new RangeError('weight must not be negative')
  const bands = service.rates
    .map((r) => ({ to: exactWeight(r.toWeight, r.weightUnits), price: r.price }))
    .sort((a, b) => (a.to < b.to ? -1 : a.to > b.to ? 1 : 0))
  if (bands.length === 0) throw new RangeError('a service needs at least one rate')
  const inBand = bandPrice(bands, w)
  if (inBand !== null) return inBand
  const last = bands[bands.length - 1]!
  const top = service.topRate
  if (top.isWrapShipping) {
    const full = w / last.to
    const rest = w % last.to
    return exactPrice(full * BigInt(last.price) + BigInt(rest > 0n ? bandPrice(bands, rest)! : 0))
  }
  if (top.forEveryXWeight === null || top.price === null)
    throw new RangeError('a top rate without wrap needs forEveryXWeight and price')
  const step = exactWeight(top.forEveryXWeight, top.weightUnits)
  const steps = ceilDiv(w - last.to, step)
  return exactPrice(BigInt(last.price) + steps * BigInt(top.price))
}

/**
 * Problems with a service's bands and top rate, as `[path, message]` relative to the service:
 * bands must have distinct weights (bands with too many decimals are left to the caller), and a top rate without wrap needs its step and price.
 */
export function rateProblems(service: ServiceRates): [string, string][] {
  const problems: [string, string][] = []
  const seen = new Map<bigint, number>()
  service.rates.forEach((rate, i) => {
    if (toMilli(rate.toWeight) === null) return
    const w = exactWeight(rate.toWeight, rate.weightUnits)
    const other = seen.get(w)
    if (other !== undefined)
      problems.push([`rates/${i}/toWeight`, `the same weight as rates/${other}: bands need distinct weights`])
    else seen.set(w, i)
  })
  const top = service.topRate
  if (!top.isWrapShipping) {
    if (top.forEveryXWeight === null)
      problems.push(['topRate/forEveryXWeight', 'required unless isWrapShipping is true'])
    if (top.price === null) problems.push(['topRate/price', 'required unless isWrapShipping is true'])
  }
  return problems
}
