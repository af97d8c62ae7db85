// The pricing engine of orders: pure functions over integer cents and basis points, no database.
// Every amount is an integer number of cents; every rate is basis points (1 bps = 0.01%);
// portion multipliers are basis points too (5000 = half). Rounding is half-up (all amounts are
// non-negative, so half-up and half-away-from-zero agree), done once per modifier portion, once
// per discount and once per line's tax, never on sums. What a discount takes, and from which
// lines, is the coupons engine's (couponDiscount); orders stack the results and tax what is left.
// Beside the lines an order carries bottle deposits (per line), service charges and shipping.
import { invalid } from '../../platform/foundation/problem'
import { divideHalfUp } from '../../platform/foundation/rounding'
import { allocate, type CouponAmountTerms, couponDiscount } from '../coupons'

export type TaxCalculation = 'Added' | 'Included'

export interface PricingModifier {
  priceDelta: number
  /** How many of this modifier per one unit of its parent (default 1). */
  quantity: number
  /** 10000 = whole portion; 5000 = half (half-pizza toppings). Applies to this modifier's own price. */
  portionMultiplierBps: number
  /** `base` charges priceDelta, `no_charge` nothing, `open_price` the openPriceAmount. */
  pricingStrategy: 'base' | 'no_charge' | 'open_price'
  openPriceAmount: number | null
  modifiers: PricingModifier[]
}

export interface PricingLine {
  id: string
  unitPrice: number
  quantity: number
  modifiers: PricingModifier[]
  taxRateBps: number
  taxCalculation: TaxCalculation
  voided: boolean
  /** For Product coupons; null or absent: no product (open items). */
  productId?: string | null
  /** For Collection coupons. */
  collectionIds?: string[]
  /** False for lines no discount may reduce (gift card sales). Default true. */
  discountable?: boolean
  /** Bottle deposit per unit (default 0): never discounted, taxed with the line when deposits are taxable. */
  bottleDeposit?: number
}

export interface PricingServiceCharge {
  id: string
  chargeType: 'fixed' | 'percent'
  /** Cents for `fixed`, basis points of the lines for `percent`. */
  value: number
  taxable: boolean
  /** A gratuity: for the staff, never reduced by a discount. */
  gratuity: boolean
  /** Tax on the charge (always Added), when taxable. */
  taxRateBps: number
}

export interface PricingShipping {
  amount: number
  /** Tax on shipping (the `freight` tax code), Added. */
  taxRateBps: number
}

export interface ServiceChargeAmounts {
  amount: number
  discountAmount: number
  taxAmount: number
  /** amount − discountAmount + taxAmount. */
  total: number
}

export interface PricingDiscount {
  id: string
  /** The coupon terms its amount follows, in the coupons module's vocabulary. */
  terms: CouponAmountTerms
  /**
   * `pre_discount` (default): percentage service charges are computed on the lines before this
   * discount; `post_discount`: after what it takes from the lines.
   */
  serviceChargeInteraction?: 'pre_discount' | 'post_discount' | null
  /** A line discount (scope `line`): only this line. */
  lineItemId: string | null
}

export type Fundraising =
  | { contributionType: 'round_up'; contributionValue: number }
  | { contributionType: 'fixed'; contributionValue: number }

export interface LineAmounts {
  /** Per unit: the sum of the modifiers' amounts (nested ones included). */
  modifierTotal: number
  /** (unitPrice + modifierTotal) × quantity. */
  subtotal: number
  discountAmount: number
  /** bottleDeposit × quantity; 0 once voided. */
  bottleDepositAmount: number
  /** On subtotal − discountAmount, plus bottleDepositAmount when deposits are taxable. */
  taxAmount: number
  /** subtotal − discountAmount + bottleDepositAmount, plus taxAmount when tax is Added. */
  total: number
}

export interface DiscountAmount {
  amount: number
  /** Why the amount is what it is: a sentence for receipts and staff. */
  eligibilitySummary: string
}

export interface OrderTotals {
  subtotal: number
  /** What discounts take from the lines, service charges and shipping. */
  discountTotal: number
  serviceChargeTotal: number
  shippingTotal: number
  bottleDepositTotal: number
  /** All tax (lines with their deposits, service charges, shipping), Added and Included. */
  taxTotal: number
  /** The part of taxTotal already inside line prices (Included tax); not added again to total. */
  includedTaxTotal: number
  tipTotal: number
  contributionAmountCents: number
  /**
   * subtotal − discountTotal + serviceChargeTotal + shippingTotal + bottleDepositTotal +
   * (taxTotal − includedTaxTotal) + tipTotal + contributionAmountCents.
   */
  total: number
}

