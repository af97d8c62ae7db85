// The pricing engine: examples worked by hand, then properties over random orders.
import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { allocate } from '../../../src/modules/coupons/apply'
import {
  contributionOn,
  lineTax,
  modifierAmount,
  type PricingDiscount,
  type PricingLine,
  type PricingModifier,
  priceOrder,
} from '../../../src/modules/orders/pricing'

const mod = (priceDelta: number, extra: Partial<PricingModifier> = {}): PricingModifier => ({
  priceDelta,
  quantity: 1,
  portionMultiplierBps: 10_000,
  pricingStrategy: 'base',
  openPriceAmount: null,
  modifiers: [],
  ...extra,
})

const line = (id: string, unitPrice: number, extra: Partial<PricingLine> = {}): PricingLine => ({
  id,
  unitPrice,
  quantity: 1,
  modifiers: [],
  taxRateBps: 0,
  taxCalculation: 'Added',
  voided: false,
  // Each test line is its own product, so `eligibleLineIds` below name products.
  productId: id,
  ...extra,
})

/** An order discount in the terms of an AppliedDiscount (`amount`, `percentage`, `set_price`). */
interface DiscountShorthand {
  discountType?: 'amount' | 'percentage' | 'set_price'
  value?: number
  maxDiscountAmount?: number | null
  minimumCartAmount?: number | null
  lineItemId?: string | null
  /** Lines (products) an order discount may reduce; absent or null: every line (a Store coupon). */
  eligibleLineIds?: string[] | null
}

const couponTypes = { amount: 'Dollar Off', percentage: 'Percentage Off', set_price: 'Set Price' } as const

const discount = (id: string, d: DiscountShorthand): PricingDiscount => ({
  id,
  lineItemId: d.lineItemId ?? null,
  terms: {
    appliesTo: d.eligibleLineIds ? 'Product' : 'Store',
    appliesToObjectIds: d.eligibleLineIds ?? [],
    productDiscountType: couponTypes[d.discountType ?? 'amount'],
    productDiscount: d.value ?? 0,
    shippingDiscountType: 'No Discount',
    shippingDiscount: null,
    minimumCartAmount: d.minimumCartAmount ?? null,
    excludesServiceCharges: true,
    maxDiscountAmount: d.maxDiscountAmount ?? null,
  },
})

const price = (lines: PricingLine[], discounts: PricingDiscount[] = [], extra = {}) =>
  priceOrder({ lines, discounts, tipTotal: 0, fundraising: null, ...extra })

describe('rounding primitives', () => {
  test('added tax on 2.00 at 8.75% is 0.175 -> 0.18 (half-up)', () => {
    expect(lineTax(200, 875, 'Added')).toBe(18)
  })

  test('included tax: 11.00 at 10% holds 1.00; 9.99 at 20% holds 1.66', () => {
    expect(lineTax(1100, 1000, 'Included')).toBe(100)
    // 999 × 10000 / 12000 = 832.5 -> 833 net of tax, so 166 tax
    expect(lineTax(999, 2000, 'Included')).toBe(166)
  })

  test('allocate splits exactly, ties to earlier entries', () => {
    expect(allocate(100, [1000, 1000, 1000])).toEqual([34, 33, 33])
    expect(allocate(500, [900, 2700])).toEqual([125, 375])
    expect(allocate(7, [0, 5, 5])).toEqual([0, 4, 3])
  })
})

