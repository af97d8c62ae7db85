// Line items: building a line from a request (catalog price, tax rate, modifiers), adding,
// changing and removing lines of an open order.
import { and, eq, max } from 'drizzle-orm'
import type { Actor } from '../../platform/foundation/actor'
import { newId, nowIso } from '../../platform/foundation/ids'
import { conflict, invalid, notFound } from '../../platform/foundation/problem'
import type { Db } from '../../platform/tenancy/databases'
import type { Queryable } from '../../platform/tenancy/transaction'
import type { AddLineInput, ModifierInput, UpdateLineInput } from './model-lines'
import { changeOrder, OPEN_STATUSES } from './mutation'
import { others } from './others'
import { modifierAmount } from './pricing'
import { multiplierBps, toPricingModifier } from './reprice'
import {
  type GiftCardSaleValue,
  type ModifierValue,
  type OrderLineRow,
  type OrderRow,
  orderDiscounts,
  orderLines,
  type RoutingValue,
  type TaxCode,
} from './schema'
import { resolveTax } from './tax-place'

export function routingOf(input: ModifierInput['routing']): RoutingValue | null {
  if (!input) return null
  return {
    prepStationIds: input.prepStationIds ?? [],
    assemblyLineId: input.assemblyLineId ?? null,
    immediatePrepStationIds: input.immediatePrepStationIds ?? [],
    modifierRouting: input.modifierRouting ?? null,
    ticketDestination: input.ticketDestination ?? null,
    appliedRuleIds: input.appliedRuleIds ?? [],
  }
}

/** Modifiers as stored, each with its computed `amount`; refuses open prices without an amount. */
export function buildModifiers(inputs: ModifierInput[], path: string): ModifierValue[] {
  return inputs.map((m, i) => {
    const here = `${path}/${i}`
    const pricingStrategy = m.pricingStrategy ?? 'base'
    if (pricingStrategy === 'open_price' && (m.openPriceAmount === undefined || m.openPriceAmount === null))
      throw invalid(`${here}/openPriceAmount`, 'an open_price modifier needs openPriceAmount')
    if (pricingStrategy !== 'open_price' && m.openPriceAmount != null)
      throw invalid(`${here}/openPriceAmount`, 'only open_price modifiers take openPriceAmount')
    const value: ModifierValue = {
      productId: m.productId ?? null,
      title: m.title,
      priceDelta: m.priceDelta ?? 0,
      quantity: m.quantity ?? 1,
      groupId: m.groupId ?? null,
      groupTitle: m.groupTitle ?? null,
      portionId: m.portionId ?? null,
      portionLabel: m.portionLabel ?? null,
      portionPriceMultiplier: multiplierBps(m.portionPriceMultiplier ?? 1) / 10_000,
      pricingStrategy,
      openPriceAmount: m.openPriceAmount ?? null,
      sizeName: m.sizeName ?? null,
      sequenceOrdinal: m.sequenceOrdinal ?? null,
      preModifierOptionId: m.preModifierOptionId ?? null,
      preModifierLabel: m.preModifierLabel ?? null,
      preModifierPosition: m.preModifierPosition ?? null,
      displayLabel: m.displayLabel ?? null,
      defaultApplied: m.defaultApplied ?? false,
      routing: routingOf(m.routing),
      modifiers: buildModifiers(m.modifiers ?? [], `${here}/modifiers`),
      amount: 0,
    }
    value.amount = modifierAmount(toPricingModifier(value))
    return value
  })
}

function giftCardSaleOf(input: AddLineInput['giftCardSale']): GiftCardSaleValue | null {
  if (!input) return null
  return {
    cardType: input.cardType ?? null,
    code: input.code ?? null,
    recipientName: input.recipientName ?? null,
    recipientEmail: input.recipientEmail ?? null,
    recipientPhone: input.recipientPhone ?? null,
    fromName: input.fromName ?? null,
    purchaserEmail: input.purchaserEmail ?? null,
    purchaserPhone: input.purchaserPhone ?? null,
    giftMessage: input.giftMessage ?? null,
    notes: input.notes ?? null,
    deliveryChannel: input.deliveryChannel ?? null,
    deliveryDestination: input.deliveryDestination ?? null,
    deliveryScheduledAt: input.deliveryScheduledAt ?? null,
    notifyPurchaserWhenOpened: input.notifyPurchaserWhenOpened ?? false,
  }
}

