// The pricing engine of orders: pure functions over integer cents and basis points, no database.
// Every amount is an integer number of cents; every rate is basis points (1 bps = 0.01%);
// portion multipliers are basis points too (5000 = half). Rounding is half-up (all amounts are
// non-negative, so half-up and half-away-from-zero agree), done once per modifier portion, once
// per discount and once per line's tax, never on sums.

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
}

export type DiscountType = 'amount' | 'percentage' | 'set_price'

export interface PricingDiscount {
  id: string
  discountType: DiscountType
  /**
   * Cents for `amount`; basis points of the eligible amount for `percentage`; for `set_price`
   * the cents each eligible unit should cost (the discount is what is left above that).
   */
  value: number
  maxDiscountAmount: number | null
  minimumCartAmount: number | null
  /** A line discount (scope `line`): only this line. */
  lineItemId: string | null
  /** Lines an order discount may reduce; null: every line. */
  eligibleLineIds: string[] | null
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
  taxAmount: number
  /** subtotal − discountAmount, plus taxAmount when tax is Added. */
  total: number
}

export interface DiscountAmount {
  amount: number
  /** Why the amount is what it is: a sentence for receipts and staff. */
  eligibilitySummary: string
}

export interface OrderTotals {
  subtotal: number
  discountTotal: number
  /** All tax, Added and Included. */
  taxTotal: number
  /** The part of taxTotal already inside line prices (Included tax); not added again to total. */
  includedTaxTotal: number
  tipTotal: number
  contributionAmountCents: number
  /** subtotal − discountTotal + (taxTotal − includedTaxTotal) + tipTotal + contributionAmountCents. */
  total: number
}

export interface PricedOrder {
  lines: Map<string, LineAmounts>
  discounts: Map<string, DiscountAmount>
  totals: OrderTotals
}

const BPS = 10_000n

/** round(numerator / denominator), halves up, for non-negative integers. */
export function divideHalfUp(numerator: bigint, denominator: bigint): bigint {
  if (numerator < 0n || denominator <= 0n) throw new RangeError('divideHalfUp takes non-negative integers')
  return (2n * numerator + denominator) / (2n * denominator)
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
  const nested = modifier.modifiers.reduce((sum, child) => sum + modifierAmount(child), 0)
  return (portioned + nested) * modifier.quantity
}

/** Per-unit price of a line: unit price plus every modifier. Negative means the line is invalid. */
export const unitTotal = (line: Pick<PricingLine, 'unitPrice' | 'modifiers'>): number =>
  line.unitPrice + line.modifiers.reduce((sum, m) => sum + modifierAmount(m), 0)

/** Tax of a net line amount: on top (`Added`) or inside it (`Included`), rounded half-up. */
export function lineTax(net: number, rateBps: number, calculation: TaxCalculation): number {
  if (net <= 0 || rateBps === 0) return 0
  if (calculation === 'Added') return applyBps(net, rateBps)
  return net - Number(divideHalfUp(BigInt(net) * BPS, BPS + BigInt(rateBps)))
}

/**
 * Splits `amount` over `weights` in proportion, exactly: floors first, then one cent each to the
 * largest remainders (earlier entries first on ties). Requires amount <= sum of weights, so no
 * share exceeds its weight.
 */
