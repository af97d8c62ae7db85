// How off-premise orders join the customers family: a customer merge moves the guest of
// off-premise blocks to the primary customer. And how they join orders: a takeout, pickup,
// curbside or delivery order gets its `offPremise` block when created or moved into such a mode,
// and every order view shows it.
import { sql } from 'drizzle-orm'
import { registerCustomerReferenceMover } from '../customers'
import { lendToOrders } from '../orders'
import { attachOffPremise, changeOffPremiseMode } from './attach'
import { offPremiseViews } from './present'
import { orderOffPremise } from './schema'

/** Registers what the family lends the others (its manifest's `hooks`, index.ts). */
export function registerOffPremiseHooks(): void {
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

  lendToOrders({ attachOffPremise, changeOffPremiseMode, offPremiseBlocks: offPremiseViews })
}
