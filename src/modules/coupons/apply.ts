// Whether a coupon applies to a cart, and for how much: a pure function of the coupon and a cart
// summary, for orders. Amounts are integer cents; Percentage Off values are basis points.
import { calendarDateIn } from '../../platform/dates'
import type { CouponRow, DiscountType } from './schema'

export type CouponTerms = Pick<
  CouponRow,
  | 'status'
  | 'startDate'
  | 'endDate'
  | 'usageLimitType'
  | 'usageLimit'
  | 'appliesTo'
  | 'appliesToObjectIds'
  | 'productDiscountType'
  | 'productDiscount'
  | 'shippingDiscountType'
  | 'shippingDiscount'
  | 'minimumCartAmount'
  | 'availableTo'
  | 'availableToObjectIds'
  | 'combinability'
  | 'requiresManagerApproval'
  | 'excludesServiceCharges'
  | 'maxDiscountAmount'
>

export interface CartLine {
  productId: string
  /** The collections the product belongs to (for Collection coupons). */
  collectionIds?: readonly string[]
  /** Units on the line, >= 1 (Set Price discounts per unit). */
  quantity: number
  /** The line's amount before this coupon, cents, >= 0. */
  amountCents: number
}

export interface CartSummary {
  /** Cart subtotal before discounts, cents: what minimumCartAmount is compared with. */
  subtotalCents: number
  lines: readonly CartLine[]
  shippingCents?: number
  /** Service charges; a Store coupon with excludesServiceCharges false discounts them too. */
  serviceChargeCents?: number
  /** When the coupon is applied, and the location's IANA time zone that dates are read in (default UTC). */
  now: Date | string
  timeZone?: string
  /** Redemptions of this coupon so far, all customers (for Total limits). */
  usageCount?: number
  /** Redemptions of this coupon by this cart's customer (for Per Customer limits). */
  customerUsageCount?: number
  customer?: { id?: string | null; clubIds?: readonly string[]; tagIds?: readonly string[] } | null
  /** Other coupons already on the cart. */
  otherCoupons?: readonly { combinability: CouponRow['combinability'] }[]
  /** Whether a manager approved this coupon on the order. */
  managerApproved?: boolean
}

export type CouponRefusal =
  | 'disabled'
  | 'not_started'
  | 'expired'
  | 'usage_limit_reached'
  | 'customer_required'
  | 'customer_usage_limit_reached'
  | 'not_available_to_customer'
  | 'not_combinable'
  | 'minimum_not_met'
  | 'no_eligible_items'
  | 'manager_approval_required'

export type CouponOutcome =
  | {
      applies: true
      /** productDiscountCents + shippingDiscountCents. */
      discountCents: number
      productDiscountCents: number
      shippingDiscountCents: number
      /** The amount the product discount was computed on. */
      eligibleCents: number
    }
  | { applies: false; reason: CouponRefusal; message: string }

const refuse = (reason: CouponRefusal, message: string): CouponOutcome => ({
  applies: false,
  reason,
  message,
})

/** round(amount × bps / 10000), halves up, for non-negative integers. */
const percentOf = (amount: number, bps: number) =>
  Number((BigInt(amount) * BigInt(bps) * 2n + 10_000n) / 20_000n)

function assertCents(name: string, value: number) {
  if (!Number.isSafeInteger(value) || value < 0)
    throw new RangeError(`${name} must be a non-negative integer of cents`)
}

/** The discount of a type on an amount; Set Price works per unit over `units`. */
function discountOn(type: DiscountType, value: number | null, amount: number, units: number): number {
  switch (type) {
    case 'No Discount':
      return 0
    case 'Free':
      return amount
    case 'Percentage Off':
      return percentOf(amount, Math.min(value ?? 0, 10_000))
    case 'Dollar Off':
      return Math.min(value ?? 0, amount)
    case 'Set Price':
      return Math.max(0, amount - (value ?? 0) * units)
  }
}

/**
 * Applies a coupon to a cart. Checks, in order: status, dates (inclusive, in the cart's time
 * zone), usage limits, who it is available to, combinability, minimum cart amount, eligible
 * items, manager approval. Then: the product discount on the eligible lines (Store: every line,
 * plus service charges unless excluded), the shipping discount on shipping, and the cap of
 * maxDiscountAmount on both together (products first).
 */
