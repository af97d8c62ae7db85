// The OrdersPort over the other modules of the service: inventory depletion and gift card
// issuance are wired to their modules. The catalog (products), taxes and coupons modules are not
// merged into this branch yet; until they are, the port answers what an empty catalog would: no
// variants, no tax configured, no coupons.
import { issueGiftCardsForPaidOrder } from '../gift-cards/sales'
import { depleteForOrderLines, reverseOrderDepletion } from '../inventory/depletion'
import type { OrdersPort } from './ports'

export const serviceOrdersPort: OrdersPort = {
  findVariant: () => undefined,
  taxRate: () => null,
  findCouponByCode: () => undefined,
  depleteForOrderLines: (tx, actor, request) => {
    depleteForOrderLines(tx, actor, request)
  },
  reverseDepletion: (tx, actor, request) => {
    reverseOrderDepletion(tx, actor, request)
  },
  issueGiftCards: (tx, actor, issue) => {
    issueGiftCardsForPaidOrder(tx, actor, issue)
  },
}
