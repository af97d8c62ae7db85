// Runs the pricing engine over an order's stored lines and discounts and writes the results back:
// line amounts, discount amounts and header totals, all in the caller's transaction.
import { eq } from 'drizzle-orm'
import { conflict } from '../../platform/http/problem'
import { nowIso } from '../../platform/ids'
import type { Queryable } from '../../platform/tenancy/transaction'
import {
  type Fundraising,
  type PricingDiscount,
  type PricingLine,
  type PricingModifier,
  priceOrder,
} from './pricing'
import {
  type ModifierValue,
  type OrderDiscountRow,
  type OrderLineRow,
  type OrderRow,
  orderDiscounts,
  orderLines,
  orders,
} from './schema'
import { discountsOf, getOrderRow, linesOf } from './view'

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

export const toPricingLine = (line: OrderLineRow): PricingLine => ({
  id: line.id,
  unitPrice: line.unitPrice,
  quantity: line.quantity,
  modifiers: line.modifiers.map(toPricingModifier),
  taxRateBps: line.taxRateBps,
  taxCalculation: line.taxCalculation,
  voided: line.voidedAt !== null,
})

/** The lines an order discount may reduce, from its `appliesTo`. Gift card sales are never discounted. */
export function discountableLines(
  discount: Pick<OrderDiscountRow, 'appliesTo' | 'appliesToObjectIds'>,
  lines: OrderLineRow[],
): OrderLineRow[] {
  const ids = new Set(discount.appliesToObjectIds)
  const sellable = lines.filter((l) => !l.giftCardSale)
  if (discount.appliesTo === 'Product') return sellable.filter((l) => l.productId && ids.has(l.productId))
  if (discount.appliesTo === 'Collection')
    return sellable.filter((l) => l.collectionIds.some((c) => ids.has(c)))
  return sellable
}

export const eligibleLineIds = (discount: OrderDiscountRow, lines: OrderLineRow[]): string[] =>
  discountableLines(discount, lines).map((l) => l.id)

export const toPricingDiscount = (discount: OrderDiscountRow, lines: OrderLineRow[]): PricingDiscount => ({
  id: discount.id,
  discountType: discount.discountType,
  value: discount.value,
  maxDiscountAmount: discount.maxDiscountAmount,
  minimumCartAmount: discount.minimumCartAmount,
  lineItemId: discount.scope === 'line' ? discount.lineItemId : null,
  eligibleLineIds: eligibleLineIds(discount, lines),
})

export const fundraisingOf = (order: OrderRow): Fundraising | null =>
  order.fundraising
    ? {
        contributionType: order.fundraising.contributionType,
        contributionValue: order.fundraising.contributionValue,
      }
    : null

/** Prices the order as stored and writes every computed amount. Returns the updated header. */
export function repriceOrder(tx: Queryable, orderId: string): OrderRow {
  const order = getOrderRow(tx, orderId)
  const lines = linesOf(tx, orderId)
  const discounts = discountsOf(tx, orderId)
  const priced = priceOrder({
    lines: lines.map(toPricingLine),
    discounts: discounts.map((d) => toPricingDiscount(d, lines)),
    tipTotal: order.tipTotal,
    fundraising: fundraisingOf(order),
  })
  for (const line of lines) {
    const amounts = priced.lines.get(line.id)!
    if (
      amounts.modifierTotal !== line.modifierTotal ||
      amounts.subtotal !== line.subtotal ||
      amounts.discountAmount !== line.discountAmount ||
      amounts.taxAmount !== line.taxAmount ||
      amounts.total !== line.total
    )
      tx.update(orderLines).set(amounts).where(eq(orderLines.id, line.id)).run()
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
