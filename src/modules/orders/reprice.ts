// Runs the pricing engine over an order's stored lines, discounts, service charges and shipping
// and writes the results back: line, discount and charge amounts, the shipping rate and header
// totals, all in the caller's transaction.
import { eq } from 'drizzle-orm'
import { nowIso } from '../../platform/foundation/ids'
import { conflict } from '../../platform/foundation/problem'
import type { Queryable } from '../../platform/tenancy/transaction'
import type { CouponAmountTerms } from '../coupons'
import { lineDiscountable } from './gift-card-discounts'
import { others } from './others'
import {
  type Fundraising,
  type PricingDiscount,
  type PricingLine,
  type PricingModifier,
  type PricingServiceCharge,
  type PricingShipping,
  priceOrder,
} from './pricing'
import {
  type ModifierValue,
  type OrderDiscountRow,
  type OrderLineRow,
  type OrderRow,
  type OrderServiceChargeRow,
  orderDiscounts,
  orderLines,
  orderServiceCharges,
  orders,
} from './schema'
import { resolveTax } from './tax-place'
import { bottleDepositTaxable, discountsOf, getOrderRow, linesOf, serviceChargesOf } from './view'

export const multiplierBps = (multiplier: number): number => Math.round(multiplier * 10_000)

export function toPricingModifier(m: ModifierValue): PricingModifier {
  return {
    priceDelta: m.priceDelta,
    quantity: m.quantity,
    portionMultiplierBps: multiplierBps(m.portionPriceMultiplier),
    pricingStrategy: m.pricingStrategy,
    openPriceAmount: m.openPriceAmount,
    modifiers: m.modifiers.map(toPricingModifier),
  }
}

export const toPricingLine = (line: OrderLineRow, discountable: boolean): PricingLine => ({
  id: line.id,
  unitPrice: line.unitPrice,
  quantity: line.quantity,
  modifiers: line.modifiers.map(toPricingModifier),
  taxRateBps: line.taxRateBps,
  taxCalculation: line.taxCalculation,
  voided: line.voidedAt !== null,
  productId: line.productId,
  collectionIds: line.collectionIds,
  discountable,
  bottleDeposit: line.bottleDeposit,
})

export const toPricingServiceCharge = (charge: OrderServiceChargeRow): PricingServiceCharge => ({
  id: charge.id,
  chargeType: charge.chargeType,
  value: charge.value,
  taxable: charge.taxable,
  gratuity: charge.gratuity,
  taxRateBps: charge.taxRateBps,
})

/**
 * An AppliedDiscount's `discountType` and `value` for a coupon's product discount: Dollar Off is
 * `amount`, Percentage Off `percentage`, Free `percentage` of 10000, Set Price `set_price`,
 * No Discount `amount` of 0.
 */
export function appliedDiscountTypeOf(
  coupon: Pick<CouponAmountTerms, 'productDiscountType' | 'productDiscount'>,
): Pick<OrderDiscountRow, 'discountType' | 'value'> {
  const value = coupon.productDiscount ?? 0
  switch (coupon.productDiscountType) {
    case 'Percentage Off':
      return { discountType: 'percentage', value }
    case 'Free':
      return { discountType: 'percentage', value: 10_000 }
    case 'Set Price':
      return { discountType: 'set_price', value }
    case 'Dollar Off':
      return { discountType: 'amount', value }
    case 'No Discount':
      return { discountType: 'amount', value: 0 }
  }
}

/** The coupon terms an applied discount's amount follows: the copy taken when it was applied. */
export const amountTermsOf = (discount: OrderDiscountRow): CouponAmountTerms => ({
  appliesTo: discount.appliesTo as CouponAmountTerms['appliesTo'],
  appliesToObjectIds: discount.appliesToObjectIds,
  productDiscountType:
    discount.discountType === 'percentage'
      ? 'Percentage Off'
      : discount.discountType === 'set_price'
        ? 'Set Price'
        : 'Dollar Off',
  productDiscount: discount.value,
  shippingDiscountType: discount.shippingDiscountType as CouponAmountTerms['shippingDiscountType'],
  shippingDiscount: discount.shippingDiscount,
  minimumCartAmount: discount.minimumCartAmount,
  excludesServiceCharges: discount.excludesServiceCharges,
  maxDiscountAmount: discount.maxDiscountAmount,
})

export const toPricingDiscount = (discount: OrderDiscountRow): PricingDiscount => ({
  id: discount.id,
  terms: amountTermsOf(discount),
  lineItemId: discount.scope === 'line' ? discount.lineItemId : null,
  serviceChargeInteraction: discount.serviceChargeInteraction as PricingDiscount['serviceChargeInteraction'],
})

