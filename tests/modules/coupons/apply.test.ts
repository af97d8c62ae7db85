// applyCoupon, the pure function orders call: worked examples for every rule, and fast-check
// properties (never negative, never above the eligible amount or shipping, capped by
// maxDiscountAmount, consistent with the coupon rules).
import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import {
  allocate,
  applyCoupon,
  type CartSummary,
  type CouponTerms,
  couponDiscount,
} from '../../../src/modules/coupons/apply'
import { couponErrors } from '../../../src/modules/coupons/rules'
import { discountTypes } from '../../../src/modules/coupons/schema'

const base: CouponTerms = {
  status: 'Enabled',
  startDate: null,
  endDate: null,
  usageLimitType: 'Unlimited',
  usageLimit: null,
  appliesTo: 'Store',
  appliesToObjectIds: [],
  productDiscountType: 'Percentage Off',
  productDiscount: 1000,
  shippingDiscountType: 'No Discount',
  shippingDiscount: null,
  minimumCartAmount: null,
  availableTo: 'Everyone',
  availableToObjectIds: [],
  combinability: 'combinable',
  requiresManagerApproval: false,
  excludesServiceCharges: true,
  maxDiscountAmount: null,
}

// A cabernet (2 × $45), a tasting flight ($25) and a shirt ($30); $15 shipping, $10 service charge.
const cart: CartSummary = {
  subtotalCents: 14_500,
  lines: [
    { productId: 'cab', collectionIds: ['reds', 'wine'], quantity: 2, amountCents: 9_000 },
    { productId: 'flight', collectionIds: ['tastings'], quantity: 1, amountCents: 2_500 },
    { productId: 'shirt', quantity: 1, amountCents: 3_000 },
  ],
  shippingCents: 1_500,
  serviceChargeCents: 1_000,
  now: '2025-07-04T18:00:00Z',
}

const apply = (terms: Partial<CouponTerms>, summary: Partial<CartSummary> = {}) =>
  applyCoupon({ ...base, ...terms }, { ...cart, ...summary })

const amounts = (terms: Partial<CouponTerms>, summary: Partial<CartSummary> = {}) => {
  const outcome = apply(terms, summary)
  if (!outcome.applies) throw new Error(`refused: ${outcome.reason}`)
  return [outcome.productDiscountCents, outcome.shippingDiscountCents]
}

const reason = (terms: Partial<CouponTerms>, summary: Partial<CartSummary> = {}) => {
  const outcome = apply(terms, summary)
  return outcome.applies ? 'applies' : outcome.reason
}

