// One closed order of a bulk import (the imports family's `orders` kind), kept as history: an
// upsert by id or externalRef whose lines and payments land whole or not at all (the caller's
// savepoint). Its amounts are the file's: each line's subtotal is unitPrice × quantity, its tax
// the given taxAmount or the engine's `lineTax` of its rate, and the header's totals the sums the
// pricing engine makes of its lines (pricing.ts, `priceOrder`); totals the file gives are checked
// against them. None of a live sale's consequences follow: no stock depletion, no gift card
// issuance, no drawer entry, no provider call, and no event unless the import asks. One audit
// entry per order (`order.import`, naming the import, its line and the payments).
import { eq } from 'drizzle-orm'
import { diffFields } from '../../platform/audit/diff'
import { recordWrite } from '../../platform/audit/record-write'
import {
  assertImportKey,
  type ImportedRow,
  type ImportOutcome,
  importEvents,
} from '../../platform/bulk-import'
import type { Actor } from '../../platform/foundation/actor'
import { newId, nowIso } from '../../platform/foundation/ids'
import { invalid } from '../../platform/foundation/problem'
import { MAX_MONEY } from '../../platform/foundation/types'
import type { Db } from '../../platform/tenancy/databases'
import { inWriteTransaction, type Queryable } from '../../platform/tenancy/transaction'
import { findLocation } from '../locations'
import type { ImportedOrderInput } from './model-import'
import { nextOrderNumber } from './orders'
import { type ImportedPaymentRecord, others } from './others'
import { lineTax } from './pricing'
import { type OrderLineRow, type OrderRow, orderLines, orders } from './schema'
import { linesOf, loadOrder } from './view'

type ImportedLine = Pick<
  OrderLineRow,
  | 'title'
  | 'sku'
  | 'productId'
  | 'productVariantId'
  | 'quantity'
  | 'unitPrice'
  | 'subtotal'
  | 'discountAmount'
  | 'taxAmount'
  | 'taxRateBps'
  | 'taxCalculation'
  | 'total'
  | 'category'
  | 'note'
>

/** What the file makes of the order: the header columns it sets, its lines and its payments. */
interface Imported {
  header: Pick<
    OrderRow,
    | 'externalRef'
    | 'locationId'
    | 'customerId'
    | 'customerName'
    | 'guestName'
    | 'source'
    | 'fulfillmentMode'
    | 'seatCount'
    | 'note'
    | 'subtotal'
    | 'discountTotal'
    | 'taxTotal'
    | 'includedTaxTotal'
    | 'tipTotal'
    | 'shippingTotal'
    | 'shippingTaxAmount'
    | 'total'
    | 'createdAt'
    | 'submittedAt'
    | 'paidAt'
    | 'closedAt'
  >
  lines: ImportedLine[]
  payments: ImportedPaymentRecord[]
}

const exact = (cents: number, path: string) => {
  if (!Number.isSafeInteger(cents) || cents > MAX_MONEY)
    throw invalid(path, `comes to more than ${MAX_MONEY} minor units`)
  return cents
}

function importedLines(tx: Queryable, input: ImportedOrderInput): ImportedLine[] {
  return input.lineItems.map((line, i) => {
    const path = `lineItems/${i}`
    const subtotal = exact(line.unitPrice * line.quantity, `${path}/unitPrice`)
    const discountAmount = line.discountAmount ?? 0
    if (discountAmount > subtotal)
      throw invalid(`${path}/discountAmount`, `is more than the line's ${subtotal} (unitPrice × quantity)`)
    const net = subtotal - discountAmount
    const taxCalculation = line.taxCalculation ?? 'Added'
    const taxRateBps = line.taxRateBps ?? 0
    const taxAmount = line.taxAmount ?? lineTax(net, taxRateBps, taxCalculation)
    if (taxCalculation === 'Included' && taxAmount > net)
      throw invalid(`${path}/taxAmount`, `tax Included in the price cannot pass the line's ${net}`)
    const variant = line.sku ? others.findVariant(tx, { sku: line.sku }) : undefined
    return {
      title: line.title,
      sku: line.sku ?? null,
      productId: variant?.productId ?? null,
      productVariantId: variant?.variantId ?? null,
      quantity: line.quantity,
      unitPrice: line.unitPrice,
      subtotal,
      discountAmount,
      taxAmount,
      taxRateBps,
      taxCalculation,
      total: exact(net + (taxCalculation === 'Added' ? taxAmount : 0), `${path}/unitPrice`),
      category: line.category ?? null,
      note: line.note ?? null,
    }
  })
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0)

