import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { locations } from '../locations/schema'

export const orderStatuses = ['draft', 'submitted', 'paid', 'closed', 'voided'] as const
export type OrderStatus = (typeof orderStatuses)[number]

export const taxCalculations = ['Added', 'Included'] as const

/** What a line or service charge is taxed as: one of the rates of a tax (taxes/rates.ts). */
export const taxCodes = ['food', 'wine', 'generalMerchandise', 'freight'] as const
export type TaxCode = (typeof taxCodes)[number]

/** Gap-free per-tenant counters; `order` holds the last order number handed out. */
export const orderSequences = sqliteTable('order_sequences', {
  name: text('name').primaryKey(),
  lastValue: integer('last_value').notNull(),
})

/** Where a location charges sales tax: the place a Tax record is looked up by. */
export const orderLocationSettings = sqliteTable('order_location_settings', {
  locationId: text('location_id')
    .primaryKey()
    .references(() => locations.id, { onDelete: 'cascade' }),
  countryCode: text('country_code').notNull(),
  stateCode: text('state_code'),
  updatedAt: text('updated_at').notNull(),
})

/** An amount split over the parts of an order's total (tips aside), in cents. */
export interface OrderParts {
  /** The lines, net of what discounts took from them. */
  lines: number
  /** The service charges, net of what discounts took from them. */
  serviceCharges: number
  shipping: number
  bottleDeposits: number
  /** Added tax (Included tax is inside the lines). */
  tax: number
  contribution: number
}

export interface FundraisingValue {
  campaignId: string | null
  campaignCode: string | null
  campaignName: string | null
  causeName: string | null
  contributionType: 'round_up' | 'fixed'
  contributionValue: number
}

