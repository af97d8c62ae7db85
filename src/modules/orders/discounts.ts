// Discounts: applying coupons by code (eligibility, approval, combinability, usage limits) and
// removing them. Amounts are computed by the pricing engine on every reprice, not stored once.
import { and, count, eq, max, ne } from 'drizzle-orm'
import type { Actor } from '../../platform/auth/actor'
import { permissionsAt } from '../../platform/auth/permissions'
import { ApiError, conflict, forbidden, invalid, notFound } from '../../platform/http/problem'
import { newId, nowIso } from '../../platform/ids'
import type { Db } from '../../platform/tenancy/databases'
import type { Queryable } from '../../platform/tenancy/transaction'
import { getLocation } from '../locations/service'
import { findStaffUser, roleGrantsOf } from '../staff/service'
import { getLine } from './lines'
import type { ApplyDiscountInput } from './model'
import { changeOrder, OPEN_STATUSES } from './mutation'
import type { CouponTerms, OrdersPort } from './ports'
import { discountableLines } from './reprice'
import { type OrderLineRow, type OrderRow, orderDiscounts, orders } from './schema'
import { discountsOf, linesOf } from './view'

export type CouponRefusal =
  | 'inactive'
  | 'not_started'
  | 'expired'
  | 'minimum_not_met'
  | 'usage_limit_reached'
  | 'customer_required'
  | 'not_combinable'
  | 'already_applied'
  | 'no_eligible_items'
  | 'not_available_to_customer'

export interface CouponContext {
  /** The order's local calendar date, YYYY-MM-DD. */
  today: string
  subtotal: number
  /** Combinability of the discounts already on the order, and their coupon ids. */
  applied: { sourceId: string | null; combinability: string }[]
  /** Times the coupon is already used (by everyone, or by this customer for per-customer limits). */
  usageCount: number
  hasCustomer: boolean
  customerId: string | null
  /** Lines (not voided) the coupon could reduce. */
  eligibleLines: number
}

/** Why a coupon cannot apply to an order now, or null when it can. Pure. */
export function couponRefusal(
  coupon: CouponTerms,
  ctx: CouponContext,
): { reason: CouponRefusal; detail: string } | null {
  if (coupon.status !== 'active') return { reason: 'inactive', detail: `coupon ${coupon.code} is not active` }
  if (coupon.startDate && ctx.today < coupon.startDate)
    return { reason: 'not_started', detail: `coupon ${coupon.code} starts on ${coupon.startDate}` }
  if (coupon.endDate && ctx.today > coupon.endDate)
    return { reason: 'expired', detail: `coupon ${coupon.code} ended on ${coupon.endDate}` }
  if (coupon.availableTo !== 'Everyone') {
    // Club and tag membership are not known to orders yet: only listed customers qualify.
    const allowed =
      coupon.availableTo === 'Customer' &&
      ctx.customerId !== null &&
      coupon.availableToObjectIds.includes(ctx.customerId)
    if (!allowed)
      return {
        reason: 'not_available_to_customer',
        detail: `coupon ${coupon.code} is only for certain customers (${coupon.availableTo})`,
      }
  }
  if (ctx.applied.some((d) => d.sourceId === coupon.id))
    return { reason: 'already_applied', detail: `coupon ${coupon.code} is already on this order` }
  if (
    ctx.applied.length > 0 &&
    (coupon.combinability !== 'combinable' || ctx.applied.some((d) => d.combinability !== 'combinable'))
  )
    return {
      reason: 'not_combinable',
      detail: `coupon ${coupon.code} cannot be combined with the discounts already on the order`,
    }
  if (coupon.usageLimit !== null) {
    if (coupon.usageLimitType === 'per_customer' && !ctx.hasCustomer)
      return {
        reason: 'customer_required',
        detail: `coupon ${coupon.code} is limited per customer; attach a customer first`,
      }
    if (ctx.usageCount >= coupon.usageLimit)
      return {
        reason: 'usage_limit_reached',
        detail: `coupon ${coupon.code} has been used ${ctx.usageCount} of ${coupon.usageLimit} times`,
      }
  }
  if (coupon.minimumCartAmount !== null && ctx.subtotal < coupon.minimumCartAmount)
    return {
      reason: 'minimum_not_met',
      detail: `coupon ${coupon.code} needs a subtotal of at least ${coupon.minimumCartAmount} cents`,
    }
  if (ctx.eligibleLines === 0)
    return {
      reason: 'no_eligible_items',
      detail: `nothing on the order is eligible for coupon ${coupon.code}`,
    }
  return null
}

