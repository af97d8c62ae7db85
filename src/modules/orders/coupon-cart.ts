// The cart the coupons engine judges a coupon on, built from an order: its discountable lines with
// what earlier discounts left of them, the subtotal, now in the location's time zone, the coupon's
// usage on other orders, the customer's clubs and tags, the discounts already on the order.

import { and, countDistinct, eq, ne } from 'drizzle-orm'
import type { Queryable } from '../../platform/tenancy/transaction'
import type { CartSummary } from '../coupons'
import { getLocation } from '../locations'
import { lineDiscountable } from './gift-card-discounts'
import { type OrderCoupon, others } from './others'
import { type OrderRow, orderDiscounts, orders } from './schema'
import { discountsOf, linesOf } from './view'

/**
 * Orders other than this one that carry the coupon and are not voided (drafts count: the coupon
 * is held for them), of everyone or of one customer.
 */
function usageCount(tx: Queryable, couponId: string, order: OrderRow, customerId?: string): number {
  return (
    tx
      .select({ n: countDistinct(orders.id) })
      .from(orderDiscounts)
      .innerJoin(orders, eq(orders.id, orderDiscounts.orderId))
      .where(
        and(
          eq(orderDiscounts.sourceId, couponId),
          ne(orders.status, 'voided'),
          ne(orders.id, order.id),
          customerId === undefined ? undefined : eq(orders.customerId, customerId),
        ),
      )
      .get()?.n ?? 0
  )
}

export interface CouponCartOptions {
  /** A line coupon: the line it is for. */
  lineItemId?: string
  /** Whether a manager with `discounts:approve` approved it (checked by the caller). */
  managerApproved: boolean
  now?: Date
}

/** The cart of an order for `applyCoupon`, as the order stands (current amounts). */
export function orderCouponCart(
  tx: Queryable,
  order: OrderRow,
  coupon: OrderCoupon,
  options: CouponCartOptions,
): CartSummary {
  // Voided lines count nothing; gift card sales only when the gift card settings allow discounts.
  const lines = linesOf(tx, order.id).filter((l) => !l.voidedAt && lineDiscountable(tx, l))
  const customerId = order.customerId
  const segments = customerId ? others.customerSegments(tx, customerId) : { clubIds: [], tagIds: [] }
  return {
    subtotalCents: order.subtotal,
    shippingCents: order.shippingTotal,
    lines: lines.map((l) => ({
      id: l.id,
      productId: l.productId,
      collectionIds: l.collectionIds,
      quantity: l.quantity,
      amountCents: l.subtotal - l.discountAmount,
    })),
    lineId: options.lineItemId,
    now: options.now ?? new Date(),
    timeZone: getLocation(tx, order.locationId).timezone,
    usageCount: usageCount(tx, coupon.id, order),
    customerUsageCount: customerId ? usageCount(tx, coupon.id, order, customerId) : 0,
    customer: customerId ? { id: customerId, ...segments } : null,
    otherCoupons: discountsOf(tx, order.id).map((d) => ({
      id: d.sourceId,
      // Anything but `combinable` stands alone (older rows say `not_combinable`).
      combinability: d.combinability === 'combinable' ? 'combinable' : 'exclusive',
    })),
    managerApproved: options.managerApproved,
  }
}