describe('applyCoupon: worked examples', () => {
  test('10% off the store: $14.50 off $145.00', () => {
    expect(apply({})).toEqual({
      applies: true,
      discountCents: 1_450,
      productDiscountCents: 1_450,
      shippingDiscountCents: 0,
      eligibleCents: 14_500,
      // $90 : $25 : $30 of $14.50 → 900, 250, 300
      lineDiscountCents: [900, 250, 300],
      serviceChargeDiscountCents: 0,
      capped: false,
    })
  })

  test('percentages round half up to the cent', () => {
    // 12.5% of $0.99 = 12.375 cents → 12; 12.5% of $1.00 = 12.5 → 13.
    expect(
      amounts(
        { productDiscount: 1250 },
        { subtotalCents: 99, lines: [{ productId: 'a', quantity: 1, amountCents: 99 }] },
      ),
    ).toEqual([12, 0])
    expect(
      amounts(
        { productDiscount: 1250 },
        { subtotalCents: 100, lines: [{ productId: 'a', quantity: 1, amountCents: 100 }] },
      ),
    ).toEqual([13, 0])
  })

  test('Product and Collection coupons discount only their lines', () => {
    expect(amounts({ appliesTo: 'Product', appliesToObjectIds: ['shirt'], productDiscount: 5000 })).toEqual([
      1_500, 0,
    ])
    expect(
      amounts({ appliesTo: 'Collection', appliesToObjectIds: ['reds', 'tastings'], productDiscount: 2000 }),
    ).toEqual([2_300, 0])
    expect(reason({ appliesTo: 'Product', appliesToObjectIds: ['merlot'] })).toBe('no_eligible_items')
  })

  test('Dollar Off never exceeds what it applies to', () => {
    expect(amounts({ productDiscountType: 'Dollar Off', productDiscount: 2_000 })).toEqual([2_000, 0])
    expect(
      amounts({
        appliesTo: 'Product',
        appliesToObjectIds: ['flight'],
        productDiscountType: 'Dollar Off',
        productDiscount: 5_000,
      }),
    ).toEqual([2_500, 0])
  })

  test('Set Price sells each eligible unit at the price', () => {
    // Cabernet at $35 a bottle: 2 × ($45 − $35) = $20 off; items already cheaper are not raised.
    expect(
      amounts({
        appliesTo: 'Product',
        appliesToObjectIds: ['cab', 'flight'],
        productDiscountType: 'Set Price',
        productDiscount: 3_500,
      }),
    ).toEqual([2_000, 0])
  })

  test('Free products and shipping discounts', () => {
    expect(
      amounts({
        appliesTo: 'Product',
        appliesToObjectIds: ['flight'],
        productDiscountType: 'Free',
        productDiscount: null,
      }),
    ).toEqual([2_500, 0])
    expect(
      amounts({ productDiscountType: 'No Discount', productDiscount: null, shippingDiscountType: 'Free' }),
    ).toEqual([0, 1_500])
    expect(
      amounts({
        productDiscountType: 'No Discount',
        productDiscount: null,
        shippingDiscountType: 'Set Price',
        shippingDiscount: 500,
      }),
    ).toEqual([0, 1_000])
    expect(amounts({ shippingDiscountType: 'Dollar Off', shippingDiscount: 2_000 })).toEqual([1_450, 1_500])
    expect(
      amounts({ shippingDiscountType: 'Percentage Off', shippingDiscount: 5000 }, { shippingCents: 0 }),
    ).toEqual([1_450, 0])
  })

  test('maxDiscountAmount caps products first, then shipping', () => {
    expect(
      amounts({ productDiscount: 5000, shippingDiscountType: 'Free', maxDiscountAmount: 8_000 }),
    ).toEqual([7_250, 750])
    expect(
      amounts({ productDiscount: 10_000, shippingDiscountType: 'Free', maxDiscountAmount: 5_000 }),
    ).toEqual([5_000, 0])
  })

  test('service charges join a Store discount only when not excluded', () => {
    expect(
      amounts({ productDiscountType: 'Free', productDiscount: null, excludesServiceCharges: false }),
    ).toEqual([15_500, 0])
    expect(
      amounts({ productDiscountType: 'Free', productDiscount: null, excludesServiceCharges: true }),
    ).toEqual([14_500, 0])
    // A Product coupon never touches service charges.
    expect(
      amounts({
        appliesTo: 'Product',
        appliesToObjectIds: ['shirt'],
        productDiscountType: 'Free',
        productDiscount: null,
        excludesServiceCharges: false,
      }),
    ).toEqual([3_000, 0])
  })

  test('status and dates, inclusive, read in the location time zone', () => {
    expect(reason({ status: 'Disabled' })).toBe('disabled')
    expect(reason({ startDate: '2025-07-05' })).toBe('not_started')
    expect(reason({ endDate: '2025-07-03' })).toBe('expired')
    expect(reason({ startDate: '2025-07-04', endDate: '2025-07-04' })).toBe('applies')
    // 2025-07-05T02:00Z is still July 4th in Los Angeles.
    const lateNight = { now: '2025-07-05T02:00:00Z' }
    expect(reason({ endDate: '2025-07-04' }, lateNight)).toBe('expired')
    expect(reason({ endDate: '2025-07-04' }, { ...lateNight, timeZone: 'America/Los_Angeles' })).toBe(
      'applies',
    )
  })

  test('usage limits', () => {
    expect(reason({ usageLimitType: 'Total', usageLimit: 100 }, { usageCount: 99 })).toBe('applies')
    expect(reason({ usageLimitType: 'Total', usageLimit: 100 }, { usageCount: 100 })).toBe(
      'usage_limit_reached',
    )
    expect(reason({ usageLimitType: 'Per Customer', usageLimit: 1 })).toBe('customer_required')
    expect(
      reason(
        { usageLimitType: 'Per Customer', usageLimit: 1 },
        { customer: { id: 'c1' }, customerUsageCount: 0 },
      ),
    ).toBe('applies')
    expect(
      reason(
        { usageLimitType: 'Per Customer', usageLimit: 1 },
        { customer: { id: 'c1' }, customerUsageCount: 1 },
      ),
    ).toBe('customer_usage_limit_reached')
  })

  test('availability to customers, clubs and customer tags', () => {
    expect(
      reason({ availableTo: 'Customer', availableToObjectIds: ['c1'] }, { customer: { id: 'c1' } }),
    ).toBe('applies')
    expect(
      reason({ availableTo: 'Customer', availableToObjectIds: ['c1'] }, { customer: { id: 'c2' } }),
    ).toBe('not_available_to_customer')
    expect(reason({ availableTo: 'Customer', availableToObjectIds: ['c1'] })).toBe(
      'not_available_to_customer',
    )
    expect(
      reason(
        { availableTo: 'Club', availableToObjectIds: ['gold'] },
        { customer: { id: 'c1', clubIds: ['silver', 'gold'] } },
      ),
    ).toBe('applies')
    expect(
      reason(
        { availableTo: 'Club', availableToObjectIds: ['gold'] },
        { customer: { id: 'c1', clubIds: ['silver'] } },
      ),
    ).toBe('not_available_to_customer')
    expect(
      reason(
        { availableTo: 'Customer Tag', availableToObjectIds: ['vip'] },
        { customer: { tagIds: ['vip'] } },
      ),
    ).toBe('applies')
  })

  test('combinability, minimum cart and manager approval', () => {
    expect(reason({}, { otherCoupons: [{ combinability: 'combinable' }] })).toBe('applies')
    expect(reason({}, { otherCoupons: [{ combinability: 'exclusive' }] })).toBe('not_combinable')
    expect(reason({ combinability: 'exclusive' }, { otherCoupons: [{ combinability: 'combinable' }] })).toBe(
      'not_combinable',
    )
    expect(reason({ combinability: 'exclusive' })).toBe('applies')
    expect(reason({ minimumCartAmount: 14_500 })).toBe('applies')
    expect(reason({ minimumCartAmount: 14_501 })).toBe('minimum_not_met')
    expect(reason({ requiresManagerApproval: true })).toBe('manager_approval_required')
    expect(reason({ requiresManagerApproval: true }, { managerApproved: true })).toBe('applies')
  })

  test('the product discount is split over the lines: in proportion, Set Price by each line’s excess, capped', () => {
    const split = (terms: Partial<CouponTerms>, summary: Partial<CartSummary> = {}) => {
      const outcome = apply(terms, summary)
      if (!outcome.applies) throw new Error(`refused: ${outcome.reason}`)
      return [outcome.lineDiscountCents, outcome.serviceChargeDiscountCents]
    }
    // $10 off $90 / $25 / $30: 620.68…, 172.41…, 206.89… → 620, 172, 206 and the odd cents to the
    // largest remainders (206.89 and 620.68): 621, 172, 207.
    expect(split({ productDiscountType: 'Dollar Off', productDiscount: 1_000 })).toEqual([[621, 172, 207], 0])
    // Service charges take their share of a Store discount that includes them: 10% of $155.
    expect(split({ excludesServiceCharges: false })).toEqual([[900, 250, 300], 100])
    // Collection coupons touch only their lines.
    expect(
      split({ appliesTo: 'Collection', appliesToObjectIds: ['tastings'], productDiscount: 5000 }),
    ).toEqual([[0, 1_250, 0], 0])
    // Set Price $20: the cabernet gives 2 × $25, the flight $5, the shirt $10; capped at $13 the
    // $65 of excess is spread 1000 / 100 / 200.
    expect(
      split({ productDiscountType: 'Set Price', productDiscount: 2_000, maxDiscountAmount: 1_300 }),
    ).toEqual([[1_000, 100, 200], 0])
  })

  test('a line coupon (lineId) discounts that line only, and only if the coupon applies to it', () => {
    const lines = cart.lines.map((l, i) => ({ ...l, id: `l${i}` }))
    const outcome = apply(
      { productDiscountType: 'Dollar Off', productDiscount: 500 },
      { lines, lineId: 'l1' },
    )
    expect(outcome).toMatchObject({
      applies: true,
      productDiscountCents: 500,
      lineDiscountCents: [0, 500, 0],
    })
    // A line coupon never reaches the service charges, even when the coupon includes them.
    expect(apply({ excludesServiceCharges: false }, { lines, lineId: 'l2' })).toMatchObject({
      eligibleCents: 3_000,
      serviceChargeDiscountCents: 0,
    })
    expect(reason({ appliesTo: 'Product', appliesToObjectIds: ['cab'] }, { lines, lineId: 'l1' })).toBe(
      'no_eligible_items',
    )
    expect(reason({}, { lines, lineId: 'missing' })).toBe('no_eligible_items')
    // A line with no product (an open item) is never a Product coupon's line.
    const open = [{ id: 'o', productId: null, quantity: 1, amountCents: 1_000 }]
    expect(reason({ appliesTo: 'Product', appliesToObjectIds: ['cab'] }, { lines: open })).toBe(
      'no_eligible_items',
    )
    expect(amounts({}, { lines: open, subtotalCents: 1_000 })).toEqual([100, 0])
  })

  test('the same coupon twice is refused when the coupons carry ids', () => {
    const others = [{ id: 'c-10', combinability: 'combinable' as const }]
    expect(applyCoupon({ ...base, id: 'c-10' }, { ...cart, otherCoupons: others })).toMatchObject({
      applies: false,
      reason: 'already_applied',
    })
    expect(applyCoupon({ ...base, id: 'c-20' }, { ...cart, otherCoupons: others }).applies).toBe(true)
  })

  test('couponDiscount recomputes the amount without the admission checks, still minding the minimum', () => {
    const held = {
      ...base,
      status: 'Disabled' as const,
      endDate: '2000-01-01',
      requiresManagerApproval: true,
    }
    expect(couponDiscount(held, cart)).toMatchObject({ applies: true, discountCents: 1_450 })
    expect(couponDiscount({ ...held, minimumCartAmount: 20_000 }, cart)).toMatchObject({
      applies: false,
      reason: 'minimum_not_met',
    })
  })

  test('a refusal carries a message for the guest', () => {
    const outcome = apply({ endDate: '2025-01-31' })
    expect(outcome).toEqual({ applies: false, reason: 'expired', message: 'This coupon ended on 2025-01-31' })
  })

  test('a malformed cart is a programming error, not a silent zero', () => {
    expect(() => apply({}, { subtotalCents: -1 })).toThrow(RangeError)
    expect(() => apply({}, { lines: [{ productId: 'a', quantity: 0, amountCents: 100 }] })).toThrow(
      RangeError,
    )
    expect(() => apply({}, { lines: [{ productId: 'a', quantity: 1, amountCents: 1.5 }] })).toThrow(
      RangeError,
    )
  })
})