/** The calendar date now in a time zone, YYYY-MM-DD. */
export const localDate = (timeZone: string, at = new Date()): string =>
  new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(at)

function usageCount(tx: Queryable, coupon: CouponTerms, order: OrderRow): number {
  const perCustomer = coupon.usageLimitType === 'per_customer' && order.customerId
  return (
    tx
      .select({ n: count() })
      .from(orderDiscounts)
      .innerJoin(orders, eq(orders.id, orderDiscounts.orderId))
      .where(
        and(
          eq(orderDiscounts.sourceId, coupon.id),
          ne(orders.status, 'voided'),
          ne(orders.id, order.id),
          perCustomer ? eq(orders.customerId, order.customerId!) : undefined,
        ),
      )
      .get()?.n ?? 0
  )
}

const eligible = (coupon: CouponTerms, lines: OrderLineRow[]): OrderLineRow[] =>
  discountableLines(coupon, lines).filter((l) => !l.voidedAt)

function assertApprover(
  tx: Queryable,
  coupon: CouponTerms,
  order: OrderRow,
  approverId: string | null | undefined,
) {
  if (!coupon.requiresManagerApproval) {
    if (approverId)
      throw invalid('body/managerApprovedByStaffUserId', `coupon ${coupon.code} needs no approval`)
    return
  }
  if (!approverId)
    throw forbidden(
      `coupon ${coupon.code} requires manager approval: name the approving manager in managerApprovedByStaffUserId`,
    )
  const approver = findStaffUser(tx, approverId)
  if (approver?.status !== 'active')
    throw invalid('body/managerApprovedByStaffUserId', `no active staff user ${approverId}`)
  if (!permissionsAt(roleGrantsOf(tx, approverId), order.locationId).has('discounts:approve'))
    throw forbidden(`staff user ${approverId} may not approve discounts at this location (discounts:approve)`)
}

export const applyCoupon = (
  db: Db,
  actor: Actor,
  port: OrdersPort,
  orderId: string,
  input: ApplyDiscountInput,
) =>
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
      const coupon = port.findCouponByCode(tx, input.couponCode.trim())
      if (!coupon) throw invalid('body/couponCode', `no coupon with code ${input.couponCode}`)
      const lines = linesOf(tx, orderId)
      let targets = eligible(coupon, lines)
      if (input.lineItemId) {
        const line = getLine(tx, orderId, input.lineItemId)
        if (line.voidedAt)
          throw conflict('cannot discount a voided line', { currentStatus: 'voided', lineItemId: line.id })
        targets = targets.filter((l) => l.id === line.id)
      }
      const applied = discountsOf(tx, orderId)
      const refusal = couponRefusal(coupon, {
        today: localDate(getLocation(tx, order.locationId).timezone),
        subtotal: order.subtotal,
        applied,
        usageCount: usageCount(tx, coupon, order),
        hasCustomer: order.customerId !== null,
        customerId: order.customerId,
        eligibleLines: targets.length,
      })
      if (refusal)
        throw new ApiError('conflict', refusal.detail, {
          extensions: { reason: refusal.reason, currentStatus: order.status },
        })
      assertApprover(tx, coupon, order, input.managerApprovedByStaffUserId)
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
          discountType: coupon.discountType,
          value: coupon.value,
          maxDiscountAmount: coupon.maxDiscountAmount,
          minimumCartAmount: coupon.minimumCartAmount,
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
