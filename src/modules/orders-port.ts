// The OrdersPort (orders/ports.ts) over the other modules of the service: the catalog (products,
// collections), taxes, coupons, club memberships and customer tags, inventory depletion, gift card
// issuance and the off-premise block. Handed to the order family's routes by src/server.ts; it
// lives outside orders so that orders import none of these modules, and off-premise, which
// builds on orders, is no circle.
import type { Queryable } from '../platform/tenancy/transaction'
import { clubIdsOfCustomer } from './club-memberships/service'
import { collectionIdsOfProduct } from './collections/service'
import { findCouponByCode } from './coupons/service'
import { findCustomerRow } from './customers/service'
import { issueGiftCardsForPaidOrder } from './gift-cards/sales'
import { depleteForOrderLines, reverseOrderDepletion } from './inventory/depletion'
import { attachOffPremise, changeOffPremiseMode } from './off-premise/attach'
import { offPremiseViews } from './off-premise/present'
import type { CatalogVariantInfo, OrdersPort } from './orders/ports'
import { type CatalogVariant, findVariant, findVariantBySku } from './products/variants'
import { orderShippingRate } from './shipping/order-rates'
import { tagsFor } from './tags/assignments'
import { taxRateFor } from './taxes/rates'

function variantInfo(db: Queryable, variant: CatalogVariant): CatalogVariantInfo {
  return {
    variantId: variant.id,
    productId: variant.productId,
    productTitle: variant.product.title,
    variantTitle: variant.title,
    sku: variant.sku,
    price: variant.price,
    taxCode: variant.taxType === 'none' ? null : variant.taxType,
    productType: variant.product.type,
    // adminStatus is the point-of-sale availability of a product.
    availableForSale: variant.product.adminStatus === 'Available',
    collectionIds: collectionIdsOfProduct(db, variant.productId),
    bottleDeposit: variant.bottleDeposit ?? 0,
  }
}

export const serviceOrdersPort: OrdersPort = {
  findCustomer: (db, id) => {
    const row = findCustomerRow(db, id)
    return row ? { id: row.id, name: `${row.firstName} ${row.lastName}`.trim(), email: row.email } : undefined
  },
  findVariant: (db, ref) => {
    const variant = ref.variantId
      ? findVariant(db, ref.variantId)
      : ref.sku
        ? findVariantBySku(db, ref.sku)
        : undefined
    return variant ? variantInfo(db, variant) : undefined
  },
  taxRate: (db, place, taxCode) => {
    const rate = taxRateFor(db, place, taxCode)
    return rate ? { taxId: rate.taxId, rateBps: rate.rateBps, taxCalculation: rate.taxCalculation } : null
  },
  shippingRate: orderShippingRate,
  findCouponByCode: (db, code) => findCouponByCode(db, code) ?? undefined,
  customerSegments: (db, customerId) => ({
    clubIds: clubIdsOfCustomer(db, customerId),
    tagIds: tagsFor(db, 'customer', customerId).map((t) => t.id),
  }),
  depleteForOrderLines: (tx, actor, request) => {
    depleteForOrderLines(tx, actor, request)
  },
  reverseDepletion: (tx, actor, request) => {
    reverseOrderDepletion(tx, actor, request)
  },
  issueGiftCards: (tx, actor, issue) => {
    issueGiftCardsForPaidOrder(tx, actor, issue)
  },
  attachOffPremise,
  changeOffPremiseMode,
  offPremiseBlocks: offPremiseViews,
}
