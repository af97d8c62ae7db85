// How gift cards join the customers family: a merge moves a source customer's cards to the
// primary, and a customer who owns cards cannot be deleted (409; merge or set it inactive). The
// cards table keeps no foreign key to customers: adding one would rebuild the table and its
// ledger triggers. And how they join orders: the cards sold on an order are issued once it is
// paid, and the `allowDiscounts` setting decides whether orders discount gift card sales.
import { count, eq } from 'drizzle-orm'
import { registerCustomerReferenceCount, registerCustomerReferenceMover } from '../customers'
import { lendToOrders } from '../orders'
import { issueGiftCardsForPaidOrder } from './sales'
import { giftCards } from './schema'
import { getGiftCardSettings } from './settings'

/** Registers what the family lends the others (its manifest's `hooks`, index.ts). */
export function registerGiftCardsHooks(): void {
  lendToOrders({
    issueGiftCards: issueGiftCardsForPaidOrder,
    giftCardSalesDiscountable: (db) => getGiftCardSettings(db).allowDiscounts,
  })

  registerCustomerReferenceMover(
    'giftCards',
    (tx, sourceId, primaryId) =>
      tx
        .update(giftCards)
        .set({ customerId: primaryId })
        .where(eq(giftCards.customerId, sourceId))
        .returning({ id: giftCards.id })
        .all().length,
  )

  registerCustomerReferenceCount(
    'giftCards',
    (db, customerId) =>
      db.select({ n: count() }).from(giftCards).where(eq(giftCards.customerId, customerId)).get()?.n ?? 0,
  )
}
