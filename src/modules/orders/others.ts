// What orders ask of the other families, all in one place.
//
// - The families orders build on answer through their front doors (their index.ts): products
//   and the collections of a product, tax rates, coupons, customers and their tags, stock
//   depletion.
// - The families that build on orders import them, so orders cannot import those back: each
//   lends its part through its manifest's `hooks` (lendToOrders). Shipping rates the order,
//   off-premise keeps its block, gift cards are issued (and may be discounted) as their family
//   says, and club-memberships names a customer's clubs (it reaches orders through
//   club-releases). Asking for a part nobody lent throws: registerFamilies (src/modules/index.ts)
//   lends them all before anything runs.
// - The orders unit tests answer the catalog, taxes, coupons, customers, depletion and gift card
//   issuance from memory (replaceOthersForTests).
// - Payments lend what an imported order's payments are and replace them (import.ts).
import type { Actor } from '../../platform/foundation/actor'
import { lendingDesk } from '../../platform/lending'
import type { Queryable } from '../../platform/tenancy/transaction'
import { collectionIdsOfProduct } from '../collections'
import { type CouponRow, type CouponTerms, findCouponByCode } from '../coupons'
import { customersByExternalRef, findCustomerRow } from '../customers'
import { depleteForOrderLines, reverseOrderDepletion } from '../inventory'
import { type CatalogVariant, findVariant, findVariantBySku } from '../products'
import { tagsFor } from '../tags'
import { taxRateFor } from '../taxes'
import type { OffPremiseInputValue, OffPremiseView } from './model-off-premise'
import type { TaxCalculation } from './pricing'
import type { GiftCardSaleValue, OrderRow, TaxCode } from './schema'

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
 * A coupon of the coupons family as orders apply it: its terms, which the coupons engine
 * (`applyCoupon`, `couponDiscount` in src/modules/coupons/apply.ts) reads, plus what an
 * AppliedDiscount copies. Orders keep no eligibility rules of their own.
 */
export type OrderCoupon = CouponTerms &
  Pick<CouponRow, 'id' | 'code' | 'title' | 'actionMessage' | 'serviceChargeInteraction'>