export interface PricedOrder {
  lines: Map<string, LineAmounts>
  discounts: Map<string, DiscountAmount>
  serviceCharges: Map<string, ServiceChargeAmounts>
  /** `discountAmount`: what discounts take from the shipping (in discountTotal); tax is on the rest. */
  shipping: { amount: number; discountAmount: number; taxAmount: number }
  totals: OrderTotals
}

const BPS = 10_000n

/**
 * A computed amount, refused (400) past 2^53 cents: beyond it a double rounds, and past 2^63
 * SQLite would store a float. Inputs are bounded (MAX_MONEY), but quantities, portions and
 * nested modifiers multiply them.
 */
function exact(cents: number): number {
  if (!Number.isSafeInteger(cents))
    throw invalid(
      'body',
      `the order's amounts would pass ${Number.MAX_SAFE_INTEGER} cents and could not stay exact`,
    )
  return cents
}

/** amount × bps / 10000, rounded half-up. */
export const applyBps = (amount: number, bps: number): number =>
  Number(divideHalfUp(BigInt(amount) * BigInt(bps), BPS))

/** One unit of a modifier, nested modifiers included, times its own quantity. */
export function modifierAmount(modifier: PricingModifier): number {
  const own =
    modifier.pricingStrategy === 'no_charge'
      ? 0
      : modifier.pricingStrategy === 'open_price'
        ? (modifier.openPriceAmount ?? 0)
        : modifier.priceDelta
  // A negative delta ("no cheese, −0.50") is portioned like a positive one, rounding its size half-up.
  const portioned =
    own < 0 ? -applyBps(-own, modifier.portionMultiplierBps) : applyBps(own, modifier.portionMultiplierBps)
  const nested = exact(modifier.modifiers.reduce((sum, child) => sum + modifierAmount(child), 0))
  return exact((portioned + nested) * modifier.quantity)
}

/** Per-unit price of a line: unit price plus every modifier. Negative means the line is invalid. */
export const unitTotal = (line: Pick<PricingLine, 'unitPrice' | 'modifiers'>): number =>
  exact(line.unitPrice + line.modifiers.reduce((sum, m) => sum + modifierAmount(m), 0))

/** Tax of a net line amount: on top (`Added`) or inside it (`Included`), rounded half-up. */
export function lineTax(net: number, rateBps: number, calculation: TaxCalculation): number {
  if (net <= 0 || rateBps === 0) return 0
  if (calculation === 'Added') return applyBps(net, rateBps)
  return net - Number(divideHalfUp(BigInt(net) * BPS, BPS + BigInt(rateBps)))
}

/** The round-up or fixed contribution on an amount due (tips excluded). */
export function contributionOn(amountDue: number, fundraising: Fundraising | null): number {
  if (!fundraising) return 0
  if (fundraising.contributionType === 'fixed') return fundraising.contributionValue
  const unit = fundraising.contributionValue
  const rest = amountDue % unit
  return rest === 0 ? 0 : unit - rest
}

const money = (cents: number) =>
  `${cents < 0 ? '-' : ''}${Math.floor(Math.abs(cents) / 100)}.${String(Math.abs(cents) % 100).padStart(2, '0')}`

/** Why a discount came to its amount, for receipts and staff. */
function summaryOf(terms: CouponAmountTerms, outcome: ReturnType<typeof couponDiscount>, subtotal: number) {
  if (!outcome.applies)
    return outcome.reason === 'minimum_not_met'
      ? `Needs a subtotal of at least ${money(terms.minimumCartAmount ?? 0)}; the order has ${money(subtotal)}.`
      : 'Nothing on the order is eligible.'
  if (outcome.eligibleCents === 0) return 'No eligible amount left on the order.'
  const value = terms.productDiscount ?? 0
  const notes = [
    terms.productDiscountType === 'Percentage Off'
      ? `${value / 100}% of ${money(outcome.eligibleCents)} eligible`
      : terms.productDiscountType === 'Dollar Off'
        ? `${money(value)} off`
        : terms.productDiscountType === 'Set Price'
          ? `${money(value)} a unit`
          : terms.productDiscountType === 'Free'
            ? `free, ${money(outcome.eligibleCents)} eligible`
            : 'no discount',
  ]
  if (outcome.capped) notes.push(`capped at ${money(terms.maxDiscountAmount ?? 0)}`)
  else if (terms.productDiscountType === 'Dollar Off' && value > outcome.eligibleCents)
    notes.push(`limited to the ${money(outcome.eligibleCents)} eligible`)
  return `${notes.join(', ')}.`
}