/** Refuses a total the file gives that its lines, shipping and payments do not make. */
function assertGiven(input: ImportedOrderInput, computed: Record<string, number>) {
  for (const [field, value] of Object.entries(computed)) {
    const given = input[field as keyof ImportedOrderInput]
    if (given !== undefined && given !== value)
      throw invalid(field, `is ${given} but the order's lines, shipping and payments make ${value}`)
  }
}

function customerOf(tx: Queryable, input: ImportedOrderInput) {
  if (input.customerId) {
    const customer = others.findCustomer(tx, input.customerId)
    if (!customer) throw invalid('customerId', `no customer ${input.customerId}: import the customers first`)
    return customer
  }
  if (!input.customerExternalRef) return null
  const found = others.customersByExternalRef(tx, input.customerExternalRef)
  if (found.length === 0)
    throw invalid('customerExternalRef', 'no customer has this externalRef: import the customers first')
  if (found.length > 1) throw invalid('customerExternalRef', 'more than one customer has this externalRef')
  return found[0]!
}

function importedOrder(tx: Queryable, actor: Actor, input: ImportedOrderInput): Imported {
  const locationId = input.locationId ?? actor.locationId
  if (!locationId) throw invalid('locationId', 'give locationId, or send the import with x-location-id')
  if (!findLocation(tx, locationId)) throw invalid('locationId', `no location ${locationId}`)
  // An import sent at one location (x-location-id) acts there only.
  if (actor.locationId && locationId !== actor.locationId)
    throw invalid('locationId', `the import was sent at location ${actor.locationId} (x-location-id)`)
  // Instants are kept as given, written as every other time is (UTC, milliseconds): ranges compare them as text.
  const createdAt = new Date(input.createdAt).toISOString()
  const closedAt = input.closedAt ? new Date(input.closedAt).toISOString() : createdAt
  if (closedAt < createdAt) throw invalid('closedAt', 'is before createdAt')
  const customer = customerOf(tx, input)

  const lines = importedLines(tx, input)
  const shippingTotal = input.shippingTotal ?? 0
  const shippingTaxAmount = input.shippingTaxAmount ?? 0
  const subtotal = exact(sum(lines.map((l) => l.subtotal)), 'subtotal')
  const discountTotal = sum(lines.map((l) => l.discountAmount))
  const taxTotal = exact(sum(lines.map((l) => l.taxAmount)) + shippingTaxAmount, 'taxTotal')
  const includedTaxTotal = sum(lines.filter((l) => l.taxCalculation === 'Included').map((l) => l.taxAmount))
  const given = input.payments ?? []
  const tipTotal = exact(sum(given.map((p) => p.tipAmount ?? 0)), 'tipTotal')
  const beforeTips = exact(subtotal - discountTotal + shippingTotal + (taxTotal - includedTaxTotal), 'total')
  const total = exact(beforeTips + tipTotal, 'total')
  assertGiven(input, { subtotal, discountTotal, taxTotal, tipTotal, total })

  const payments: ImportedPaymentRecord[] = given.map((payment, i) => {
    if (payment.amount === undefined && given.length > 1)
      throw invalid(`payments/${i}/amount`, 'is required when the order has more than one payment')
    return {
      tender: payment.tender,
      amount: payment.amount ?? beforeTips,
      tipAmount: payment.tipAmount ?? 0,
      paidAt: payment.paidAt ? new Date(payment.paidAt).toISOString() : closedAt,
      provider: payment.provider ?? null,
      providerPaymentId: payment.providerPaymentId ?? null,
      cardBrand: payment.cardBrand ?? null,
      cardLast4: payment.cardLast4 ?? null,
    }
  })
  // Stored and read back oldest first: sorted so, a file is compared with itself.
  payments.sort((a, b) => (a.paidAt < b.paidAt ? -1 : a.paidAt > b.paidAt ? 1 : 0))
  const paid = sum(payments.map((p) => p.amount))
  if (paid !== beforeTips)
    throw invalid(
      payments.length > 0 ? 'payments/0/amount' : 'payments',
      `the payments (${paid}) do not pay the order's ${beforeTips} before tips: a closed order is paid in full`,
    )
  return {
    header: {
      externalRef: input.externalRef ?? null,
      locationId,
      customerId: customer?.id ?? null,
      customerName: input.customerName ?? customer?.name ?? null,
      guestName: input.guestName ?? null,
      source: input.source ?? 'import',
      fulfillmentMode: input.fulfillmentMode ?? 'dine_in',
      seatCount: input.seatCount ?? null,
      note: input.note ?? null,
      subtotal,
      discountTotal,
      taxTotal,
      includedTaxTotal,
      tipTotal,
      shippingTotal,
      shippingTaxAmount,
      total,
      createdAt,
      submittedAt: createdAt,
      paidAt: payments.at(-1)?.paidAt ?? closedAt,
      closedAt,
    },
    lines,
    payments,
  }
}