export const orders = sqliteTable(
  'orders',
  {
    id: text('id').primaryKey(),
    orderNumber: integer('order_number').notNull(),
    /** The order's reference in the system it was imported from (imports' `orders` kind); unique. */
    externalRef: text('external_ref'),
    /**
     * The import that last wrote the order (orders/import.ts), null for orders taken here: its
     * amounts are the history its file gave, which nothing reprices.
     */
    importId: text('import_id'),
    customerId: text('customer_id'),
    customerName: text('customer_name'),
    guestName: text('guest_name'),
    locationId: text('location_id')
      .notNull()
      .references(() => locations.id),
    assignedStaffUserId: text('assigned_staff_user_id'),
    status: text('status', { enum: orderStatuses }).notNull(),
    source: text('source').notNull(),
    fulfillmentMode: text('fulfillment_mode').notNull(),
    tableId: text('table_id'),
    sectionId: text('section_id'),
    serviceAreaId: text('service_area_id'),
    tableLabel: text('table_label'),
    seatCount: integer('seat_count'),
    note: text('note'),
    // Totals: integer cents, recomputed by the pricing engine on every change.
    subtotal: integer('subtotal').notNull(),
    discountTotal: integer('discount_total').notNull(),
    taxTotal: integer('tax_total').notNull(),
    includedTaxTotal: integer('included_tax_total').notNull(),
    tipTotal: integer('tip_total').notNull(),
    serviceChargeTotal: integer('service_charge_total').notNull().default(0),
    shippingTotal: integer('shipping_total').notNull().default(0),
    /** The tax on shipping (the `freight` tax code), part of taxTotal. */
    shippingTaxAmount: integer('shipping_tax_amount').notNull().default(0),
    /** What coupons take from the shipping, part of discountTotal. */
    shippingDiscountAmount: integer('shipping_discount_amount').notNull().default(0),
    bottleDepositTotal: integer('bottle_deposit_total').notNull().default(0),
    contributionAmountCents: integer('contribution_amount_cents').notNull(),
    total: integer('total').notNull(),
    /** Payments net of refunds, tips included. */
    amountPaid: integer('amount_paid').notNull(),
    /**
     * What the payments net of refunds (tips aside) cover of each part of the total, kept by every
     * payment and refund so that refunds give each part back to the cent (charges.ts). Null on
     * orders paid before it was kept: derived from `amountPaid` on first use.
     */
    paidParts: text('paid_parts', { mode: 'json' }).$type<OrderParts | null>(),
    balanceDue: integer('balance_due').notNull(),
    paymentIntentIds: text('payment_intent_ids', { mode: 'json' }).$type<string[]>().notNull(),
    fundraising: text('fundraising', { mode: 'json' }).$type<FundraisingValue | null>(),
    // Where a `shipping` order ships to: the shipping rate and the tax place follow it.
    shipToCountryCode: text('ship_to_country_code'),
    shipToStateCode: text('ship_to_state_code'),
    /** The rated shipping service (the covering configuration's default), kept current by repricing. */
    shippingServiceId: text('shipping_service_id'),
    shippingServiceTitle: text('shipping_service_title'),
    /** The configured rate for the order's weight and ship-to; null when nothing covers it. */
    shippingRate: integer('shipping_rate'),
    /** An explicit shipping charge in place of the rate (permission `orders:shipping-override`). */
    shippingOverride: integer('shipping_override'),
    submittedAt: text('submitted_at'),
    paidAt: text('paid_at'),
    closedAt: text('closed_at'),
    voidedAt: text('voided_at'),
    voidedByStaffUserId: text('voided_by_staff_user_id'),
    voidReasonId: text('void_reason_id'),
    voidReasonName: text('void_reason_name'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (table) => [
    uniqueIndex('orders_order_number_unique').on(table.orderNumber),
    uniqueIndex('orders_external_ref_unique').on(table.externalRef),
    index('orders_created_at').on(table.createdAt),
    index('orders_location_created_at').on(table.locationId, table.createdAt),
    index('orders_customer').on(table.customerId),
    index('orders_status').on(table.status),
  ],
)

export interface ModifierValue {
  productId: string | null
  title: string
  priceDelta: number
  quantity: number
  groupId: string | null
  groupTitle: string | null
  portionId: string | null
  portionLabel: string | null
  portionPriceMultiplier: number
  pricingStrategy: 'base' | 'no_charge' | 'open_price'
  openPriceAmount: number | null
  sizeName: string | null
  sequenceOrdinal: number | null
  preModifierOptionId: string | null
  preModifierLabel: string | null
  preModifierPosition: 'prefix' | 'suffix' | null
  displayLabel: string | null
  defaultApplied: boolean
  routing: RoutingValue | null
  modifiers: ModifierValue[]
  /** Computed: this modifier with its nested ones, times its quantity, per unit of the line. */
  amount: number
}

export interface GiftCardSaleValue {
  cardType: 'Virtual' | 'Physical' | null
  code: string | null
  recipientName: string | null
  recipientEmail: string | null
  recipientPhone: string | null
  fromName: string | null
  purchaserEmail: string | null
  purchaserPhone: string | null
  giftMessage: string | null
  notes: string | null
  deliveryChannel: 'email' | 'sms' | null
  deliveryDestination: string | null
  deliveryScheduledAt: string | null
  notifyPurchaserWhenOpened: boolean
}

export interface RoutingValue {
  prepStationIds: string[]
  assemblyLineId: string | null
  immediatePrepStationIds: string[]
  modifierRouting: 'with_parent' | 'separate' | null
  ticketDestination: 'prep_only' | 'expo_only' | 'prep_and_expo' | null
  appliedRuleIds: string[]
}

export const orderLines = sqliteTable(
  'order_lines',
  {
    id: text('id').primaryKey(),
    orderId: text('order_id')
      .notNull()
      .references(() => orders.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    lineType: text('line_type', { enum: ['catalog', 'open_item'] }).notNull(),
    sendStatus: text('send_status', { enum: ['new', 'sent'] }).notNull(),
    productId: text('product_id'),
    productVariantId: text('product_variant_id'),
    sku: text('sku'),
    title: text('title').notNull(),
    quantity: integer('quantity').notNull(),
    unitPrice: integer('unit_price').notNull(),
    taxCode: text('tax_code'),
    taxRateBps: integer('tax_rate_bps').notNull(),
    taxCalculation: text('tax_calculation', { enum: taxCalculations }).notNull(),
    category: text('category'),
    salesCategory: text('sales_category'),
    openItemScope: text('open_item_scope'),
    pricingStrategyApplied: text('pricing_strategy_applied').notNull(),
    menuId: text('menu_id'),
    sizeName: text('size_name'),
    seatId: text('seat_id'),
    seatNumber: integer('seat_number'),
    course: text('course'),
    diningOption: text('dining_option'),
    diningOptionLabel: text('dining_option_label'),
    prepTimeSeconds: integer('prep_time_seconds'),
    note: text('note'),
    modifiers: text('modifiers', { mode: 'json' }).$type<ModifierValue[]>().notNull(),
    routing: text('routing', { mode: 'json' }).$type<RoutingValue | null>(),
    /** A gift card sold on this line, issued by the gift cards module when the order is paid. */
    giftCardSale: text('gift_card_sale', { mode: 'json' }).$type<GiftCardSaleValue | null>(),
    /** The product's collections when the line was added: for coupons that apply to collections. */
    collectionIds: text('collection_ids', { mode: 'json' }).$type<string[]>().notNull(),
    /** The variant's bottle deposit per unit when the line was added (0: none). */
    bottleDeposit: integer('bottle_deposit').notNull().default(0),
    // Computed amounts, integer cents, kept current by the pricing engine.
    modifierTotal: integer('modifier_total').notNull(),
    bottleDepositAmount: integer('bottle_deposit_amount').notNull().default(0),
    subtotal: integer('subtotal').notNull(),
    discountAmount: integer('discount_amount').notNull(),
    taxAmount: integer('tax_amount').notNull(),
    total: integer('total').notNull(),
    sentAt: text('sent_at'),
    voidReasonId: text('void_reason_id'),
    voidReasonName: text('void_reason_name'),
    voidedAt: text('voided_at'),
    voidedByStaffUserId: text('voided_by_staff_user_id'),
    voidedByStaffName: text('voided_by_staff_name'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (table) => [
    index('order_lines_order').on(table.orderId, table.position),
    index('order_lines_product').on(table.productId),
  ],
)

export const orderDiscounts = sqliteTable(
  'order_discounts',
  {
    id: text('id').primaryKey(),
    orderId: text('order_id')
      .notNull()
      .references(() => orders.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    sourceType: text('source_type').notNull(),
    sourceId: text('source_id'),
    code: text('code'),
    title: text('title').notNull(),
    scope: text('scope', { enum: ['order', 'line'] }).notNull(),
    lineItemId: text('line_item_id'),
    actionMessage: text('action_message'),
    appliesTo: text('applies_to').notNull(),
    appliesToObjectIds: text('applies_to_object_ids', { mode: 'json' }).$type<string[]>().notNull(),
    combinability: text('combinability').notNull(),
    stackingScope: text('stacking_scope').notNull(),
    requiresManagerApproval: integer('requires_manager_approval', { mode: 'boolean' }).notNull(),
    managerApprovedByStaffUserId: text('manager_approved_by_staff_user_id'),
    excludesServiceCharges: integer('excludes_service_charges', { mode: 'boolean' }).notNull(),
    serviceChargeInteraction: text('service_charge_interaction'),
    eligibilitySummary: text('eligibility_summary').notNull(),
    discountType: text('discount_type', { enum: ['amount', 'percentage', 'set_price'] }).notNull(),
    value: integer('value').notNull(),
    maxDiscountAmount: integer('max_discount_amount'),
    minimumCartAmount: integer('minimum_cart_amount'),
    /** The coupon's shipping terms, copied when applied (its `value` covers products only). */
    shippingDiscountType: text('shipping_discount_type').notNull().default('No Discount'),
    shippingDiscount: integer('shipping_discount'),
    /** Products, service charges and shipping together. */
    amount: integer('amount').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (table) => [
    index('order_discounts_order').on(table.orderId, table.position),
    index('order_discounts_source').on(table.sourceId),
  ],
)

export const serviceChargeTypes = ['fixed', 'percent'] as const

/** A service charge on an order: a fixed amount or a percentage of the lines. */
export const orderServiceCharges = sqliteTable(
  'order_service_charges',
  {
    id: text('id').primaryKey(),
    orderId: text('order_id')
      .notNull()
      .references(() => orders.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    title: text('title').notNull(),
    chargeType: text('charge_type', { enum: serviceChargeTypes }).notNull(),
    /** Cents for `fixed`, basis points for `percent`. */
    value: integer('value').notNull(),
    taxable: integer('taxable', { mode: 'boolean' }).notNull(),
    gratuity: integer('gratuity', { mode: 'boolean' }).notNull(),
    taxCode: text('tax_code').notNull(),
    taxRateBps: integer('tax_rate_bps').notNull(),
    // Computed amounts, integer cents, kept current by the pricing engine.
    amount: integer('amount').notNull(),
    discountAmount: integer('discount_amount').notNull(),
    taxAmount: integer('tax_amount').notNull(),
    total: integer('total').notNull(),
    createdByStaffUserId: text('created_by_staff_user_id'),
    createdAt: text('created_at').notNull(),
  },
  (table) => [index('order_service_charges_order').on(table.orderId, table.position)],
)

/** The tenant's order settings: one row, `id` 'tenant', absent until first set. */
export const orderSettings = sqliteTable('order_settings', {
  id: text('id').primaryKey(),
  /** Whether bottle deposits are taxed with their line (California CRV is). */
  bottleDepositTaxable: integer('bottle_deposit_taxable', { mode: 'boolean' }).notNull(),
  updatedAt: text('updated_at').notNull(),
})

export interface ShippedValue {
  trackingNumbers: string[]
  carrier: string | null
}

export const orderFulfillments = sqliteTable(
  'order_fulfillments',
  {
    id: text('id').primaryKey(),
    orderId: text('order_id')
      .notNull()
      .references(() => orders.id, { onDelete: 'cascade' }),
    type: text('type').notNull(),
    fulfillmentDate: text('fulfillment_date').notNull(),
    packageCount: integer('package_count').notNull(),
    sendTransactionEmail: integer('send_transaction_email', { mode: 'boolean' }).notNull(),
    items: text('items', { mode: 'json' }).$type<{ sku: string; quantityFulfilled: number }[]>().notNull(),
    shipped: text('shipped', { mode: 'json' }).$type<ShippedValue | null>(),
    pickedUp: text('picked_up', { mode: 'json' }).$type<{ pickedUpBy: string } | null>(),
    createdAt: text('created_at').notNull(),
  },
  (table) => [index('order_fulfillments_order').on(table.orderId, table.createdAt)],
)

export type OrderRow = typeof orders.$inferSelect
export type OrderLineRow = typeof orderLines.$inferSelect
export type OrderDiscountRow = typeof orderDiscounts.$inferSelect
export type OrderFulfillmentRow = typeof orderFulfillments.$inferSelect
export type OrderServiceChargeRow = typeof orderServiceCharges.$inferSelect
