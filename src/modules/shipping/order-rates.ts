import type { Queryable } from '../../platform/tenancy/transaction'
import { getOrderRow, liveVariantLines } from '../orders'
import { variantShippingWeights } from '../products'
import { quoteShippingRates } from './service'

/**
 * Thousandths of a pound the order weighs: for each line that is not voided and sells a variant
 * with `hasShipping` and a `weight`, the variant's weight rounded up to the next thousandth of a
 * pound, times the quantity. Lines without a weight count 0.
 */
export function orderShippingWeightMilliLbs(db: Queryable, orderId: string): number {
  const lines = liveVariantLines(db, orderId)
  if (lines.length === 0) return 0
  const variants = variantShippingWeights(
    db,
    lines.map((l) => l.variantId),
  )
  let milli = 0
  for (const line of lines) {
    const variant = variants.get(line.variantId)
    if (!variant?.hasShipping || !variant.weight) continue
    // Rounded first so float noise (2.675 * 1000 = 2674.9999...) cannot round a weight up.
    const exact = Math.round(variant.weight * 1e6) / 1000
    milli += Math.ceil(exact) * line.quantity
  }
  return milli
}

export function quoteOrderShipping(
  db: Queryable,
  orderId: string,
  destination: { countryCode: string; stateCode?: string },
) {
  getOrderRow(db, orderId)
  const milli = orderShippingWeightMilliLbs(db, orderId)
  const weight = milli / 1000
  return {
    weight,
    weightUnits: 'Lbs' as const,
    ...quoteShippingRates(db, { weight, weightUnits: 'Lbs', ...destination }),
  }
}

/**
 * The rate orders charge for shipping an order to a place: the default active service of the
 * first configuration covering it (else its first active service); null when none covers it.
 */
export function orderShippingRate(
  db: Queryable,
  orderId: string,
  shipTo: { countryCode: string; stateCode: string | null },
): { serviceId: string; title: string; price: number } | null {
  const { rates } = quoteOrderShipping(db, orderId, {
    countryCode: shipTo.countryCode,
    stateCode: shipTo.stateCode ?? undefined,
  })
  const rate = rates.find((r) => r.isDefault) ?? rates[0]
  return rate ? { serviceId: rate.serviceId, title: rate.title, price: rate.price } : null
}