/** What an order its payments pay in full holds of them (charges.ts keeps `paidParts`). */
const paidInFull = (
  header: Imported['header'],
): Pick<OrderRow, 'amountPaid' | 'balanceDue' | 'paidParts'> => ({
  amountPaid: header.total,
  balanceDue: 0,
  paidParts: {
    lines: header.subtotal - header.discountTotal,
    serviceCharges: 0,
    shipping: header.shippingTotal,
    bottleDeposits: 0,
    tax: header.taxTotal - header.includedTaxTotal,
    contribution: 0,
  },
})

/** The order as its file would make it, read back from what is stored. */
function storedOrder(tx: Queryable, order: OrderRow): Imported {
  const header = Object.fromEntries(
    Object.keys(importedHeaderKeys).map((key) => [key, order[key as keyof OrderRow]]),
  ) as Imported['header']
  const lines = linesOf(tx, order.id).map(
    (line) =>
      Object.fromEntries(
        Object.keys(importedLineKeys).map((key) => [key, line[key as keyof OrderLineRow]]),
      ) as ImportedLine,
  )
  return { header, lines, payments: others.importedPayments(tx, order.id) }
}

// What an import sets, and so compares: a key missing here would never be compared.
const importedHeaderKeys: Record<keyof Imported['header'], true> = {
  externalRef: true,
  locationId: true,
  customerId: true,
  customerName: true,
  guestName: true,
  source: true,
  fulfillmentMode: true,
  seatCount: true,
  note: true,
  subtotal: true,
  discountTotal: true,
  taxTotal: true,
  includedTaxTotal: true,
  tipTotal: true,
  shippingTotal: true,
  shippingTaxAmount: true,
  total: true,
  createdAt: true,
  submittedAt: true,
  paidAt: true,
  closedAt: true,
}
const importedLineKeys: Record<keyof ImportedLine, true> = {
  title: true,
  sku: true,
  productId: true,
  productVariantId: true,
  quantity: true,
  unitPrice: true,
  subtotal: true,
  discountAmount: true,
  taxAmount: true,
  taxRateBps: true,
  taxCalculation: true,
  total: true,
  category: true,
  note: true,
}

const importedPaymentKeys: Record<keyof ImportedPaymentRecord, true> = {
  tender: true,
  amount: true,
  tipAmount: true,
  paidAt: true,
  provider: true,
  providerPaymentId: true,
  cardBrand: true,
  cardLast4: true,
}

/** Whether two lists hold the same values under these keys, item by item. */
const same = <T extends object>(a: T[], b: T[], keys: Record<keyof T, true>) =>
  a.length === b.length &&
  a.every((item, i) => (Object.keys(keys) as (keyof T)[]).every((key) => item[key] === (b[i] as T)[key]))

function existingOrder(tx: Queryable, input: ImportedOrderInput): OrderRow | undefined {
  const byId = input.id ? tx.select().from(orders).where(eq(orders.id, input.id)).get() : undefined
  const byRef = input.externalRef
    ? tx.select().from(orders).where(eq(orders.externalRef, input.externalRef)).get()
    : undefined
  if (byId && byRef && byId.id !== byRef.id)
    throw invalid('externalRef', 'another order (not the one this id names) has this externalRef')
  const existing = byId ?? byRef
  if (existing && existing.importId === null)
    throw invalid(
      byId ? 'id' : 'externalRef',
      'names an order taken here: an import changes imported orders only',
    )
  return existing
}

