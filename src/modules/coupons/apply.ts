// Whether a coupon applies to a cart, and for how much, line by line: pure functions of the coupon
// and a cart summary. The single coupon engine: orders admit coupons with applyCoupon and reprice
// them with couponDiscount. Amounts are integer cents; Percentage Off values are basis points.
import { calendarDateIn } from '../../platform/foundation/dates'
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
  /** The caller's id for the line: what `lineId` names. */
  id?: string
  /** null: a line with no product (an open item), never matched by Product coupons. */
  productId: string | null
  /** The collections the product belongs to (for Collection coupons). */
  collectionIds?: readonly string[]
  /** Units on the line, >= 1 (Set Price discounts per unit). */
  quantity: number
  /** The line's amount before this coupon, cents, >= 0 (after earlier coupons when stacking). */
  amountCents: number
}

/** What a cart holds: everything the amount of a coupon depends on. */
export interface CartContents {
  /** Cart subtotal before discounts, cents: what minimumCartAmount is compared with. */
  subtotalCents: number
  lines: readonly CartLine[]
  shippingCents?: number
  /** Service charges; a Store coupon with excludesServiceCharges false discounts them too. */
  serviceChargeCents?: number
  /** A line coupon: only the line with this id may be discounted (it must also match appliesTo). */
  lineId?: string
}

/** A cart and the circumstances of applying a coupon to it. */
export interface CartSummary extends CartContents {
  /** When the coupon is applied, and the location's IANA time zone that dates are read in (default UTC). */
  now: Date | string
  timeZone?: string
  /** Redemptions of this coupon so far, all customers (for Total limits). */
  usageCount?: number
  /** Redemptions of this coupon by this cart's customer (for Per Customer limits). */
  customerUsageCount?: number
  customer?: { id?: string | null; clubIds?: readonly string[]; tagIds?: readonly string[] } | null
  /** Other coupons already on the cart (with their coupon ids, to refuse the same coupon twice). */
  otherCoupons?: readonly { id?: string | null; combinability: CouponRow['combinability'] }[]
  /** Whether a manager approved this coupon on the cart. */
  managerApproved?: boolean
}

/** The terms a coupon's amount depends on, once it is on a cart. */
export type CouponAmountTerms = Pick<
  CouponTerms,
  | 'appliesTo'
  | 'appliesToObjectIds'
  | 'productDiscountType'
  | 'productDiscount'
  | 'shippingDiscountType'
  | 'shippingDiscount'
  | 'minimumCartAmount'
  | 'excludesServiceCharges'
  | 'maxDiscountAmount'
>

export type CouponRefusal =
  | 'disabled'
  | 'not_started'
  | 'expired'
  | 'usage_limit_reached'
  | 'customer_required'
  | 'customer_usage_limit_reached'
  | 'not_available_to_customer'
  | 'already_applied'
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
      /**
       * The product discount line by line, in the order of `cart.lines` (0 for lines it does not
       * apply to): split in proportion to each eligible line's amount (Set Price: to what each line
       * has above the price), exactly, the largest remainders taking the odd cents.
       */
      lineDiscountCents: number[]
      /** The part of the product discount on service charges (Store coupons that include them). */
      serviceChargeDiscountCents: number
      /** Whether maxDiscountAmount lowered the discount. */
      capped: boolean
    }
  | { applies: false; reason: CouponRefusal; message: string }

const refuse = (reason: CouponRefusal, message: string): CouponOutcome => ({
  applies: false,
  reason,
  message,
})

/**
 * Splits `amount` over `weights` in proportion, exactly: floors first, then one cent each to the
 * largest remainders (earlier entries first on ties). Requires amount <= sum of weights, so no
 * share exceeds its weight.
 */
export function allocate(amount: number, weights: readonly number[]): number[] {
  const total = weights.reduce((a, b) => a + b, 0)
  if (amount === 0 || total === 0) return weights.map(() => 0)
  if (amount > total) throw new RangeError('allocate: amount exceeds the sum of the weights')
  const big = BigInt(amount)
  const bigTotal = BigInt(total)
  const shares = weights.map((w) => (big * BigInt(w)) / bigTotal)
  const remainders = weights.map((w, i) => ({ i, r: (big * BigInt(w)) % bigTotal }))
  let left = amount - Number(shares.reduce((a, b) => a + b, 0n))
  remainders.sort((a, b) => (a.r === b.r ? a.i - b.i : a.r > b.r ? -1 : 1))
  for (const { i } of remainders) {
    if (left === 0) break
    shares[i]! += 1n
    left--
  }
  return shares.map(Number)
}

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

function assertCart(cart: CartContents) {
  assertCents('subtotalCents', cart.subtotalCents)
  assertCents('shippingCents', cart.shippingCents ?? 0)
  assertCents('serviceChargeCents', cart.serviceChargeCents ?? 0)
  for (const line of cart.lines) {
    assertCents('amountCents', line.amountCents)
    if (!Number.isSafeInteger(line.quantity) || line.quantity < 1)
      throw new RangeError('quantity must be an integer >= 1')
  }
}