// Arbitrary valid coupons (valid by the same rules the API enforces) and carts.
const productIds = ['p1', 'p2', 'p3', 'p4']
const collectionIds = ['c1', 'c2', 'c3']
const discount = fc
  .constantFrom(...discountTypes)
  .chain((type) =>
    (type === 'No Discount' || type === 'Free'
      ? fc.constant(null)
      : type === 'Percentage Off'
        ? fc.integer({ min: 1, max: 10_000 })
        : fc.integer({ min: type === 'Dollar Off' ? 1 : 0, max: 50_000 })
    ).map((value) => ({ type, value })),
  )
const couponArb: fc.Arbitrary<CouponTerms> = fc
  .record({
    product: discount,
    shipping: discount,
    appliesTo: fc.constantFrom('Store' as const, 'Product' as const, 'Collection' as const),
    products: fc.uniqueArray(fc.constantFrom(...productIds), { minLength: 1 }),
    collections: fc.uniqueArray(fc.constantFrom(...collectionIds), { minLength: 1 }),
    maxDiscountAmount: fc.option(fc.integer({ min: 1, max: 100_000 }), { nil: null }),
    minimumCartAmount: fc.option(fc.integer({ min: 0, max: 20_000 }), { nil: null }),
    excludesServiceCharges: fc.boolean(),
  })
  .map((r) => ({
    ...base,
    productDiscountType: r.product.type,
    productDiscount: r.product.value,
    shippingDiscountType: r.shipping.type,
    shippingDiscount: r.shipping.value,
    appliesTo: r.appliesTo,
    appliesToObjectIds: r.appliesTo === 'Store' ? [] : r.appliesTo === 'Product' ? r.products : r.collections,
    maxDiscountAmount: r.maxDiscountAmount,
    minimumCartAmount: r.minimumCartAmount,
    excludesServiceCharges: r.excludesServiceCharges,
  }))
