// How orders join the customers family: a customer merge moves their orders to the primary, and
// an order links its customer to the order's location (`GET /customers?locationId=`), and tags
// attach to existing orders only; a customer with orders cannot be deleted.
import { count, eq } from 'drizzle-orm'
import {
  registerCustomerLocationLink,
  registerCustomerReferenceCount,
  registerCustomerReferenceMover,
} from '../customers/references'
import { registerTaggable } from '../tags/assignments'
import { orders } from './schema'

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
