// How orders join the customers family: a customer merge moves their orders to the primary, and
// an order links its customer to the order's location (`GET /customers?locationId=`).
import { eq } from 'drizzle-orm'
import { registerCustomerLocationLink, registerCustomerReferenceMover } from '../customers/references'
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

registerCustomerLocationLink('orders', (db, locationId) =>
  db.select({ id: orders.customerId }).from(orders).where(eq(orders.locationId, locationId)),
)
