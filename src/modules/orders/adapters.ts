// The OrdersPort over the other modules of the service: the catalog (products, collections),
// inventory depletion and gift card issuance. The taxes and coupons modules are not merged into
// this branch yet; until they are, the port answers what an empty setup would: no tax configured
// (lines untaxed) and no coupons (an unknown code is 400).
import { eq } from 'drizzle-orm'
import type { Queryable } from '../../platform/tenancy/transaction'
import { collectionProducts } from '../collections/schema'
import { issueGiftCardsForPaidOrder } from '../gift-cards/sales'
import { depleteForOrderLines, reverseOrderDepletion } from '../inventory/depletion'
import { type CatalogVariant, findVariant, findVariantBySku } from '../products/variants'
import type { CatalogVariantInfo, OrdersPort } from './ports'

const collectionIdsOf = (db: Queryable, productId: string): string[] =>
  db
    .select({ id: collectionProducts.collectionId })
    .from(collectionProducts)
    .where(eq(collectionProducts.productId, productId))
    .all()
    .map((r) => r.id)

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
    collectionIds: collectionIdsOf(db, variant.productId),
  }
}

export const serviceOrdersPort: OrdersPort = {
  findVariant: (db, ref) => {
    const variant = ref.variantId
      ? findVariant(db, ref.variantId)
      : ref.sku
        ? findVariantBySku(db, ref.sku)
        : undefined
    return variant ? variantInfo(db, variant) : undefined
  },
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