describe('worked examples', () => {
  test('modifiers with nesting and quantity: burger 12.50 + cheese 1.00 + bacon 2.50 (extra crispy 0.50) + no onion, ×2, 8.75% added', () => {
    const burger = line('burger', 1250, {
      quantity: 2,
      taxRateBps: 875,
      modifiers: [mod(100), mod(250, { modifiers: [mod(50)] }), mod(75, { pricingStrategy: 'no_charge' })],
    })
    const priced = price([burger])
    // per unit: 1250 + 100 + (250 + 50) + 0 = 1650; ×2 = 3300; tax 3300 × 0.0875 = 288.75 -> 289
    expect(priced.lines.get('burger')).toEqual({
      modifierTotal: 400,
      subtotal: 3300,
      discountAmount: 0,
      bottleDepositAmount: 0,
      taxAmount: 289,
      total: 3589,
    })
    expect(priced.totals).toMatchObject({ subtotal: 3300, taxTotal: 289, total: 3589 })
  })

  test('portions: half pepperoni 2.50 -> 1.25, half mushrooms 1.75 -> 0.875 -> 0.88', () => {
    const pizza = line('pizza', 1800, {
      modifiers: [mod(250, { portionMultiplierBps: 5000 }), mod(175, { portionMultiplierBps: 5000 })],
    })
    expect(price([pizza]).lines.get('pizza')!.subtotal).toBe(2013)
  })

  test('modifier quantity multiplies its nested modifiers; open price modifiers charge their amount', () => {
    // 2 × (shot 1.00 + syrup 0.30) = 2.60; open-price 4.25
    expect(modifierAmount(mod(100, { quantity: 2, modifiers: [mod(30)] }))).toBe(260)
    expect(modifierAmount(mod(0, { pricingStrategy: 'open_price', openPriceAmount: 425 }))).toBe(425)
    // a half portion of a -0.75 credit is -0.375 -> -0.38
    expect(modifierAmount(mod(-75, { portionMultiplierBps: 5000 }))).toBe(-38)
  })

  test('included versus added tax on the same 10.00 line at 10%', () => {
    const added = price([line('a', 1000, { taxRateBps: 1000, taxCalculation: 'Added' })]).totals
    const included = price([line('a', 1000, { taxRateBps: 1000, taxCalculation: 'Included' })]).totals
    expect(added).toMatchObject({ subtotal: 1000, taxTotal: 100, includedTaxTotal: 0, total: 1100 })
    // 1000 × 10000 / 11000 = 909.09 -> 909 net, so 91 of the 10.00 is tax; the guest pays 10.00
    expect(included).toMatchObject({ subtotal: 1000, taxTotal: 91, includedTaxTotal: 91, total: 1000 })
  })

  test('stacked discounts apply in order to what is left: 10% then 5.00 off 10.00 + 30.00', () => {
    const priced = price(
      [line('a', 1000), line('b', 3000)],
      [discount('pct', { discountType: 'percentage', value: 1000 }), discount('five', { value: 500 })],
    )
    expect(priced.discounts.get('pct')!.amount).toBe(400)
    expect(priced.discounts.get('five')!.amount).toBe(500)
    expect(priced.lines.get('a')!.discountAmount).toBe(100 + 125)
    expect(priced.lines.get('b')!.discountAmount).toBe(300 + 375)
    expect(priced.totals).toMatchObject({ subtotal: 4000, discountTotal: 900, total: 3100 })
  })

  test('a capped percentage: 50% off 40.00 capped at 15.00', () => {
    const priced = price(
      [line('a', 4000)],
      [discount('half', { discountType: 'percentage', value: 5000, maxDiscountAmount: 1500 })],
    )
    expect(priced.discounts.get('half')).toEqual({
      amount: 1500,
      eligibilitySummary: '50% of 40.00 eligible, capped at 15.00.',
    })
    expect(priced.totals.total).toBe(2500)
  })

  test('an amount discount larger than the order stops at zero, and tax is on the discounted amount', () => {
    const priced = price([line('a', 4000, { taxRateBps: 875 })], [discount('big', { value: 5000 })])
    expect(priced.totals).toMatchObject({ subtotal: 4000, discountTotal: 4000, taxTotal: 0, total: 0 })
    const ten = price(
      [line('a', 1000, { taxRateBps: 875 })],
      [discount('d', { discountType: 'percentage', value: 1000 })],
    )
    // 900 × 0.0875 = 78.75 -> 79
    expect(ten.totals).toMatchObject({ discountTotal: 100, taxTotal: 79, total: 979 })
  })

  test('line discounts and product-eligible discounts touch only their lines', () => {
    const priced = price(
      [line('wine', 3000), line('food', 2000)],
      [
        discount('onWine', { discountType: 'percentage', value: 2000, eligibleLineIds: ['wine'] }),
        discount('onFood', { value: 300, lineItemId: 'food' }),
      ],
    )
    expect(priced.lines.get('wine')!.discountAmount).toBe(600)
    expect(priced.lines.get('food')!.discountAmount).toBe(300)
  })

  test('set price: each eligible unit costs the set price; lines already below it give nothing', () => {
    const priced = price(
      [line('a', 1200, { quantity: 3 }), line('b', 800), line('c', 2000)],
      [discount('sp', { discountType: 'set_price', value: 1000, eligibleLineIds: ['a', 'b'] })],
    )
    // a: 3600 − 3 × 1000 = 600; b: 800 is below 1000, 0; c is not eligible
    expect([...priced.lines.values()].map((l) => l.discountAmount)).toEqual([600, 0, 0])
    expect(priced.discounts.get('sp')!.amount).toBe(600)
    const capped = price(
      [line('a', 1500), line('b', 3000)],
      [discount('sp', { discountType: 'set_price', value: 1000, maxDiscountAmount: 300 })],
    )
    // shares 500 and 2000, capped at 300, spread 60 / 240
    expect([...capped.lines.values()].map((l) => l.discountAmount)).toEqual([60, 240])
  })

  test('a minimum cart amount not met gives 0 with the reason', () => {
    const priced = price([line('a', 1999)], [discount('min', { value: 500, minimumCartAmount: 2000 })])
    expect(priced.discounts.get('min')).toEqual({
      amount: 0,
      eligibilitySummary: 'Needs a subtotal of at least 20.00; the order has 19.99.',
    })
  })

  test('round-up fundraising: 12.34 + 8.75% tax = 13.42 rounds up to 14.00 (0.58 given)', () => {
    const priced = price([line('a', 1234, { taxRateBps: 875 })], [], {
      fundraising: { contributionType: 'round_up', contributionValue: 100 },
      tipTotal: 200,
    })
    // tax 1234 × 0.0875 = 107.975 -> 108; due 1342; contribution 58; total 1400 + tip 200
    expect(priced.totals).toMatchObject({
      taxTotal: 108,
      contributionAmountCents: 58,
      tipTotal: 200,
      total: 1600,
    })
    expect(contributionOn(1400, { contributionType: 'round_up', contributionValue: 100 })).toBe(0)
    expect(contributionOn(1401, { contributionType: 'round_up', contributionValue: 500 })).toBe(99)
    expect(contributionOn(1401, { contributionType: 'fixed', contributionValue: 250 })).toBe(250)
  })

  test('voided lines count nothing', () => {
    const priced = price([
      line('a', 1000, { taxRateBps: 875 }),
      line('b', 500, { voided: true, taxRateBps: 875 }),
    ])
    expect(priced.lines.get('b')).toMatchObject({ subtotal: 0, taxAmount: 0, total: 0 })
    expect(priced.totals).toMatchObject({ subtotal: 1000, taxTotal: 88, total: 1088 })
  })
})