export function allocate(amount: number, weights: number[]): number[] {
  const total = weights.reduce((a, b) => a + b, 0)
  if (amount === 0 || total === 0) return weights.map(() => 0)
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

/**
 * Prices a whole order. Discounts apply in the order given, each to what earlier discounts left
 * of its eligible lines, so stacked discounts never take a line below zero; an order discount is
 * spread over its eligible lines in proportion to what remains of each (largest remainder), and
 * tax is then computed per line on the discounted amount. Voided lines count nothing.
 */
export function priceOrder(input: {
  lines: PricingLine[]
  discounts: PricingDiscount[]
  tipTotal: number
  fundraising: Fundraising | null
}): PricedOrder {
  const live = input.lines.filter((l) => !l.voided)
  const gross = new Map<string, number>()
  const remaining = new Map<string, number>()
  const modifierTotals = new Map<string, number>()
  for (const line of input.lines) {
    const perUnit = unitTotal(line)
    if (perUnit < 0) throw new RangeError(`line ${line.id} has a negative unit total`)
    modifierTotals.set(line.id, perUnit - line.unitPrice)
    const subtotal = line.voided ? 0 : perUnit * line.quantity
    gross.set(line.id, subtotal)
    remaining.set(line.id, subtotal)
  }
  const subtotal = live.reduce((sum, l) => sum + gross.get(l.id)!, 0)

  const lineDiscounts = new Map<string, number>(input.lines.map((l) => [l.id, 0]))
  const discounts = new Map<string, DiscountAmount>()
  for (const discount of input.discounts) {
    const targets = live.filter((l) =>
      discount.lineItemId !== null
        ? l.id === discount.lineItemId
        : discount.eligibleLineIds === null || discount.eligibleLineIds.includes(l.id),
    )
    if (discount.minimumCartAmount !== null && subtotal < discount.minimumCartAmount) {
      discounts.set(discount.id, {
        amount: 0,
        eligibilitySummary: `Needs a subtotal of at least ${money(discount.minimumCartAmount)}; the order has ${money(subtotal)}.`,
      })
      continue
    }
    const weights = targets.map((l) => remaining.get(l.id)!)
    const base = weights.reduce((a, b) => a + b, 0)
    if (base === 0) {
      discounts.set(discount.id, { amount: 0, eligibilitySummary: 'No eligible amount left on the order.' })
      continue
    }
    // Set Price: each eligible line gives up what it has above value × quantity.
    const setPriceShares =
      discount.discountType === 'set_price'
        ? targets.map((l, i) => Math.max(0, weights[i]! - discount.value * l.quantity))
        : null
    let amount =
      discount.discountType === 'amount'
        ? discount.value
        : discount.discountType === 'percentage'
          ? applyBps(base, discount.value)
          : setPriceShares!.reduce((a, b) => a + b, 0)
    const notes: string[] = [
      discount.discountType === 'amount'
        ? `${money(discount.value)} off`
        : discount.discountType === 'percentage'
          ? `${discount.value / 100}% of ${money(base)} eligible`
          : `${money(discount.value)} a unit`,
    ]
    if (discount.maxDiscountAmount !== null && amount > discount.maxDiscountAmount) {
      amount = discount.maxDiscountAmount
      notes.push(`capped at ${money(discount.maxDiscountAmount)}`)
    }
    if (amount > base) {
      amount = base
      notes.push(`limited to the ${money(base)} eligible`)
    }
    const shares = allocate(amount, setPriceShares ?? weights)
    targets.forEach((l, i) => {
      remaining.set(l.id, remaining.get(l.id)! - shares[i]!)
      lineDiscounts.set(l.id, lineDiscounts.get(l.id)! + shares[i]!)
    })
    discounts.set(discount.id, { amount, eligibilitySummary: `${notes.join(', ')}.` })
  }

  const lines = new Map<string, LineAmounts>()
  let taxTotal = 0
  let includedTaxTotal = 0
  let discountTotal = 0
  for (const line of input.lines) {
    const lineSubtotal = gross.get(line.id)!
    const discountAmount = lineDiscounts.get(line.id)!
    const net = lineSubtotal - discountAmount
    const taxAmount = lineTax(net, line.taxRateBps, line.taxCalculation)
    const added = line.taxCalculation === 'Added'
    lines.set(line.id, {
      modifierTotal: modifierTotals.get(line.id)!,
      subtotal: lineSubtotal,
      discountAmount,
      taxAmount,
      total: net + (added ? taxAmount : 0),
    })
    taxTotal += taxAmount
    if (!added) includedTaxTotal += taxAmount
    discountTotal += discountAmount
  }
  const due = subtotal - discountTotal + (taxTotal - includedTaxTotal)
  const contributionAmountCents = contributionOn(due, input.fundraising)
  return {
    lines,
    discounts,
    totals: {
      subtotal,
      discountTotal,
      taxTotal,
      includedTaxTotal,
      tipTotal: input.tipTotal,
      contributionAmountCents,
      total: due + input.tipTotal + contributionAmountCents,
    },
  }
}