/** What a run of the discounts, in order, takes from the lines and from the service charges. */
interface Stacked {
  lineDiscounts: Map<string, number>
  /** Per discount: its outcome as summarised, what it took from the lines and from the charges. */
  outcomes: Map<
    string,
    { amount: number; summary: string; fromLines: number; fromCharges: number; fromShipping: number }
  >
}

/**
 * Applies the discounts in order, each to what earlier ones left of the lines and of the
 * discountable service charges (`chargeCents`; only Store coupons that do not exclude service
 * charges reach them, as couponDiscount decides).
 */
function stackDiscounts(
  discounts: PricingDiscount[],
  discountable: PricingLine[],
  gross: Map<string, number>,
  subtotal: number,
  chargeCents: number,
  shippingCents: number,
): Stacked {
  const remaining = new Map(discountable.map((l) => [l.id, gross.get(l.id)!]))
  const lineDiscounts = new Map<string, number>()
  const outcomes: Stacked['outcomes'] = new Map()
  let chargesLeft = chargeCents
  let shippingLeft = shippingCents
  for (const discount of discounts) {
    const outcome = couponDiscount(discount.terms, {
      subtotalCents: subtotal,
      lines: discountable.map((l) => ({
        id: l.id,
        productId: l.productId ?? null,
        collectionIds: l.collectionIds ?? [],
        quantity: l.quantity,
        amountCents: remaining.get(l.id)!,
      })),
      serviceChargeCents: chargesLeft,
      shippingCents: shippingLeft,
      lineId: discount.lineItemId ?? undefined,
    })
    let fromLines = 0
    let fromCharges = 0
    let fromShipping = 0
    if (outcome.applies) {
      discountable.forEach((l, i) => {
        const share = outcome.lineDiscountCents[i]!
        remaining.set(l.id, remaining.get(l.id)! - share)
        lineDiscounts.set(l.id, (lineDiscounts.get(l.id) ?? 0) + share)
        fromLines += share
      })
      fromCharges = outcome.serviceChargeDiscountCents
      chargesLeft -= fromCharges
      fromShipping = outcome.shippingDiscountCents
      shippingLeft -= fromShipping
    }
    outcomes.set(discount.id, {
      amount: outcome.applies ? outcome.productDiscountCents + outcome.shippingDiscountCents : 0,
      summary: summaryOf(discount.terms, outcome, subtotal),
      fromLines,
      fromCharges,
      fromShipping,
    })
  }
  return { lineDiscounts, outcomes }
}

/**
 * Prices a whole order. Discounts apply in the order given, each to what earlier discounts left
 * of the lines (sequential stacking), so stacked discounts never take a line below zero. The
 * coupons engine (couponDiscount) decides each discount's amount on that cart (minimum cart
 * amount against the order's subtotal, eligible lines, cap) and splits it over its lines; tax is
 * then computed per line on the discounted amount. Voided lines count nothing; lines marked not
 * discountable (gift card sales) are never offered to a discount.
 *
 * Service charges: a `percent` charge is computed on the subtotal less what the `post_discount`
 * discounts take from the lines alone (`pre_discount` ones leave its base alone); `fixed` is its
 * value. Then the discounts run again with the charges that are not gratuities in the cart, so a
 * Store coupon that does not exclude service charges reduces them too (its reduction is spread
 * over those charges in proportion). Deposits are never discounted; shipping is what the caller
 * rated or overrode, less what coupons with shipping terms take from it (each from what earlier
 * ones left), taxed on the rest. In a voided order every charge counts 0.
 */
