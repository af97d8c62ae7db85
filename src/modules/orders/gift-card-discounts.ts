// Whether gift card sale lines take discounts: the gift cards family's `allowDiscounts` setting,
// which it lends orders (others.ts).
import type { Queryable } from '../../platform/tenancy/transaction'
import { others } from './others'

/** Whether a line can be discounted: every line but a gift card sale, unless the setting allows. */
export const lineDiscountable = (db: Queryable, line: { giftCardSale: unknown }): boolean =>
  !line.giftCardSale || others.giftCardSalesDiscountable(db)
