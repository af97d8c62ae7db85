// How orders join the customers family: a customer merge moves their orders to the primary, and
// an order links its customer to the order's location (`GET /customers?locationId=`), and tags
// attach to existing orders only; a customer with orders cannot be deleted. Dynamic tags test an
// order's fields, and a customer's paid orders (count, lifetime value, last order date).
import { and, asc, count, eq, inArray, max, sum } from 'drizzle-orm'
import {
  registerCustomerLocationLink,
  registerCustomerReferenceCount,
  registerCustomerReferenceMover,
} from '../customers'
import { registerDynamicSource, registerTaggable } from '../tags'
import { orderDiscounts, orders } from './schema'

/** Registers what the family lends the others (its manifest's `hooks`, index.ts). */
export function registerOrdersHooks(): void {
  registerCustomerReferenceMover(
    'orders',
    (tx, sourceId, primaryId) =>
      tx
        .update(orders)
        .set({ customerId: primaryId })
        .where(eq(orders.customerId, sourceId))
        .returning({ id: orders.id })
        .all().length,
  )

  // orders.customer_id has no foreign key: a customer with orders cannot be deleted (409).
  registerCustomerReferenceCount(
    'orders',
    (db, customerId) =>
      db.select({ n: count() }).from(orders).where(eq(orders.customerId, customerId)).get()?.n ?? 0,
  )

  // Order tags attach through the tags family's service to orders of this tenant.
  registerTaggable(
    'order',
    (db, id) => db.select({ id: orders.id }).from(orders).where(eq(orders.id, id)).get() !== undefined,
  )

  registerCustomerLocationLink('orders', (db, locationId) =>
    db.select({ id: orders.customerId }).from(orders).where(eq(orders.locationId, locationId)),
  )

  const orderWritten = (write: { entityType: string; entityId: string | null }) =>
    write.entityType === 'order' && write.entityId ? [write.entityId] : []

  registerDynamicSource('order', {
    ids: (db) =>
      db
        .select({ id: orders.id })
        .from(orders)
        .all()
        .map((r) => r.id),
    present: (db, id) => {
      const row = db.select().from(orders).where(eq(orders.id, id)).get()
      if (!row) return undefined
      const coupon = db
        .select({ code: orderDiscounts.code })
        .from(orderDiscounts)
        .where(and(eq(orderDiscounts.orderId, id), eq(orderDiscounts.sourceType, 'coupon')))
        .orderBy(asc(orderDiscounts.position))
        .get()
      return { ...row, couponCode: coupon?.code ?? null }
    },
    changedBy: (_db, write) => orderWritten(write),
  })

  // A customer's order figures count paid and closed orders only.
  const countedOrders = (customerId: string) =>
    and(eq(orders.customerId, customerId), inArray(orders.status, ['paid', 'closed']))

  registerDynamicSource('customer', {
    present: (db, customerId) => {
      const figures = db
        .select({ orderCount: count(), lifetimeValue: sum(orders.total), lastOrderAt: max(orders.createdAt) })
        .from(orders)
        .where(countedOrders(customerId))
        .get()
      return {
        orderCount: figures?.orderCount ?? 0,
        lifetimeValue: Number(figures?.lifetimeValue ?? 0),
        lastOrderDate: figures?.lastOrderAt ?? null,
      }
    },
    changedBy: (db, write) =>
      orderWritten(write).flatMap(
        (id) =>
          db.select({ customerId: orders.customerId }).from(orders).where(eq(orders.id, id)).get()
            ?.customerId ?? [],
      ),
  })
}
