// What orders need from other modules (catalog, taxes, coupons, inventory, gift cards, the
// off-premise block), as one small port. The services depend only on this interface; the service
// implements it over those modules in src/modules/orders-port.ts, so orders import none of them.
import type { Actor } from '../../platform/auth/actor'
import type { Queryable } from '../../platform/tenancy/transaction'
import type { CouponTerms } from '../coupons/apply'
import type { CouponRow } from '../coupons/schema'
import type { OffPremiseInputValue, OffPremiseView } from './model-off-premise'
import type { TaxCalculation } from './pricing'
import type { GiftCardSaleValue, OrderRow } from './schema'

export const taxCodes = ['food', 'wine', 'generalMerchandise', 'freight'] as const
export type TaxCode = (typeof taxCodes)[number]

/** A sellable product variant, as an order line needs it. Prices are integer cents. */
export interface CatalogVariantInfo {
  variantId: string
  productId: string
  productTitle: string
  variantTitle: string
  sku: string
  price: number
  /** null: not taxed (gift cards). */
  taxCode: TaxCode | null
  productType: string
  /** False when the product is not offered at the point of sale (adminStatus not Available). */
  availableForSale: boolean
  collectionIds: string[]
  /** Bottle deposit per unit, cents (0: none). */
  bottleDeposit: number
}

/** Where an order ships to: what a shipping rate and the tax place are looked up by. */
export interface ShipTo {
  countryCode: string
  stateCode: string | null
}

/** The shipping service that rates an order, and its price for the order's weight. */
export interface ShippingRateInfo {
  serviceId: string
  title: string
  price: number
}

export interface TaxRateInfo {
  taxId: string | null
  rateBps: number
  taxCalculation: TaxCalculation
}

/**
 * A coupon of the coupons module as orders apply it: its terms, which the coupons engine
 * (`applyCoupon`, `couponDiscount` in src/modules/coupons/apply.ts) reads, plus what an
 * AppliedDiscount copies. Orders keep no eligibility rules of their own.
 */
export type OrderCoupon = CouponTerms &
  Pick<CouponRow, 'id' | 'code' | 'title' | 'actionMessage' | 'serviceChargeInteraction'>

/** Who a customer is for coupons available to a Club or a Customer Tag. */
export interface CustomerSegments {
  /** Clubs the customer has a live (not cancelled) membership of. */
  clubIds: string[]
  /** The customer's Manual customer tags. */
  tagIds: string[]
}

export interface DepletionRequest {
  orderId: string
  locationId: string
  lines: { lineId: string; productId: string; quantity: number }[]
}

export interface GiftCardIssue {
  orderId: string
  orderNumber: number
  locationId: string
  lines: {
    lineId: string
    giftCardSale: GiftCardSaleValue
    amount: number
    productId: string | null
    title: string
  }[]
}

export interface OrdersPort {
  /** The live customer an id names (a merged-away id gives its primary), or undefined. */
  findCustomer(db: Queryable, id: string): { id: string; name: string; email?: string | null } | undefined
  findVariant(db: Queryable, ref: { variantId?: string; sku?: string }): CatalogVariantInfo | undefined
  /** The rate for a tax code at a place; null when no tax is configured there. */
  taxRate(
    db: Queryable,
    place: { countryCode: string; stateCode: string | null },
    taxCode: TaxCode,
  ): TaxRateInfo | null
  /**
   * The rate of shipping the order (its lines' shipping weight) to a place: the default active
   * service of the first configuration covering it (else its first active service); null when none.
   */
  shippingRate(db: Queryable, orderId: string, shipTo: ShipTo): ShippingRateInfo | null
  /** The coupon with a code, case-insensitive. */
  findCouponByCode(db: Queryable, code: string): OrderCoupon | undefined
  /** The clubs and tags of a live customer, for coupons available to a Club or Customer Tag. */
  customerSegments(db: Queryable, customerId: string): CustomerSegments
  /** Takes stock for sent lines, in the caller's transaction. */
  depleteForOrderLines(tx: Queryable, actor: Actor, request: DepletionRequest): void
  /** Puts back what the order's (or some lines') depletion took, in the caller's transaction. */
  reverseDepletion(tx: Queryable, actor: Actor, request: { orderId: string; lineIds?: string[] }): void
  /** Issues the gift cards sold on the order's lines, once paid, in the caller's transaction. */
  issueGiftCards(tx: Queryable, actor: Actor, issue: GiftCardIssue): void
  /**
   * Gives a new takeout, pickup, curbside or delivery order its `offPremise` block (quoted, or
   * refused 409), in the create transaction; `input` on another order is 400.
   */
  attachOffPremise(
    tx: Queryable,
    actor: Actor,
    order: OrderRow,
    input: OffPremiseInputValue | undefined,
  ): void
  /** Follows a change of the order's fulfillment mode (PUT /order/{id}), or refuses it (409). */
  changeOffPremiseMode(tx: Queryable, actor: Actor, order: OrderRow, mode: string): void
  /** The `offPremise` block of each of these orders that has one. */
  offPremiseBlocks(db: Queryable, orderIds: string[]): Map<string, OffPremiseView>
}