// ---- Properties ----

const modifierWith = (nested: fc.Arbitrary<PricingModifier[]>): fc.Arbitrary<PricingModifier> =>
  fc.record({
    priceDelta: fc.integer({ min: -200, max: 2000 }),
    quantity: fc.integer({ min: 1, max: 3 }),
    portionMultiplierBps: fc.constantFrom(10_000, 5_000, 3_333, 2_500, 15_000),
    pricingStrategy: fc.constantFrom('base' as const, 'no_charge' as const, 'open_price' as const),
    openPriceAmount: fc.integer({ min: 0, max: 1500 }),
    modifiers: nested,
  })

// Three levels, as the API allows.
const modifierArb = modifierWith(
  fc.array(modifierWith(fc.array(modifierWith(fc.constant([])), { maxLength: 2 })), { maxLength: 2 }),
)

const orderArb = fc
  .record({
    calc: fc.constantFrom('Added' as const, 'Included' as const, 'mixed' as const),
    lines: fc.array(
      fc.record({
        unitPrice: fc.integer({ min: 0, max: 50_000 }),
        quantity: fc.integer({ min: 1, max: 12 }),
        modifiers: fc.array(modifierArb, { maxLength: 3 }),
        taxRateBps: fc.constantFrom(0, 500, 725, 875, 1000, 2000, 2500),
        included: fc.boolean(),
        voided: fc.boolean(),
      }),
      { minLength: 1, maxLength: 8 },
    ),
    discounts: fc.array(
      fc.record({
        discountType: fc.constantFrom('amount' as const, 'percentage' as const, 'set_price' as const),
        amountValue: fc.integer({ min: 0, max: 30_000 }),
        bps: fc.integer({ min: 0, max: 10_000 }),
        maxDiscountAmount: fc.option(fc.integer({ min: 0, max: 10_000 })),
        minimumCartAmount: fc.option(fc.integer({ min: 0, max: 100_000 })),
        target: fc.option(fc.nat()),
        eligibleMask: fc.option(fc.array(fc.boolean(), { minLength: 8, maxLength: 8 })),
      }),
      { maxLength: 4 },
    ),
    tipTotal: fc.integer({ min: 0, max: 5_000 }),
    fundraising: fc.option(
      fc.record({
        contributionType: fc.constantFrom('round_up' as const, 'fixed' as const),
        contributionValue: fc.integer({ min: 1, max: 1_000 }),
      }),
    ),
  })
  .map((o) => {
    const lines: PricingLine[] = o.lines
      .map((l, i) => ({
        id: `l${i}`,
        unitPrice: l.unitPrice,
        quantity: l.quantity,
        modifiers: l.modifiers,
        taxRateBps: l.taxRateBps,
        taxCalculation: o.calc === 'mixed' ? (l.included ? 'Included' : 'Added') : o.calc,
        voided: l.voided,
        productId: `l${i}`,
      }))
      // The service refuses lines whose modifiers take the unit price below zero.
      .map((l) =>
        l.unitPrice + l.modifiers.reduce((s, m) => s + modifierAmount(m), 0) < 0
          ? { ...l, modifiers: [] }
          : l,
      )
    const discounts: PricingDiscount[] = o.discounts.map((d, i) =>
      discount(`d${i}`, {
        discountType: d.discountType,
        value: d.discountType === 'percentage' ? d.bps : d.amountValue,
        maxDiscountAmount: d.maxDiscountAmount,
        minimumCartAmount: d.minimumCartAmount,
        lineItemId: d.target === null ? null : `l${d.target % lines.length}`,
        eligibleLineIds: d.eligibleMask ? lines.filter((_, j) => d.eligibleMask![j]).map((l) => l.id) : null,
      }),
    )
    return { calc: o.calc, lines, discounts, tipTotal: o.tipTotal, fundraising: o.fundraising }
  })

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0)