const optionalLineFields = (input: AddLineInput | UpdateLineInput) => ({
  category: input.category,
  salesCategory: input.salesCategory,
  menuId: input.menuId,
  sizeName: input.sizeName,
  seatId: input.seatId,
  seatNumber: input.seatNumber,
  course: input.course,
  diningOption: input.diningOption,
  diningOptionLabel: input.diningOptionLabel,
  prepTimeSeconds: input.prepTimeSeconds,
  note: input.note,
})

function assertUnitTotal(unitPrice: number, modifiers: ModifierValue[], path: string) {
  const perUnit = unitPrice + modifiers.reduce((sum, m) => sum + m.amount, 0)
  if (perUnit < 0)
    throw invalid(`${path}/modifiers`, `modifiers take the unit price below zero (${perUnit} cents)`)
}

/**
 * What a caller inside the service (a club release) may set on new lines that a request may not:
 * a catalog line's unit price (the release price). Tax follows the order's tax place.
 */
export interface LineTerms {
  unitPrice?: number
}

/** A new line row from a request; `path` prefixes error paths (`body` or `body/lineItems/2`). */
export function buildLine(
  tx: Queryable,
  order: OrderRow,
  input: AddLineInput,
  position: number,
  path: string,
  terms: LineTerms = {},
): OrderLineRow {
  const lineType = input.lineType ?? 'catalog'
  let base: Pick<
    OrderLineRow,
    | 'productId'
    | 'productVariantId'
    | 'sku'
    | 'title'
    | 'unitPrice'
    | 'taxCode'
    | 'openItemScope'
    | 'category'
    | 'sizeName'
    | 'collectionIds'
    | 'pricingStrategyApplied'
    | 'bottleDeposit'
  >
  if (lineType === 'catalog') {
    for (const field of ['unitPrice', 'openItemScope', 'title', 'taxCode'] as const)
      if (input[field] !== undefined)
        throw invalid(
          `${path}/${field}`,
          field === 'unitPrice'
            ? 'catalog lines are priced from the product variant; sell an open item (lineType open_item with openItemScope) for a typed-in price'
            : `catalog lines take ${field} from the catalog`,
        )
    if (!input.productVariantId && !input.sku)
      throw invalid(`${path}/productVariantId`, 'a catalog line needs productVariantId or sku')
    const variant = others.findVariant(tx, {
      variantId: input.productVariantId ?? undefined,
      sku: input.sku ?? undefined,
    })
    const refPath = `${path}/${input.productVariantId ? 'productVariantId' : 'sku'}`
    if (!variant) throw invalid(refPath, 'no such product variant')
    if (input.productVariantId && input.sku && variant.sku.toLowerCase() !== input.sku.toLowerCase())
      throw invalid(`${path}/sku`, 'sku is not the SKU of productVariantId')
    if (input.productId && input.productId !== variant.productId)
      throw invalid(`${path}/productId`, 'productId is not the product of this variant')
    if (!variant.availableForSale) throw invalid(refPath, `${variant.productTitle} is not available for sale`)
    base = {
      productId: variant.productId,
      productVariantId: variant.variantId,
      sku: variant.sku,
      title: variant.productTitle,
      unitPrice: terms.unitPrice ?? variant.price,
      taxCode: variant.taxCode,
      openItemScope: null,
      category: variant.productType,
      sizeName: variant.variantTitle !== variant.productTitle ? variant.variantTitle : null,
      collectionIds: variant.collectionIds,
      pricingStrategyApplied: 'base',
      bottleDeposit: variant.bottleDeposit,
    }
  } else {
    for (const field of ['productVariantId', 'sku', 'productId'] as const)
      if (input[field] != null) throw invalid(`${path}/${field}`, 'open items are not catalog products')
    if (!input.openItemScope && !input.giftCardSale)
      throw invalid(`${path}/openItemScope`, 'an open item needs openItemScope')
    if (!input.title) throw invalid(`${path}/title`, 'an open item needs a title')
    if (input.unitPrice === undefined) throw invalid(`${path}/unitPrice`, 'an open item needs unitPrice')
    base = {
      productId: null,
      productVariantId: null,
      sku: null,
      title: input.title,
      unitPrice: input.unitPrice,
      taxCode: input.taxCode ?? input.openItemScope ?? null,
      openItemScope: input.openItemScope ?? null,
      category: null,
      sizeName: null,
      collectionIds: [],
      pricingStrategyApplied: 'open_price',
      bottleDeposit: 0,
    }
  }
  const giftCardSale = giftCardSaleOf(input.giftCardSale)
  if (giftCardSale) {
    // One card per line, of the line's price; a gift card is stored value, not a taxable sale.
    if ((input.quantity ?? 1) !== 1) throw invalid(`${path}/quantity`, 'a gift card line sells one card')
    if (input.modifiers?.length) throw invalid(`${path}/modifiers`, 'gift card lines take no modifiers')
    if (input.taxCode) throw invalid(`${path}/taxCode`, 'gift card sales are not taxed')
    base.taxCode = null
  }
  const modifiers = buildModifiers((input.modifiers ?? []) as unknown as ModifierInput[], `${path}/modifiers`)
  assertUnitTotal(base.unitPrice, modifiers, path)
  const now = nowIso()
  const extra = optionalLineFields(input)
  return {
    id: newId(),
    orderId: order.id,
    position,
    lineType,
    sendStatus: 'new',
    ...base,
    quantity: input.quantity ?? 1,
    ...resolveTax(tx, order, base.taxCode as TaxCode | null),
    category: extra.category ?? base.category,
    salesCategory: extra.salesCategory ?? null,
    menuId: extra.menuId ?? null,
    sizeName: extra.sizeName ?? base.sizeName,
    seatId: extra.seatId ?? null,
    seatNumber: extra.seatNumber ?? null,
    course: extra.course ?? null,
    diningOption: extra.diningOption ?? order.fulfillmentMode,
    diningOptionLabel: extra.diningOptionLabel ?? null,
    prepTimeSeconds: extra.prepTimeSeconds ?? null,
    note: extra.note ?? null,
    modifiers,
    routing: routingOf(input.routing),
    giftCardSale,
    modifierTotal: 0,
    subtotal: 0,
    bottleDepositAmount: 0,
    discountAmount: 0,
    taxAmount: 0,
    total: 0,
    sentAt: null,
    voidReasonId: null,
    voidReasonName: null,
    voidedAt: null,
    voidedByStaffUserId: null,
    voidedByStaffName: null,
    createdAt: now,
    updatedAt: now,
  }
}

