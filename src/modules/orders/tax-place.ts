// Where an order is taxed, and the rate of a tax code there.
import { eq } from 'drizzle-orm'
import type { Queryable } from '../../platform/tenancy/transaction'
import { others, type ShipTo } from './others'
import type { TaxCalculation } from './pricing'
import { type OrderRow, orderLocationSettings, type TaxCode } from './schema'

/**
 * Where the order is taxed: its ship-to for a `shipping` order that has one, else its location's
 * tax place; null when the location has none set.
 */
export function taxPlaceOf(tx: Queryable, order: OrderRow): ShipTo | null {
  if (order.fulfillmentMode === 'shipping' && order.shipToCountryCode)
    return { countryCode: order.shipToCountryCode, stateCode: order.shipToStateCode }
  const place = tx
    .select()
    .from(orderLocationSettings)
    .where(eq(orderLocationSettings.locationId, order.locationId))
    .get()
  return place ? { countryCode: place.countryCode, stateCode: place.stateCode } : null
}

/** The tax rate of a code where the order is taxed; 0 (Added) when untaxed or nothing is configured. */
export function resolveTax(
  tx: Queryable,
  order: OrderRow,
  taxCode: TaxCode | null,
): { taxRateBps: number; taxCalculation: TaxCalculation } {
  const none = { taxRateBps: 0, taxCalculation: 'Added' as const }
  if (!taxCode) return none
  const place = taxPlaceOf(tx, order)
  const rate = place ? others.taxRate(tx, place, taxCode) : null
  return rate ? { taxRateBps: rate.rateBps, taxCalculation: rate.taxCalculation } : none
}
