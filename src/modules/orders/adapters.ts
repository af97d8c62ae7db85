// The OrdersPort over the other modules of the service: the catalog (products, collections),
// taxes, coupons, inventory depletion and gift card issuance.
import { eq } from 'drizzle-orm'
import type { Queryable } from '../../platform/tenancy/transaction'
import { collectionProducts } from '../collections/schema'
import type { CouponRow } from '../coupons/schema'
import { findCouponByCode } from '../coupons/service'
import { customerAliases, customers } from '../customers/schema'
import { issueGiftCardsForPaidOrder } from '../gift-cards/sales'
import { depleteForOrderLines, reverseOrderDepletion } from '../inventory/depletion'
import { type CatalogVariant, findVariant, findVariantBySku } from '../products/variants'
import { taxRateFor } from '../taxes/rates'
import type { CatalogVariantInfo, CouponTerms, OrdersPort } from './ports'

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

/** The customer row of an id, following a merge alias to the primary. */
function findCustomerRow(db: Queryable, id: string) {
  const primary =
    db
      .select({ id: customerAliases.primaryCustomerId })
      .from(customerAliases)
      .where(eq(customerAliases.sourceCustomerId, id))
      .get()?.id ?? id
  return db.select().from(customers).where(eq(customers.id, primary)).get()
}

/** A coupon of the coupons module in the terms orders price with. */
export function couponTerms(row: CouponRow): CouponTerms {
  const discount: Pick<CouponTerms, 'discountType' | 'value'> =
    row.productDiscountType === 'Percentage Off'
      ? { discountType: 'percentage', value: Math.min(row.productDiscount ?? 0, 10_000) }
      : row.productDiscountType === 'Free'
        ? { discountType: 'percentage', value: 10_000 }
        : row.productDiscountType === 'Set Price'
          ? { discountType: 'set_price', value: row.productDiscount ?? 0 }
          : row.productDiscountType === 'Dollar Off'
            ? { discountType: 'amount', value: row.productDiscount ?? 0 }
            : { discountType: 'amount', value: 0 }
  return {
    id: row.id,
    code: row.code,
    title: row.title,
    actionMessage: row.actionMessage,
    status: row.status === 'Enabled' ? 'active' : 'inactive',
    startDate: row.startDate,
    endDate: row.endDate,
    ...discount,
    maxDiscountAmount: row.maxDiscountAmount,
    minimumCartAmount: row.minimumCartAmount,
    usageLimit: row.usageLimitType === 'Unlimited' ? null : (row.usageLimit ?? 0),
    usageLimitType: row.usageLimitType === 'Per Customer' ? 'per_customer' : 'total',
    appliesTo: row.appliesTo,
    appliesToObjectIds: row.appliesToObjectIds,
    combinability: row.combinability === 'exclusive' ? 'not_combinable' : 'combinable',
    availableTo: row.availableTo,
    availableToObjectIds: row.availableToObjectIds,
    requiresManagerApproval: row.requiresManagerApproval,
    excludesServiceCharges: row.excludesServiceCharges,
    serviceChargeInteraction: row.serviceChargeInteraction,
  }
}

export const serviceOrdersPort: OrdersPort = {
  findCustomer: (db, id) => {
    const row = findCustomerRow(db, id)
    return row ? { id: row.id, name: `${row.firstName} ${row.lastName}`.trim() } : undefined
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
  findCouponByCode: (db, code) => {
    const row = findCouponByCode(db, code)
    return row ? couponTerms(row) : undefined
  },
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