/** Who a customer is for coupons available to a Club or a Customer Tag. */
export interface CustomerSegments {
  /** Clubs the customer has a live (not cancelled) membership of. */
  clubIds: string[]
  /** The customer's tags. */
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

/** A payment of an imported order (import.ts) as the payments family keeps it. Cents. */
export interface ImportedPaymentRecord {
  tender: 'cash' | 'card' | 'gift_card'
  amount: number
  tipAmount: number
  paidAt: string
  provider: string | null
  providerPaymentId: string | null
  cardBrand: string | null
  cardLast4: string | null
}

/** What the families that build on orders lend them (lendToOrders), by the family that lends it. */
export interface Lent {
  /** payments: an order's payments, oldest first, as an imported order's are compared with its file's. */
  importedPayments(db: Queryable, orderId: string): ImportedPaymentRecord[]
  /**
   * payments: replaces an imported order's payments with these (captured, history: no drawer, no
   * provider, no redemption), in the caller's transaction; answers their ids in order. Refuses
   * (409) when one of the order's payments was refunded since.
   */
  replaceImportedPayments(
    tx: Queryable,
    actor: Actor,
    order: Pick<OrderRow, 'id' | 'locationId'>,
    payments: readonly ImportedPaymentRecord[],
  ): string[]
  /**
   * shipping: the rate of shipping the order (its lines' shipping weight) to a place: the default
   * active service of the first configuration covering it (else its first active service); null
   * when none.
   */
  shippingRate(db: Queryable, orderId: string, shipTo: ShipTo): ShippingRateInfo | null
  /**
   * off-premise: gives a new takeout, pickup, curbside or delivery order its `offPremise` block
   * (quoted, or refused 409), in the create transaction; `input` on another order is 400.
   */
  attachOffPremise(
    tx: Queryable,
    actor: Actor,
    order: OrderRow,
    input: OffPremiseInputValue | undefined,
  ): void
  /** off-premise: follows a change of the order's fulfillment mode (PUT /order/{id}), or refuses it (409). */
  changeOffPremiseMode(tx: Queryable, actor: Actor, order: OrderRow, mode: string): void
  /** off-premise: the `offPremise` block of each of these orders that has one. */
  offPremiseBlocks(db: Queryable, orderIds: string[]): Map<string, OffPremiseView>
  /** gift-cards: issues the gift cards sold on the order's lines, once paid, in the caller's transaction. */
  issueGiftCards(tx: Queryable, actor: Actor, issue: GiftCardIssue): void
  /** gift-cards: whether gift card sale lines take discounts (the `allowDiscounts` setting). */
  giftCardSalesDiscountable(db: Queryable): boolean
  /** club-memberships: the clubs of a customer's memberships that are not cancelled. */
  customerClubIds(db: Queryable, customerId: string): string[]
}

/** Everything orders ask; a customer's clubs reach them within customerSegments. */
export interface Others extends Omit<Lent, 'customerClubIds'> {
  /** The live customer an id names (a merged-away id gives its primary), or undefined. */
  findCustomer(db: Queryable, id: string): { id: string; name: string; email?: string | null } | undefined
  /** The customers (at most two: more is ambiguous) whose externalRef is this one. */
  customersByExternalRef(db: Queryable, externalRef: string): { id: string; name: string }[]
  findVariant(db: Queryable, ref: { variantId?: string; sku?: string }): CatalogVariantInfo | undefined
  /** The rate for a tax code at a place; null when no tax is configured there. */
  taxRate(db: Queryable, place: ShipTo, taxCode: TaxCode): TaxRateInfo | null
  /** The coupon with a code, case-insensitive. */
  findCouponByCode(db: Queryable, code: string): OrderCoupon | undefined
  /** The clubs and tags of a live customer, for coupons available to a Club or Customer Tag. */
  customerSegments(db: Queryable, customerId: string): CustomerSegments
  /** Takes stock for sent lines, in the caller's transaction. */
  depleteForOrderLines(tx: Queryable, actor: Actor, request: DepletionRequest): void
  /** Puts back what the order's (or some lines') depletion took, in the caller's transaction. */
  reverseDepletion(tx: Queryable, actor: Actor, request: { orderId: string; lineIds?: string[] }): void
}

/** Lends orders a family's parts, from its manifest's `hooks`. */
const desk = lendingDesk<Lent>('orders')
export const lendToOrders = desk.lend
const lentPart = desk.part

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

const fromFamilies: Others = {
  findCustomer: (db, id) => {
    const row = findCustomerRow(db, id)
    return row ? { id: row.id, name: `${row.firstName} ${row.lastName}`.trim(), email: row.email } : undefined
  },
  customersByExternalRef: (db, externalRef) =>
    customersByExternalRef(db, externalRef).map((row) => ({
      id: row.id,
      name: `${row.firstName} ${row.lastName}`.trim(),
    })),
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
  findCouponByCode: (db, code) => findCouponByCode(db, code) ?? undefined,
  customerSegments: (db, customerId) => ({
    clubIds: lentPart('customerClubIds')(db, customerId),
    tagIds: tagsFor(db, 'customer', customerId).map((t) => t.id),
  }),
  depleteForOrderLines: (tx, actor, request) => {
    depleteForOrderLines(tx, actor, request)
  },
  reverseDepletion: (tx, actor, request) => {
    reverseOrderDepletion(tx, actor, request)
  },
  shippingRate: (db, orderId, shipTo) => lentPart('shippingRate')(db, orderId, shipTo),
  attachOffPremise: (tx, actor, order, input) => lentPart('attachOffPremise')(tx, actor, order, input),
  changeOffPremiseMode: (tx, actor, order, mode) => lentPart('changeOffPremiseMode')(tx, actor, order, mode),
  offPremiseBlocks: (db, orderIds) => lentPart('offPremiseBlocks')(db, orderIds),
  issueGiftCards: (tx, actor, issue) => lentPart('issueGiftCards')(tx, actor, issue),
  giftCardSalesDiscountable: (db) => lentPart('giftCardSalesDiscountable')(db),
  importedPayments: (db, orderId) => lentPart('importedPayments')(db, orderId),
  replaceImportedPayments: (tx, actor, order, payments) =>
    lentPart('replaceImportedPayments')(tx, actor, order, payments),
}

/** What orders ask of the other families: theirs, unless a test replaced some of it. */
export const others: Others = { ...fromFamilies }

/**
 * The orders unit tests' one seam (tests/modules/orders/helpers.ts): `fake`'s parts answer
 * instead of the families' until the returned function puts the families' back. The process
 * shares one `others`, so whoever replaces it puts it back when done.
 */
export function replaceOthersForTests(fake: Partial<Others>): () => void {
  Object.assign(others, fake)
  return () => {
    Object.assign(others, fromFamilies)
  }
}
