// How shipping joins orders: a `shipping` order is charged the rate of its weight to its ship-to.
import { lendToOrders } from '../orders'
import { orderShippingRate } from './order-rates'

/** Registers what the family lends the others (its manifest's `hooks`, index.ts). */
export function registerShippingHooks(): void {
  lendToOrders({ shippingRate: orderShippingRate })
}
