// How off-premise orders join the customers family: a customer merge moves the guest of
// off-premise blocks to the primary customer.
import { sql } from 'drizzle-orm'
import { registerCustomerReferenceMover } from '../customers/references'
import { orderOffPremise } from './schema'

registerCustomerReferenceMover(
  'orderOffPremise',
  (tx, sourceId, primaryId) =>
    tx
      .update(orderOffPremise)
      .set({ customer: sql`json_set(${orderOffPremise.customer}, '$.customerId', ${primaryId})` })
      .where(sql`json_extract(${orderOffPremise.customer}, '$.customerId') = ${sourceId}`)
      .returning({ id: orderOffPremise.orderId })
      .all().length,
)