export function nextLinePosition(tx: Queryable, orderId: string): number {
  const last = tx
    .select({ p: max(orderLines.position) })
    .from(orderLines)
    .where(eq(orderLines.orderId, orderId))
    .get()
  return (last?.p ?? 0) + 1
}

export function insertLines(
  tx: Queryable,
  order: OrderRow,
  inputs: AddLineInput[],
  path: string,
  terms: LineTerms[] = [],
) {
  let position = nextLinePosition(tx, order.id)
  const rows = inputs.map((input, i) =>
    buildLine(tx, order, input, position++, path.replace('#', String(i)), terms[i]),
  )
  if (rows.length > 0) tx.insert(orderLines).values(rows).run()
  return rows
}

export function getLine(tx: Queryable, orderId: string, lineId: string): OrderLineRow {
  const line = tx
    .select()
    .from(orderLines)
    .where(and(eq(orderLines.orderId, orderId), eq(orderLines.id, lineId)))
    .get()
  if (!line) throw notFound('line item', lineId)
  return line
}

function assertUnsent(line: OrderLineRow, doing: string) {
  if (line.voidedAt)
    throw conflict(`cannot ${doing} a voided line`, { currentStatus: 'voided', lineItemId: line.id })
  if (line.sendStatus !== 'new')
    throw conflict(`cannot ${doing} a line already sent to the kitchen; void it instead`, {
      currentStatus: line.sendStatus,
      lineItemId: line.id,
    })
}