const cartArb: fc.Arbitrary<CartSummary> = fc
  .record({
    lines: fc.array(
      fc.record({
        productId: fc.constantFrom(...productIds),
        collectionIds: fc.uniqueArray(fc.constantFrom(...collectionIds)),
        quantity: fc.integer({ min: 1, max: 12 }),
        amountCents: fc.integer({ min: 0, max: 200_000 }),
      }),
      { maxLength: 6 },
    ),
    shippingCents: fc.integer({ min: 0, max: 10_000 }),
    serviceChargeCents: fc.integer({ min: 0, max: 10_000 }),
  })
  .map((r) => ({
    ...r,
    subtotalCents: r.lines.reduce((s, l) => s + l.amountCents, 0),
    now: '2025-07-04T12:00:00Z',
  }))

describe('applyCoupon: properties', () => {
  test('the generated coupons obey the API rules', () => {
    fc.assert(
      fc.property(couponArb, (coupon) => {
        expect(
          couponErrors({
            ...coupon,
            code: 'X',
            title: 'x',
            actionMessage: null,
            serviceChargeInteraction: 'pre_discount',
            promotionSets: [],
          }),
        ).toEqual([])
      }),
    )
  })

  test('discounts are whole cents, never negative, never above the eligible amount or the shipping', () => {
    fc.assert(
      fc.property(couponArb, cartArb, (coupon, summary) => {
        const outcome = applyCoupon(coupon, summary)
        if (!outcome.applies) return
        for (const v of [
          outcome.discountCents,
          outcome.productDiscountCents,
          outcome.shippingDiscountCents,
        ]) {
          expect(Number.isSafeInteger(v)).toBe(true)
          expect(v).toBeGreaterThanOrEqual(0)
        }
        expect(outcome.productDiscountCents).toBeLessThanOrEqual(outcome.eligibleCents)
        expect(outcome.shippingDiscountCents).toBeLessThanOrEqual(summary.shippingCents ?? 0)
        expect(outcome.discountCents).toBe(outcome.productDiscountCents + outcome.shippingDiscountCents)
        const lines = summary.lines.reduce((s, l) => s + l.amountCents, 0)
        expect(outcome.eligibleCents).toBeLessThanOrEqual(lines + (summary.serviceChargeCents ?? 0))
      }),
    )
  })

  test('the line split adds up to the product discount and never exceeds a line', () => {
    fc.assert(
      fc.property(couponArb, cartArb, (coupon, summary) => {
        const outcome = applyCoupon(coupon, summary)
        if (!outcome.applies) return
        expect(outcome.lineDiscountCents).toHaveLength(summary.lines.length)
        const shared = outcome.lineDiscountCents.reduce((s, c) => s + c, 0)
        expect(shared + outcome.serviceChargeDiscountCents).toBe(outcome.productDiscountCents)
        outcome.lineDiscountCents.forEach((c, i) => {
          expect(c).toBeGreaterThanOrEqual(0)
          expect(c).toBeLessThanOrEqual(summary.lines[i]!.amountCents)
        })
        expect(outcome.serviceChargeDiscountCents).toBeLessThanOrEqual(summary.serviceChargeCents ?? 0)
      }),
    )
  })

  test('allocate splits exactly and never gives a share above its weight', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 100_000 }), { maxLength: 8 }),
        fc.nat(),
        (weights, n) => {
          const total = weights.reduce((a, b) => a + b, 0)
          const amount = total === 0 ? 0 : n % (total + 1)
          const shares = allocate(amount, weights)
          expect(shares.reduce((a, b) => a + b, 0)).toBe(amount)
          shares.forEach((s, i) => {
            expect(s).toBeLessThanOrEqual(weights[i]!)
          })
        },
      ),
    )
  })

  test('maxDiscountAmount caps the whole discount', () => {
    fc.assert(
      fc.property(couponArb, cartArb, (coupon, summary) => {
        const outcome = applyCoupon(coupon, summary)
        if (outcome.applies && coupon.maxDiscountAmount !== null)
          expect(outcome.discountCents).toBeLessThanOrEqual(coupon.maxDiscountAmount)
      }),
    )
  })

  test('removing the cap never lowers the discount; with a cap it is min(uncapped, cap)', () => {
    fc.assert(
      fc.property(couponArb, cartArb, (coupon, summary) => {
        const capped = applyCoupon(coupon, summary)
        const uncapped = applyCoupon({ ...coupon, maxDiscountAmount: null }, summary)
        if (!capped.applies || !uncapped.applies) return
        expect(capped.discountCents).toBe(
          Math.min(uncapped.discountCents, coupon.maxDiscountAmount ?? Number.MAX_SAFE_INTEGER),
        )
      }),
    )
  })

  test('a bigger percentage never gives a smaller discount', () => {
    fc.assert(
      fc.property(
        cartArb,
        fc.integer({ min: 1, max: 10_000 }),
        fc.integer({ min: 1, max: 10_000 }),
        (summary, a, b) => {
          const [lo, hi] = a <= b ? [a, b] : [b, a]
          const low = applyCoupon({ ...base, productDiscount: lo }, summary)
          const high = applyCoupon({ ...base, productDiscount: hi }, summary)
          if (low.applies && high.applies) expect(low.discountCents).toBeLessThanOrEqual(high.discountCents)
        },
      ),
    )
  })

  test('a disabled coupon never applies, whatever the cart', () => {
    fc.assert(
      fc.property(couponArb, cartArb, (coupon, summary) => {
        expect(applyCoupon({ ...coupon, status: 'Disabled' }, summary)).toMatchObject({
          applies: false,
          reason: 'disabled',
        })
      }),
    )
  })
})
