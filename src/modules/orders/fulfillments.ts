// Fulfillments: recording that items (by SKU) were shipped, picked up or handed over, and
// deleting such a record. Quantities never exceed what remains unfulfilled.
import { and, eq } from 'drizzle-orm'
import { recordWrite } from '../../platform/audit/record-write'
import type { Actor } from '../../platform/foundation/actor'
import { newId, nowIso } from '../../platform/foundation/ids'
import { conflict, invalid, notFound } from '../../platform/foundation/problem'
import type { Db } from '../../platform/tenancy/databases'
import { inWriteTransaction, type Queryable } from '../../platform/tenancy/transaction'
import type { FulfillAllInput, FulfillItemsInput, OrderView } from './model'
import { assertStatus } from './mutation'
import { type OrderRow, orderFulfillments } from './schema'
import { fulfilledBySku, fulfillmentsOf, getOrderRow, linesOf, loadOrder, orderedBySku } from './view'

/** Orders that can be fulfilled: sent to the kitchen or beyond, not voided. */
const FULFILLABLE = ['submitted', 'paid', 'closed'] as const

function assertDetails(input: FulfillAllInput) {
  if (input.shipped && input.type !== 'Shipped')
    throw invalid('body/shipped', 'shipped details go with type Shipped')
  if (input.pickedUp && input.type !== 'Picked Up')
    throw invalid('body/pickedUp', 'pickedUp details go with type Picked Up')
}

/** What remains to fulfil per SKU (lower-cased key), with the SKU as the order spells it. */
function remaining(tx: Queryable, order: OrderRow) {
  const lines = linesOf(tx, order.id)
  const ordered = orderedBySku(lines)
  const done = fulfilledBySku(fulfillmentsOf(tx, order.id))
  const spelled = new Map(lines.filter((l) => l.sku).map((l) => [l.sku!.toLowerCase(), l.sku!]))
  const left = new Map<string, { sku: string; quantity: number }>()
  for (const [key, quantity] of ordered)
    left.set(key, { sku: spelled.get(key)!, quantity: Math.max(0, quantity - (done.get(key) ?? 0)) })
  return left
}

/** Writes one fulfillment of `items` and records it; answers the order as it now stands. */
function insertFulfillment(
  tx: Queryable,
  actor: Actor,
  order: OrderRow,
  input: FulfillAllInput,
  items: { sku: string; quantityFulfilled: number }[],
): OrderView {
  const row = tx
    .insert(orderFulfillments)
    .values({
      id: newId(),
      orderId: order.id,
      type: input.type,
      fulfillmentDate: input.fulfillmentDate,
      packageCount: input.packageCount,
      sendTransactionEmail: input.sendTransactionEmail,
      items,
      shipped: input.shipped
        ? { trackingNumbers: input.shipped.trackingNumbers, carrier: input.shipped.carrier ?? null }
        : null,
      pickedUp: input.pickedUp ?? null,
      createdAt: nowIso(),
    })
    .returning()
    .get()
  const view = loadOrder(tx, order.id)
  recordWrite(tx, actor, {
    action: 'order.fulfillment.create',
    entityType: 'order',
    entityId: order.id,
    metadata: { orderNumber: order.orderNumber, fulfillmentId: row.id, type: row.type, items },
    events: [
      {
        object: 'order',
        action: 'fulfill',
        aggregateId: order.id,
        payload: { ...view, fulfillment: { ...row, orderId: undefined } },
      },
    ],
  })
  return view
}

export function fulfillAll(db: Db, actor: Actor, orderId: string, input: FulfillAllInput): OrderView {
  assertDetails(input)
  return inWriteTransaction(db, (tx) => {
    const order = getOrderRow(tx, orderId)
    assertStatus(order, FULFILLABLE, 'fulfill')
    const items = [...remaining(tx, order).values()]
      .filter((r) => r.quantity > 0)
      .map((r) => ({ sku: r.sku, quantityFulfilled: r.quantity }))
    if (items.length === 0)
      throw conflict('every line with a SKU is already fulfilled', {
        currentStatus: order.status,
        fulfillmentStatus: 'fulfilled',
      })
    return insertFulfillment(tx, actor, order, input, items)
  })
}

export function fulfillItems(db: Db, actor: Actor, orderId: string, input: FulfillItemsInput): OrderView {
  assertDetails(input)
  return inWriteTransaction(db, (tx) => {
    const order = getOrderRow(tx, orderId)
    assertStatus(order, FULFILLABLE, 'fulfill')
    const left = remaining(tx, order)
    const wanted = new Map<string, number>()
    input.items.forEach((item, i) => {
      const key = item.sku.toLowerCase()
      if (!left.has(key)) throw invalid(`body/items/${i}/sku`, `no line of this order has SKU ${item.sku}`)
      wanted.set(key, (wanted.get(key) ?? 0) + item.quantityFulfilled)
    })
    for (const [key, quantity] of wanted) {
      const { sku, quantity: open } = left.get(key)!
      if (quantity > open)
        throw conflict(`only ${open} of SKU ${sku} remain unfulfilled; ${quantity} requested`, {
          currentStatus: order.status,
          sku,
          remainingQuantity: open,
          requestedQuantity: quantity,
        })
    }
    const items = [...wanted].map(([key, quantityFulfilled]) => ({
      sku: left.get(key)!.sku,
      quantityFulfilled,
    }))
    return insertFulfillment(tx, actor, order, input, items)
  })
}

export function deleteFulfillment(db: Db, actor: Actor, orderId: string, fulfillmentId: string): void {
  inWriteTransaction(db, (tx) => {
    const order = getOrderRow(tx, orderId)
    const row = tx
      .select()
      .from(orderFulfillments)
      .where(and(eq(orderFulfillments.orderId, orderId), eq(orderFulfillments.id, fulfillmentId)))
      .get()
    if (!row) throw notFound('fulfillment', fulfillmentId)
    tx.delete(orderFulfillments).where(eq(orderFulfillments.id, fulfillmentId)).run()
    recordWrite(tx, actor, {
      action: 'order.fulfillment.delete',
      entityType: 'order',
      entityId: orderId,
      metadata: { orderNumber: order.orderNumber, fulfillment: { ...row, orderId: undefined } },
      events: [{ object: 'order', action: 'update', aggregateId: orderId, payload: loadOrder(tx, orderId) }],
    })
  })
}