export const addLine = (db: Db, actor: Actor, orderId: string, input: AddLineInput) =>
  changeOrder(
    db,
    actor,
    orderId,
    { action: 'order.line.add', event: 'update', allowed: OPEN_STATUSES, doing: 'add lines to' },
    (tx, order) => {
      const [row] = insertLines(tx, order, [input], 'body')
      return {
        lineItemId: row!.id,
        line: { title: row!.title, quantity: row!.quantity, unitPrice: row!.unitPrice },
      }
    },
  )

export const updateLine = (db: Db, actor: Actor, orderId: string, lineId: string, patch: UpdateLineInput) =>
  changeOrder(
    db,
    actor,
    orderId,
    { action: 'order.line.update', event: 'update', allowed: OPEN_STATUSES, doing: 'change lines of' },
    (tx, order) => {
      const line = getLine(tx, orderId, lineId)
      assertUnsent(line, 'change')
      if (line.lineType === 'catalog')
        for (const field of ['unitPrice', 'title'] as const)
          if (patch[field] !== undefined)
            throw invalid(`body/${field}`, `catalog lines take ${field} from the catalog`)
      if (line.giftCardSale && patch.quantity !== undefined && patch.quantity !== 1)
        throw invalid('body/quantity', 'a gift card line sells one card')
      if (line.giftCardSale && patch.modifiers?.length)
        throw invalid('body/modifiers', 'gift card lines take no modifiers')
      const modifiers =
        patch.modifiers === undefined
          ? line.modifiers
          : buildModifiers(patch.modifiers as unknown as ModifierInput[], 'body/modifiers')
      const unitPrice = patch.unitPrice ?? line.unitPrice
      assertUnitTotal(unitPrice, modifiers, 'body')
      const set: Partial<OrderLineRow> = {
        quantity: patch.quantity ?? line.quantity,
        unitPrice,
        title: patch.title ?? line.title,
        modifiers,
        ...(patch.routing !== undefined ? { routing: routingOf(patch.routing) } : {}),
        // Re-resolved, so a line changed after the location's tax changed is charged today's rate.
        ...resolveTax(tx, order, line.taxCode as TaxCode | null),
        updatedAt: nowIso(),
      }
      for (const [key, value] of Object.entries(optionalLineFields(patch)))
        if (value !== undefined) (set as Record<string, unknown>)[key] = value
      tx.update(orderLines).set(set).where(eq(orderLines.id, lineId)).run()
      const changed = Object.keys(patch)
      return { lineItemId: lineId, changed }
    },
  )

export const removeLine = (db: Db, actor: Actor, orderId: string, lineId: string) =>
  changeOrder(
    db,
    actor,
    orderId,
    { action: 'order.line.remove', event: 'update', allowed: OPEN_STATUSES, doing: 'remove lines from' },
    (tx) => {
      const line = getLine(tx, orderId, lineId)
      assertUnsent(line, 'remove')
      tx.delete(orderDiscounts)
        .where(and(eq(orderDiscounts.orderId, orderId), eq(orderDiscounts.lineItemId, lineId)))
        .run()
      tx.delete(orderLines).where(eq(orderLines.id, lineId)).run()
      return {
        lineItemId: lineId,
        line: { title: line.title, quantity: line.quantity, unitPrice: line.unitPrice },
      }
    },
  )