describe('properties over random orders', () => {
  test('the header equals the sums of the lines, and total = subtotal − discounts + added tax + tip + contribution', () => {
    fc.assert(
      fc.property(orderArb, (order) => {
        const { lines, discounts, totals } = priceOrder(order)
        const amounts = [...lines.values()]
        expect(sum(amounts.map((a) => a.subtotal))).toBe(totals.subtotal)
        expect(sum(amounts.map((a) => a.discountAmount))).toBe(totals.discountTotal)
        expect(sum([...discounts.values()].map((d) => d.amount))).toBe(totals.discountTotal)
        expect(sum(amounts.map((a) => a.taxAmount))).toBe(totals.taxTotal)
        expect(sum(amounts.map((a) => a.total)) + totals.tipTotal + totals.contributionAmountCents).toBe(
          totals.total,
        )
        expect(totals.total).toBe(
          totals.subtotal -
            totals.discountTotal +
            (totals.taxTotal - totals.includedTaxTotal) +
            totals.tipTotal +
            totals.contributionAmountCents,
        )
        if (order.calc === 'Added') {
          expect(totals.includedTaxTotal).toBe(0)
          expect(totals.total).toBe(
            totals.subtotal -
              totals.discountTotal +
              totals.taxTotal +
              totals.tipTotal +
              totals.contributionAmountCents,
          )
        }
        if (order.calc === 'Included') expect(totals.includedTaxTotal).toBe(totals.taxTotal)
      }),
      { numRuns: 400 },
    )
  })

  test('no amount is ever negative, fractional, or more than what it reduces', () => {
    fc.assert(
      fc.property(orderArb, (order) => {
        const { lines, discounts, totals } = priceOrder(order)
        for (const value of Object.values(totals)) {
          expect(Number.isSafeInteger(value)).toBe(true)
          expect(value).toBeGreaterThanOrEqual(0)
        }
        for (const [id, a] of lines) {
          expect(a.discountAmount).toBeGreaterThanOrEqual(0)
          expect(a.discountAmount).toBeLessThanOrEqual(a.subtotal)
          expect(a.taxAmount).toBeGreaterThanOrEqual(0)
          expect(a.total).toBeGreaterThanOrEqual(0)
          const source = order.lines.find((l) => l.id === id)!
          if (source.voided)
            expect(a).toMatchObject({ subtotal: 0, discountAmount: 0, taxAmount: 0, total: 0 })
          if (source.taxCalculation === 'Included')
            expect(a.taxAmount).toBeLessThanOrEqual(a.subtotal - a.discountAmount)
        }
        order.discounts.forEach((d) => {
          const amount = discounts.get(d.id)!.amount
          expect(amount).toBeGreaterThanOrEqual(0)
          const { maxDiscountAmount, productDiscountType, productDiscount } = d.terms
          if (maxDiscountAmount !== null) expect(amount).toBeLessThanOrEqual(maxDiscountAmount)
          if (productDiscountType === 'Dollar Off') expect(amount).toBeLessThanOrEqual(productDiscount!)
        })
      }),
      { numRuns: 400 },
    )
  })

  test('a round-up leaves the amount due before tips on a whole multiple', () => {
    fc.assert(
      fc.property(orderArb, fc.integer({ min: 1, max: 1000 }), (order, unit) => {
        const { totals } = priceOrder({
          ...order,
          fundraising: { contributionType: 'round_up', contributionValue: unit },
        })
        expect((totals.total - totals.tipTotal) % unit).toBe(0)
        expect(totals.contributionAmountCents).toBeLessThan(unit)
      }),
      { numRuns: 200 },
    )
  })

  test('tax per line is the half-up rounding of the exact rational tax', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10_000_000 }),
        fc.integer({ min: 0, max: 10_000 }),
        (net, bps) => {
          const exact = (net * bps) / 10_000
          expect(Math.abs(lineTax(net, bps, 'Added') - exact)).toBeLessThanOrEqual(0.5)
          const inside = lineTax(net, bps, 'Included')
          const exactInside = net - (net * 10_000) / (10_000 + bps)
          expect(Math.abs(inside - exactInside)).toBeLessThanOrEqual(0.5)
        },
      ),
    )
  })
})