interface RatedShipping {
  charge: PricingShipping | null
  header: Pick<OrderRow, 'shippingServiceId' | 'shippingServiceTitle' | 'shippingRate'>
}

/**
 * The shipping of a `shipping` order: the configured rate for its weight and ship-to (none
 * without a ship-to or a covering configuration), or its override; taxed at the `freight` rate.
 */
function rateShipping(tx: Queryable, order: OrderRow): RatedShipping {
  if (order.fulfillmentMode !== 'shipping' || order.status === 'voided')
    return {
      charge: null,
      header: { shippingServiceId: null, shippingServiceTitle: null, shippingRate: null },
    }
  const rate = order.shipToCountryCode
    ? others.shippingRate(tx, order.id, {
        countryCode: order.shipToCountryCode,
        stateCode: order.shipToStateCode,
      })
    : null
  return {
    charge: {
      amount: order.shippingOverride ?? rate?.price ?? 0,
      taxRateBps: resolveTax(tx, order, 'freight').taxRateBps,
    },
    header: {
      shippingServiceId: rate?.serviceId ?? null,
      shippingServiceTitle: rate?.title ?? null,
      shippingRate: rate?.price ?? null,
    },
  }
}

export const fundraisingOf = (order: OrderRow): Fundraising | null =>
  order.fundraising
    ? {
        contributionType: order.fundraising.contributionType,
        contributionValue: order.fundraising.contributionValue,
      }
    : null

/** Whether every key of `computed` has the same value in `row`. */
const unchanged = (row: object, computed: object) =>
  Object.entries(computed).every(([key, value]) => (row as Record<string, unknown>)[key] === value)

/** Prices the order as stored and writes every computed amount. Returns the updated header. */
export function repriceOrder(tx: Queryable, orderId: string): OrderRow {
  const order = getOrderRow(tx, orderId)
  // An imported order's amounts are the history its file gave (import.ts), not this engine's to
  // recompute: only its balance follows what a refund since takes back.
  if (order.importId !== null)
    return tx
      .update(orders)
      .set({ balanceDue: order.total - order.amountPaid, updatedAt: nowIso() })
      .where(eq(orders.id, orderId))
      .returning()
      .get()
  const lines = linesOf(tx, orderId)
  const discounts = discountsOf(tx, orderId)
  const charges = serviceChargesOf(tx, orderId)
  const shipping = rateShipping(tx, order)
  const priced = priceOrder({
    lines: lines.map((line) => toPricingLine(line, lineDiscountable(tx, line))),
    discounts: discounts.map(toPricingDiscount),
    tipTotal: order.tipTotal,
    fundraising: fundraisingOf(order),
    serviceCharges: charges.map(toPricingServiceCharge),
    shipping: shipping.charge,
    bottleDepositTaxable: bottleDepositTaxable(tx),
    voided: order.status === 'voided',
  })
  for (const line of lines) {
    const amounts = priced.lines.get(line.id)!
    if (!unchanged(line, amounts)) tx.update(orderLines).set(amounts).where(eq(orderLines.id, line.id)).run()
  }
  for (const charge of charges) {
    const amounts = priced.serviceCharges.get(charge.id)!
    if (!unchanged(charge, amounts))
      tx.update(orderServiceCharges).set(amounts).where(eq(orderServiceCharges.id, charge.id)).run()
  }
  for (const discount of discounts) {
    const computed = priced.discounts.get(discount.id)!
    if (computed.amount !== discount.amount || computed.eligibilitySummary !== discount.eligibilitySummary)
      tx.update(orderDiscounts).set(computed).where(eq(orderDiscounts.id, discount.id)).run()
  }
  const { totals } = priced
  if (totals.total < order.amountPaid)
    throw conflict(
      `the change would bring the total (${totals.total}) below what is already paid (${order.amountPaid}); refund first`,
      { currentStatus: order.status, amountPaid: order.amountPaid, total: order.total },
    )
  return tx
    .update(orders)
    .set({
      subtotal: totals.subtotal,
      discountTotal: totals.discountTotal,
      serviceChargeTotal: totals.serviceChargeTotal,
      shippingTotal: totals.shippingTotal,
      shippingTaxAmount: priced.shipping.taxAmount,
      shippingDiscountAmount: priced.shipping.discountAmount,
      bottleDepositTotal: totals.bottleDepositTotal,
      ...shipping.header,
      taxTotal: totals.taxTotal,
      includedTaxTotal: totals.includedTaxTotal,
      contributionAmountCents: totals.contributionAmountCents,
      total: totals.total,
      balanceDue: totals.total - order.amountPaid,
      updatedAt: nowIso(),
    })
    .where(eq(orders.id, orderId))
    .returning()
    .get()
}
