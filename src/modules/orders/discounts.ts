// Discounts: applying coupons by code and removing them. Whether a coupon applies is the coupons
// engine's decision (applyCoupon over the order's cart, see coupon-cart.ts); orders check only the
// request (the line, the approving manager). Amounts are recomputed by the pricing engine, through
// the same coupons engine, on every reprice.
import { and, eq, max } from 'drizzle-orm'
import type { Actor } from '../../platform/foundation/actor'
import { newId, nowIso } from '../../platform/foundation/ids'
import { ApiError, conflict, forbidden, invalid, notFound } from '../../platform/foundation/problem'
import type { Db } from '../../platform/tenancy/databases'
import type { Queryable } from '../../platform/tenancy/transaction'
import { applyCoupon as applyCouponToCart } from '../coupons'
import { staffPermissionsAt } from '../labor'
import { findStaffUser } from '../staff'
import { orderCouponCart } from './coupon-cart'
import { getLine } from './lines'
import type { ApplyDiscountInput } from './model'
import { changeOrder, OPEN_STATUSES } from './mutation'
import { type OrderCoupon, others } from './others'
import { appliedDiscountTypeOf } from './reprice'
import { type OrderRow, orderDiscounts } from './schema'

/**
 * Checks the manager named as approving: an active staff user holding `discounts:approve` at the
 * order's location. Answers whether the coupon is approved (false when no one is named).
 */
function approved(
  tx: Queryable,
  coupon: OrderCoupon,
  order: OrderRow,
  approverId: string | null | undefined,
): boolean {
  if (!coupon.requiresManagerApproval) {
    if (approverId)
      throw invalid('body/managerApprovedByStaffUserId', `coupon ${coupon.code} needs no approval`)
    return false
  }
  if (!approverId) return false
  const approver = findStaffUser(tx, approverId)
  if (approver?.status !== 'active')
    throw invalid('body/managerApprovedByStaffUserId', `no active staff user ${approverId}`)
  if (!staffPermissionsAt(tx, approverId, order.locationId).has('discounts:approve'))
    throw forbidden(`staff user ${approverId} may not approve discounts at this location (discounts:approve)`)
  return true
}

export const applyCoupon = (db: Db, actor: Actor, orderId: string, input: ApplyDiscountInput) =>
  changeOrder(
    db,
    actor,
    orderId,
    {
      action: 'order.discount.apply',
      event: 'update',
      allowed: OPEN_STATUSES,
      doing: 'discount',
      metadata: (view) => ({ discount: view.appliedDiscounts.at(-1) }),
    },
    (tx, order) => {
      const coupon = others.findCouponByCode(tx, input.couponCode.trim())
      if (!coupon) throw invalid('body/couponCode', `no coupon with code ${input.couponCode}`)
      if (input.lineItemId) {
        const line = getLine(tx, orderId, input.lineItemId)
        if (line.voidedAt)
          throw conflict('cannot discount a voided line', { currentStatus: 'voided', lineItemId: line.id })
      }
      const cart = orderCouponCart(tx, order, coupon, {
        lineItemId: input.lineItemId ?? undefined,
        managerApproved: approved(tx, coupon, order, input.managerApprovedByStaffUserId),
      })
      const outcome = applyCouponToCart(coupon, cart)
      if (!outcome.applies) {
        const detail = `coupon ${coupon.code}: ${outcome.message}`
        if (outcome.reason === 'manager_approval_required')
          throw new ApiError(
            'forbidden',
            `${detail}; name the approving manager in managerApprovedByStaffUserId`,
            {
              extensions: { reason: outcome.reason },
            },
          )
        throw new ApiError('conflict', detail, {
          extensions: { reason: outcome.reason, currentStatus: order.status },
        })
      }
      const position =
        (tx
          .select({ p: max(orderDiscounts.position) })
          .from(orderDiscounts)
          .where(eq(orderDiscounts.orderId, orderId))
          .get()?.p ?? 0) + 1
      const id = newId()
      tx.insert(orderDiscounts)
        .values({
          id,
          orderId,
          position,
          sourceType: 'coupon',
          sourceId: coupon.id,
          code: coupon.code,
          title: coupon.title,
          scope: input.lineItemId ? 'line' : 'order',
          lineItemId: input.lineItemId ?? null,
          actionMessage: coupon.actionMessage,
          appliesTo: coupon.appliesTo,
          appliesToObjectIds: coupon.appliesToObjectIds,
          combinability: coupon.combinability,
          stackingScope: 'sequential',
          requiresManagerApproval: coupon.requiresManagerApproval,
          managerApprovedByStaffUserId: input.managerApprovedByStaffUserId ?? null,
          excludesServiceCharges: coupon.excludesServiceCharges,
          serviceChargeInteraction: coupon.serviceChargeInteraction,
          eligibilitySummary: '',
          ...appliedDiscountTypeOf(coupon),
          maxDiscountAmount: coupon.maxDiscountAmount,
          minimumCartAmount: coupon.minimumCartAmount,
          shippingDiscountType: coupon.shippingDiscountType,
          shippingDiscount: coupon.shippingDiscount,
          amount: 0,
          createdAt: nowIso(),
        })
        .run()
      return {
        discountId: id,
        couponId: coupon.id,
        code: coupon.code,
        approvedBy: input.managerApprovedByStaffUserId ?? null,
      }
    },
  )

export const removeDiscount = (db: Db, actor: Actor, orderId: string, discountId: string) =>
  changeOrder(
    db,
    actor,
    orderId,
    {
      action: 'order.discount.remove',
      event: 'update',
      allowed: OPEN_STATUSES,
      doing: 'remove discounts from',
    },
    (tx) => {
      const row = tx
        .select()
        .from(orderDiscounts)
        .where(and(eq(orderDiscounts.orderId, orderId), eq(orderDiscounts.id, discountId)))
        .get()
      if (!row) throw notFound('applied discount', discountId)
      tx.delete(orderDiscounts).where(eq(orderDiscounts.id, discountId)).run()
      return { discountId, code: row.code, amount: row.amount }
    },
  )