// ---- Orders with every kind of charge ----

/** A coupon's shipping value for its type: basis points, cents, or none. */
const shippingValue = (t: { shippingDiscountType: string; shippingBps: number; shippingCents: number }) =>
  t.shippingDiscountType === 'Percentage Off'
    ? t.shippingBps
    : t.shippingDiscountType === 'Dollar Off' || t.shippingDiscountType === 'Set Price'
      ? t.shippingCents
      : null

/**
 * A random order as above, with bottle deposits, service charges, shipping and coupons that reach
 * charges and shipping.
 */
const chargedOrderArb = fc
  .record({
    order: orderArb,
    deposits: fc.array(fc.constantFrom(0, 5, 10, 25, 150), { minLength: 8, maxLength: 8 }),
    discountTerms: fc.array(
      fc.record({
        excludesServiceCharges: fc.boolean(),
        interaction: fc.constantFrom('pre_discount' as const, 'post_discount' as const, null),
        shippingDiscountType: fc.constantFrom(
          'No Discount' as const,
          'Percentage Off' as const,
          'Dollar Off' as const,
          'Set Price' as const,
          'Free' as const,
        ),
        shippingBps: fc.integer({ min: 1, max: 10_000 }),
        shippingCents: fc.integer({ min: 0, max: 25_000 }),
      }),
      { minLength: 4, maxLength: 4 },
    ),
    serviceCharges: fc.array(
      fc.record({
        chargeType: fc.constantFrom('fixed' as const, 'percent' as const),
        fixed: fc.integer({ min: 1, max: 20_000 }),
        bps: fc.integer({ min: 1, max: 10_000 }),
        taxable: fc.boolean(),
        gratuity: fc.boolean(),
        taxRateBps: fc.constantFrom(0, 725, 875, 1000),
      }),
      { maxLength: 3 },
    ),
    shipping: fc.option(
      fc.record({ amount: fc.integer({ min: 0, max: 20_000 }), taxRateBps: fc.constantFrom(0, 800) }),
    ),
    bottleDepositTaxable: fc.boolean(),
    voided: fc.boolean(),
  })
  .map(({ order, deposits, discountTerms, serviceCharges, shipping, bottleDepositTaxable, voided }) => ({
    ...order,
    lines: order.lines.map((l, i) => ({ ...l, bottleDeposit: deposits[i]!, voided: voided || l.voided })),
    discounts: order.discounts.map((d, i) => ({
      ...d,
      terms: {
        ...d.terms,
        excludesServiceCharges: discountTerms[i]!.excludesServiceCharges,
        shippingDiscountType: discountTerms[i]!.shippingDiscountType,
        shippingDiscount: shippingValue(discountTerms[i]!),
      },
      serviceChargeInteraction: discountTerms[i]!.interaction,
    })),
    serviceCharges: serviceCharges.map((c, i) => ({
      id: `s${i}`,
      chargeType: c.chargeType,
      value: c.chargeType === 'fixed' ? c.fixed : c.bps,
      taxable: c.taxable,
      gratuity: c.gratuity,
      taxRateBps: c.taxRateBps,
    })),
    shipping,
    bottleDepositTaxable,
    voided,
  }))