export function priceOrder(input: {
  lines: PricingLine[]
  discounts: PricingDiscount[]
  tipTotal: number
  fundraising: Fundraising | null
  serviceCharges?: PricingServiceCharge[]
  shipping?: PricingShipping | null
  bottleDepositTaxable?: boolean
  /** The order is voided: service charges and shipping count 0 (its lines are voided too). */
  voided?: boolean
}): PricedOrder {
  const live = input.lines.filter((l) => !l.voided)
  const gross = new Map<string, number>()
  const modifierTotals = new Map<string, number>()
  for (const line of input.lines) {
    const perUnit = unitTotal(line)
    if (perUnit < 0) throw new RangeError(`line ${line.id} has a negative unit total`)
    modifierTotals.set(line.id, perUnit - line.unitPrice)
    gross.set(line.id, line.voided ? 0 : exact(perUnit * line.quantity))
  }
  const subtotal = exact(live.reduce((sum, l) => sum + gross.get(l.id)!, 0))
  const discountable = live.filter((l) => l.discountable !== false)

  const charges = input.voided ? [] : (input.serviceCharges ?? [])
  const shippingAmount = input.voided ? 0 : (input.shipping?.amount ?? 0)
  const linesOnly = stackDiscounts(input.discounts, discountable, gross, subtotal, 0, 0)
  const postDiscount = input.discounts
    .filter((d) => d.serviceChargeInteraction === 'post_discount')
    .reduce((sum, d) => sum + linesOnly.outcomes.get(d.id)!.fromLines, 0)
  const chargeBase = subtotal - postDiscount
  const chargeAmounts = charges.map((c) =>
    exact(c.chargeType === 'fixed' ? c.value : applyBps(chargeBase, c.value)),
  )
  const discountableCharges = charges.map((c, i) => (c.gratuity ? 0 : chargeAmounts[i]!))
  const stacked = stackDiscounts(
    input.discounts,
    discountable,
    gross,
    subtotal,
    exact(discountableCharges.reduce((a, b) => a + b, 0)),
    shippingAmount,
  )

  const chargeDiscounts = charges.map(() => 0)
  const discounts = new Map<string, DiscountAmount>()
  for (const discount of input.discounts) {
    const outcome = stacked.outcomes.get(discount.id)!
    // What earlier discounts left of each charge weighs this one's share of it.
    const left = discountableCharges.map((amount, i) => amount - chargeDiscounts[i]!)
    allocate(outcome.fromCharges, left).forEach((share, i) => {
      chargeDiscounts[i]! += share
    })
    discounts.set(discount.id, { amount: outcome.amount, eligibilitySummary: outcome.summary })
  }

  const lines = new Map<string, LineAmounts>()
  let taxTotal = 0
  let includedTaxTotal = 0
  let discountTotal = 0
  let bottleDepositTotal = 0
  for (const line of input.lines) {
    const lineSubtotal = gross.get(line.id)!
    const discountAmount = stacked.lineDiscounts.get(line.id) ?? 0
    const bottleDepositAmount = line.voided ? 0 : exact((line.bottleDeposit ?? 0) * line.quantity)
    const net = lineSubtotal - discountAmount
    const taxable = net + (input.bottleDepositTaxable ? bottleDepositAmount : 0)
    const taxAmount = lineTax(taxable, line.taxRateBps, line.taxCalculation)
    const added = line.taxCalculation === 'Added'
    lines.set(line.id, {
      modifierTotal: modifierTotals.get(line.id)!,
      subtotal: lineSubtotal,
      discountAmount,
      bottleDepositAmount,
      taxAmount,
      total: net + bottleDepositAmount + (added ? taxAmount : 0),
    })
    taxTotal += taxAmount
    if (!added) includedTaxTotal += taxAmount
    discountTotal += discountAmount
    bottleDepositTotal += bottleDepositAmount
  }

  const serviceCharges = new Map<string, ServiceChargeAmounts>()
  let serviceChargeTotal = 0
  for (const charge of input.serviceCharges ?? []) {
    const i = charges.indexOf(charge)
    const amount = i < 0 ? 0 : chargeAmounts[i]!
    const discountAmount = i < 0 ? 0 : chargeDiscounts[i]!
    const taxAmount = charge.taxable ? lineTax(amount - discountAmount, charge.taxRateBps, 'Added') : 0
    serviceCharges.set(charge.id, {
      amount,
      discountAmount,
      taxAmount,
      total: amount - discountAmount + taxAmount,
    })
    serviceChargeTotal += amount
    discountTotal += discountAmount
    taxTotal += taxAmount
  }

  const shippingDiscount = exact(
    input.discounts.reduce((sum, d) => sum + stacked.outcomes.get(d.id)!.fromShipping, 0),
  )
  const shipping = {
    amount: shippingAmount,
    discountAmount: shippingDiscount,
    taxAmount: lineTax(shippingAmount - shippingDiscount, input.shipping?.taxRateBps ?? 0, 'Added'),
  }
  discountTotal += shippingDiscount
  taxTotal += shipping.taxAmount

  const due = exact(
    subtotal -
      discountTotal +
      serviceChargeTotal +
      shipping.amount +
      bottleDepositTotal +
      (taxTotal - includedTaxTotal),
  )
  const contributionAmountCents = contributionOn(due, input.fundraising)
  return {
    lines,
    discounts,
    serviceCharges,
    shipping,
    totals: {
      subtotal,
      discountTotal,
      serviceChargeTotal,
      shippingTotal: shipping.amount,
      bottleDepositTotal,
      taxTotal,
      includedTaxTotal,
      tipTotal: input.tipTotal,
      contributionAmountCents,
      total: exact(due + input.tipTotal + contributionAmountCents),
    },
  }
}
