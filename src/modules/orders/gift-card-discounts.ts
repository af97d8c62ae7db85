// Whether gift card sale lines take discounts: the gift cards family's `allowDiscounts` setting,
// registered by its hooks so that orders import no gift card module. Off until registered.
import type { Queryable } from '../../platform/tenancy/transaction'

type DiscountRule = (db: Queryable) => boolean

let giftCardSalesDiscountableBy: DiscountRule = () => false

export function registerGiftCardDiscountRule(rule: DiscountRule): void {
  giftCardSalesDiscountableBy = rule
}

/** Whether a line can be discounted: every line but a gift card sale, unless the setting allows. */
export const lineDiscountable = (db: Queryable, line: { giftCardSale: unknown }): boolean =>
  !line.giftCardSale || giftCardSalesDiscountableBy(db)