export function applyCoupon(coupon: CouponTerms, cart: CartSummary): CouponOutcome {
  assertCents('subtotalCents', cart.subtotalCents)
  const shippingCents = cart.shippingCents ?? 0
  const serviceChargeCents = cart.serviceChargeCents ?? 0
  assertCents('shippingCents', shippingCents)
  assertCents('serviceChargeCents', serviceChargeCents)
  for (const line of cart.lines) {
    assertCents('amountCents', line.amountCents)
    if (!Number.isSafeInteger(line.quantity) || line.quantity < 1)
      throw new RangeError('quantity must be an integer >= 1')
  }

  if (coupon.status !== 'Enabled') return refuse('disabled', 'This coupon is disabled')
  const today = calendarDateIn(new Date(cart.now), cart.timeZone)
  if (coupon.startDate !== null && today < coupon.startDate)
    return refuse('not_started', `This coupon starts on ${coupon.startDate}`)
  if (coupon.endDate !== null && today > coupon.endDate)
    return refuse('expired', `This coupon ended on ${coupon.endDate}`)

  const limit = coupon.usageLimit ?? 0
  if (coupon.usageLimitType === 'Total' && (cart.usageCount ?? 0) >= limit)
    return refuse('usage_limit_reached', `This coupon has been used its ${limit} time(s)`)
  if (coupon.usageLimitType === 'Per Customer') {
    if (!cart.customer?.id) return refuse('customer_required', 'This coupon needs a customer on the order')
    if ((cart.customerUsageCount ?? 0) >= limit)
      return refuse(
        'customer_usage_limit_reached',
        `This customer has used this coupon ${limit} time(s) already`,
      )
  }

  if (coupon.availableTo !== 'Everyone') {
    const allowed = new Set(coupon.availableToObjectIds)
    const customer = cart.customer
    const held =
      coupon.availableTo === 'Customer'
        ? customer?.id
          ? [customer.id]
          : []
        : coupon.availableTo === 'Club'
          ? (customer?.clubIds ?? [])
          : (customer?.tagIds ?? [])
    if (!held.some((id) => allowed.has(id)))
      return refuse(
        'not_available_to_customer',
        `This coupon is only for certain customers (${coupon.availableTo})`,
      )
  }

  const others = cart.otherCoupons ?? []
  if (
    others.length > 0 &&
    (coupon.combinability === 'exclusive' || others.some((o) => o.combinability === 'exclusive'))
  )
    return refuse('not_combinable', 'This coupon cannot be combined with the other coupons on the order')

  if (coupon.minimumCartAmount !== null && cart.subtotalCents < coupon.minimumCartAmount)
    return refuse('minimum_not_met', `The cart must reach ${coupon.minimumCartAmount} cents`)

  const ids = new Set(coupon.appliesToObjectIds)
  const eligibleLines =
    coupon.appliesTo === 'Store'
      ? cart.lines
      : coupon.appliesTo === 'Product'
        ? cart.lines.filter((l) => ids.has(l.productId))
        : cart.lines.filter((l) => (l.collectionIds ?? []).some((c) => ids.has(c)))
  if (coupon.appliesTo !== 'Store' && eligibleLines.length === 0)
    return refuse('no_eligible_items', `No item on the order is one this coupon applies to`)

  if (coupon.requiresManagerApproval && !cart.managerApproved)
    return refuse('manager_approval_required', 'This coupon needs a manager’s approval')

  const linesCents = eligibleLines.reduce((sum, l) => sum + l.amountCents, 0)
  const chargesCents = coupon.appliesTo === 'Store' && !coupon.excludesServiceCharges ? serviceChargeCents : 0
  const eligibleCents = linesCents + chargesCents
  let productDiscountCents =
    coupon.productDiscountType === 'Set Price'
      ? eligibleLines.reduce(
          (sum, l) => sum + discountOn('Set Price', coupon.productDiscount, l.amountCents, l.quantity),
          0,
        )
      : discountOn(coupon.productDiscountType, coupon.productDiscount, eligibleCents, 1)
  let shippingDiscountCents = discountOn(
    coupon.shippingDiscountType,
    coupon.shippingDiscount,
    shippingCents,
    1,
  )
  if (coupon.maxDiscountAmount !== null) {
    productDiscountCents = Math.min(productDiscountCents, coupon.maxDiscountAmount)
    shippingDiscountCents = Math.min(shippingDiscountCents, coupon.maxDiscountAmount - productDiscountCents)
  }
  return {
    applies: true,
    discountCents: productDiscountCents + shippingDiscountCents,
    productDiscountCents,
    shippingDiscountCents,
    eligibleCents,
  }
}