function insertLines(tx: Queryable, orderId: string, imported: Imported, now: string) {
  tx.insert(orderLines)
    .values(
      imported.lines.map((line, i) => ({
        ...line,
        id: newId(),
        orderId,
        position: i + 1,
        lineType: line.productVariantId ? ('catalog' as const) : ('open_item' as const),
        sendStatus: 'sent' as const,
        taxCode: null,
        salesCategory: null,
        openItemScope: null,
        pricingStrategyApplied: 'import',
        modifiers: [],
        routing: null,
        giftCardSale: null,
        collectionIds: [],
        bottleDeposit: 0,
        modifierTotal: 0,
        bottleDepositAmount: 0,
        sentAt: imported.header.createdAt,
        createdAt: imported.header.createdAt,
        updatedAt: now,
      })),
    )
    .run()
}

/**
 * Creates or replaces one imported closed order. Fails as a whole (an ApiError naming its field,
 * `lineItems/2/discountAmount` for a line's) and leaves nothing behind: the caller runs it in a
 * savepoint of its own. An order taken here (not imported) is never changed by an import.
 */
export function importOrder(
  db: Db,
  actor: Actor,
  input: ImportedOrderInput,
  row: ImportedRow,
): ImportOutcome {
  return inWriteTransaction(db, (tx) => {
    assertImportKey(input)
    const existing = existingOrder(tx, input)
    // An import sent at one location (x-location-id) reaches the orders there only.
    if (existing && actor.locationId && existing.locationId !== actor.locationId)
      throw invalid(input.id ? 'id' : 'externalRef', `names an order at another location than the import's`)
    const imported = importedOrder(tx, actor, input)
    const now = nowIso()
    let changes: Record<string, unknown>
    let orderId: string
    let orderNumber: number
    let paymentIntentIds: string[]
    if (existing) {
      orderId = existing.id
      orderNumber = existing.orderNumber
      const stored = storedOrder(tx, existing)
      changes = diffFields(stored.header, imported.header)
      const linesChanged = !same(stored.lines, imported.lines, importedLineKeys)
      const paymentsChanged = !same(stored.payments, imported.payments, importedPaymentKeys)
      if (Object.keys(changes).length === 0 && !linesChanged && !paymentsChanged) return 'unchanged'
      if (linesChanged) {
        tx.delete(orderLines).where(eq(orderLines.orderId, orderId)).run()
        insertLines(tx, orderId, imported, now)
        changes.lineItems = { from: stored.lines.length, to: imported.lines.length }
      }
      paymentIntentIds = paymentsChanged
        ? others.replaceImportedPayments(tx, actor, existing, imported.payments)
        : existing.paymentIntentIds
      if (paymentsChanged) changes.payments = { from: existing.paymentIntentIds, to: paymentIntentIds }
      // Payments replaced pay the order in full again; kept, they still pay it as they did (a
      // refund since stays), and the totals they pay are unchanged.
      tx.update(orders)
        .set({
          ...imported.header,
          ...(paymentsChanged ? paidInFull(imported.header) : {}),
          paymentIntentIds,
          importId: row.importId,
          updatedAt: now,
        })
        .where(eq(orders.id, orderId))
        .run()
    } else {
      orderId = input.id ?? newId()
      orderNumber = nextOrderNumber(tx)
      const { header } = imported
      tx.insert(orders)
        .values({
          ...header,
          id: orderId,
          orderNumber,
          importId: row.importId,
          assignedStaffUserId: null,
          status: 'closed',
          tableId: null,
          sectionId: null,
          serviceAreaId: null,
          tableLabel: null,
          contributionAmountCents: 0,
          ...paidInFull(header),
          paymentIntentIds: [],
          fundraising: null,
          updatedAt: now,
        })
        .run()
      insertLines(tx, orderId, imported, now)
      paymentIntentIds = others.replaceImportedPayments(
        tx,
        actor,
        { id: orderId, locationId: header.locationId },
        imported.payments,
      )
      tx.update(orders).set({ paymentIntentIds }).where(eq(orders.id, orderId)).run()
      changes = { created: true }
    }
    const outcome: ImportOutcome = existing ? 'updated' : 'created'
    recordWrite(tx, actor, {
      action: 'order.import',
      entityType: 'order',
      entityId: orderId,
      metadata: {
        importId: row.importId,
        line: row.line,
        outcome,
        orderNumber,
        externalRef: imported.header.externalRef,
        total: imported.header.total,
        lines: imported.lines.length,
        paymentIntentIds,
        ...(existing ? { changes } : {}),
      },
      // The order is read back for its event only: a migration without events does not pay for it.
      events: importEvents(row, {
        object: 'order',
        created: outcome === 'created',
        aggregateId: orderId,
        payload: () => loadOrder(tx, orderId),
      }),
    })
    return outcome
  })
}
