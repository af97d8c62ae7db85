// What orders need from taxes: the rate for a location and a line's tax code, and the tax of
// an amount at that rate. Pure integer arithmetic: amounts in cents, rates in basis points.
import { and, eq, isNull, or } from 'drizzle-orm'
import type { Queryable } from '../../platform/tenancy/transaction'
import { type TaxRow, taxes } from './schema'

/** The categories a tax rates; an order line's `taxCode` names one. */
export const taxCodes = ['food', 'wine', 'freight', 'generalMerchandise'] as const
export type TaxCode = (typeof taxCodes)[number]

export const isTaxCode = (value: string): value is TaxCode => (taxCodes as readonly string[]).includes(value)

export interface TaxRate {
  taxId: string
  title: string
  rateBps: number
  taxCalculation: TaxRow['taxCalculation']
}

/**
 * The rate of a tax code at a place: the state's own tax when one exists, else the country-wide
 * tax (stateCode null), else null (no tax configured; the caller decides, usually zero tax).
 */
export function taxRateFor(
  db: Queryable,
  place: { countryCode: string; stateCode?: string | null },
  taxCode: TaxCode,
): TaxRate | null {
  const country = place.countryCode.toUpperCase()
  const state = place.stateCode ? place.stateCode.toUpperCase() : null
  const candidates = db
    .select()
    .from(taxes)
    .where(
      and(
        eq(taxes.countryCode, country),
        state ? or(eq(taxes.stateCode, state), isNull(taxes.stateCode)) : isNull(taxes.stateCode),
      ),
    )
    .all()
  const tax = candidates.find((c) => c.stateCode !== null) ?? candidates[0]
  if (!tax) return null
  return { taxId: tax.id, title: tax.title, rateBps: tax[taxCode], taxCalculation: tax.taxCalculation }
}

/** round(numerator / denominator), halves away from zero, on integers. */
function divideRounded(numerator: bigint, denominator: bigint): bigint {
  const negative = numerator < 0n
  const n = negative ? -numerator : numerator
  const q = (2n * n + denominator) / (2n * denominator)
  return negative ? -q : q
}

/**
 * The tax in an amount of cents at a rate. `Added`: the tax on top of the amount,
 * round(amount × rate / 10000). `Included`: the tax inside the amount,
 * amount − round(amount × 10000 / (10000 + rate)). Halves round away from zero, so a refund
 * (negative amount) is the exact negative of the sale.
 */
export function taxOn(amountCents: number, rateBps: number, taxCalculation: 'Added' | 'Included'): number {
  if (!Number.isSafeInteger(amountCents)) throw new RangeError('amountCents must be a safe integer')
  if (!Number.isInteger(rateBps) || rateBps < 0 || rateBps > 10_000)
    throw new RangeError('rateBps must be 0..10000')
  const amount = BigInt(amountCents)
  const rate = BigInt(rateBps)
  if (taxCalculation === 'Added') return Number(divideRounded(amount * rate, 10_000n))
  return Number(amount - divideRounded(amount * 10_000n, 10_000n + rate))
}