describe('properties over random orders with every kind of charge', () => {
  test('total = subtotal − discountTotal + serviceChargeTotal + shippingTotal + bottleDepositTotal + taxTotal (Added) + tipTotal (+ contribution), and each total is the sum of its breakdown', () => {
    fc.assert(
      fc.property(chargedOrderArb, (order) => {
        const { lines, discounts, serviceCharges, shipping, totals } = priceOrder(order)
        const amounts = [...lines.values()]
        const charges = [...serviceCharges.values()]
        expect(sum(amounts.map((a) => a.subtotal))).toBe(totals.subtotal)
        expect(sum([...amounts, ...charges].map((a) => a.discountAmount)) + shipping.discountAmount).toBe(
          totals.discountTotal,
        )
        expect(shipping.discountAmount).toBeLessThanOrEqual(shipping.amount)
        expect(sum(charges.map((c) => c.amount))).toBe(totals.serviceChargeTotal)
        expect(sum(amounts.map((a) => a.bottleDepositAmount))).toBe(totals.bottleDepositTotal)
        expect(shipping.amount).toBe(totals.shippingTotal)
        expect(sum([...amounts, ...charges].map((a) => a.taxAmount)) + shipping.taxAmount).toBe(
          totals.taxTotal,
        )
        expect(
          sum([...amounts, ...charges].map((a) => a.total)) +
            shipping.amount -
            shipping.discountAmount +
            shipping.taxAmount +
            totals.tipTotal +
            totals.contributionAmountCents,
        ).toBe(totals.total)
        expect(totals.total).toBe(
          totals.subtotal -
            totals.discountTotal +
            totals.serviceChargeTotal +
            totals.shippingTotal +
            totals.bottleDepositTotal +
            (totals.taxTotal - totals.includedTaxTotal) +
            totals.tipTotal +
            totals.contributionAmountCents,
        )
        if (order.calc === 'Added') expect(totals.includedTaxTotal).toBe(0)
        // What the discounts took from lines and charges is what they are reported to amount to,
        // plus their share of the charges.
        expect(sum([...discounts.values()].map((d) => d.amount))).toBe(totals.discountTotal)
        for (const value of Object.values(totals)) {
          expect(Number.isSafeInteger(value)).toBe(true)
          expect(value).toBeGreaterThanOrEqual(0)
        }
      }),
      { numRuns: 400 },
    )
  })

  test('charges stay within what they may: gratuities are never discounted, a discount never exceeds its charge, untaxable charges carry no tax', () => {
    fc.assert(
      fc.property(chargedOrderArb, (order) => {
        const { serviceCharges, lines } = priceOrder(order)
        for (const charge of order.serviceCharges) {
          const a = serviceCharges.get(charge.id)!
          expect(a.discountAmount).toBeLessThanOrEqual(a.amount)
          if (charge.gratuity) expect(a.discountAmount).toBe(0)
          if (!charge.taxable) expect(a.taxAmount).toBe(0)
          if (charge.chargeType === 'fixed' && !order.voided) expect(a.amount).toBe(charge.value)
        }
        for (const source of order.lines) {
          const a = lines.get(source.id)!
          expect(a.bottleDepositAmount).toBe(source.voided ? 0 : source.bottleDeposit * source.quantity)
        }
      }),
      { numRuns: 300 },
    )
  })

  test('a voided order counts 0 in every part', () => {
    fc.assert(
      fc.property(chargedOrderArb, (order) => {
        const { totals, serviceCharges, shipping } = priceOrder({
          ...order,
          voided: true,
          lines: order.lines.map((l) => ({ ...l, voided: true })),
        })
        expect(totals).toMatchObject({
          subtotal: 0,
          discountTotal: 0,
          serviceChargeTotal: 0,
          shippingTotal: 0,
          bottleDepositTotal: 0,
          taxTotal: 0,
        })
        expect(totals.total).toBe(totals.tipTotal + totals.contributionAmountCents)
        expect(shipping).toEqual({ amount: 0, discountAmount: 0, taxAmount: 0 })
        for (const a of serviceCharges.values())
          expect(a).toEqual({ amount: 0, discountAmount: 0, taxAmount: 0, total: 0 })
      }),
      { numRuns: 200 },
    )
  })
})