/** Whether the coupon may join this cart at all: status, dates, usage, audience, combinability. */
function admissionRefusal(coupon: CouponTerms & { id?: string }, cart: CartSummary): CouponOutcome | null {
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
  if (coupon.id !== undefined && others.some((o) => o.id === coupon.id))
    return refuse('already_applied', 'This coupon is already on the order')
  if (
    others.length > 0 &&
    (coupon.combinability === 'exclusive' || others.some((o) => o.combinability === 'exclusive'))
  )
    return refuse('not_combinable', 'This coupon cannot be combined with the other coupons on the order')
  return null
}

/**
 * The discount of a coupon on a cart, leaving aside whether it may join the cart: the minimum
 * cart amount, the eligible items (and `lineId`), then the product discount on the eligible lines
 * (Store: every line, plus service charges unless excluded), the shipping discount on shipping,
 * the cap of maxDiscountAmount on both together (products first), and the split of the product
 * discount over the lines. This is what a cart that already holds the coupon recomputes whenever
 * it changes (orders reprice with it); applyCoupon adds the admission checks.
 */
export function couponDiscount(coupon: CouponAmountTerms, cart: CartContents): CouponOutcome {
  assertCart(cart)
  const shippingCents = cart.shippingCents ?? 0
  const serviceChargeCents = cart.serviceChargeCents ?? 0
  if (coupon.minimumCartAmount !== null && cart.subtotalCents < coupon.minimumCartAmount)
    return refuse('minimum_not_met', `The cart must reach ${coupon.minimumCartAmount} cents`)

  const ids = new Set(coupon.appliesToObjectIds)
  const matches = (l: CartLine) =>
    (cart.lineId === undefined || l.id === cart.lineId) &&
    (coupon.appliesTo === 'Store' ||
      (coupon.appliesTo === 'Product'
        ? l.productId !== null && ids.has(l.productId)
        : (l.collectionIds ?? []).some((c) => ids.has(c))))
  const eligible = cart.lines.map(matches)
  if ((coupon.appliesTo !== 'Store' || cart.lineId !== undefined) && !eligible.includes(true))
    return refuse(
      'no_eligible_items',
      cart.lineId === undefined
        ? 'No item on the order is one this coupon applies to'
        : 'This coupon does not apply to that item',
    )

  const weights = cart.lines.map((l, i) => (eligible[i] ? l.amountCents : 0))
  const linesCents = weights.reduce((sum, w) => sum + w, 0)
  // Service charges are cart-wide: a line coupon never reaches them.
  const chargesCents =
    coupon.appliesTo === 'Store' && !coupon.excludesServiceCharges && cart.lineId === undefined
      ? serviceChargeCents
      : 0
  const eligibleCents = linesCents + chargesCents
  // Set Price works per unit and line; the other types on the eligible amount as a whole.
  const shares =
    coupon.productDiscountType === 'Set Price'
      ? [
          ...cart.lines.map((l, i) =>
            eligible[i] ? discountOn('Set Price', coupon.productDiscount, l.amountCents, l.quantity) : 0,
          ),
          0,
        ]
      : [...weights, chargesCents]
  const uncapped =
    coupon.productDiscountType === 'Set Price'
      ? shares.reduce((sum, s) => sum + s, 0)
      : discountOn(coupon.productDiscountType, coupon.productDiscount, eligibleCents, 1)
  const uncappedShipping = discountOn(coupon.shippingDiscountType, coupon.shippingDiscount, shippingCents, 1)
  let productDiscountCents = uncapped
  let shippingDiscountCents = uncappedShipping
  if (coupon.maxDiscountAmount !== null) {
    productDiscountCents = Math.min(productDiscountCents, coupon.maxDiscountAmount)
    shippingDiscountCents = Math.min(shippingDiscountCents, coupon.maxDiscountAmount - productDiscountCents)
  }
  const split = allocate(productDiscountCents, shares)
  return {
    applies: true,
    discountCents: productDiscountCents + shippingDiscountCents,
    productDiscountCents,
    shippingDiscountCents,
    eligibleCents,
    lineDiscountCents: split.slice(0, cart.lines.length),
    serviceChargeDiscountCents: split[cart.lines.length]!,
    capped: productDiscountCents < uncapped || shippingDiscountCents < uncappedShipping,
  }
}

/**
 * Applies a coupon to a cart. Checks, in order: status, dates (inclusive, in the cart's time
 * zone), usage limits, who it is available to, the same coupon already on the cart (when the
 * coupon and the other coupons carry ids), combinability, minimum cart amount, eligible items,
 * manager approval. Then computes the discount as couponDiscount does.
 */
export function applyCoupon(coupon: CouponTerms & { id?: string }, cart: CartSummary): CouponOutcome {
  assertCart(cart)
  const refusal = admissionRefusal(coupon, cart)
  if (refusal) return refusal
  const outcome = couponDiscount(coupon, cart)
  if (outcome.applies && coupon.requiresManagerApproval && !cart.managerApproved)
    return refuse('manager_approval_required', 'This coupon needs a manager’s approval')
  return outcome
}
