import { sql } from 'drizzle-orm'
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'

export const couponStatuses = ['Enabled', 'Disabled'] as const
export const usageLimitTypes = ['Unlimited', 'Total', 'Per Customer'] as const
export const appliesToValues = ['Store', 'Product', 'Collection'] as const
export const discountTypes = ['No Discount', 'Percentage Off', 'Dollar Off', 'Set Price', 'Free'] as const
export const availableToValues = ['Everyone', 'Customer', 'Club', 'Customer Tag'] as const
export const combinabilities = ['combinable', 'exclusive'] as const
export const serviceChargeInteractions = ['pre_discount', 'post_discount'] as const

export type DiscountType = (typeof discountTypes)[number]

/**
 * Coupons. Money (`productDiscount`/`shippingDiscount` of Dollar Off and Set Price,
 * `minimumCartAmount`, `maxDiscountAmount`) is integer cents; Percentage Off values are basis
 * points (1000 = 10%).
 */
export const coupons = sqliteTable(
  'coupons',
  {
    id: text('id').primaryKey(),
    code: text('code').notNull(),
    title: text('title').notNull(),
    actionMessage: text('action_message'),
    usageLimitType: text('usage_limit_type', { enum: usageLimitTypes }).notNull(),
    usageLimit: integer('usage_limit'),
    appliesTo: text('applies_to', { enum: appliesToValues }).notNull(),
    appliesToObjectIds: text('applies_to_object_ids', { mode: 'json' }).$type<string[]>().notNull(),
    productDiscountType: text('product_discount_type', { enum: discountTypes }).notNull(),
    productDiscount: integer('product_discount'),
    shippingDiscountType: text('shipping_discount_type', { enum: discountTypes }).notNull(),
    shippingDiscount: integer('shipping_discount'),
    startDate: text('start_date'),
    endDate: text('end_date'),
    status: text('status', { enum: couponStatuses }).notNull(),
    minimumCartAmount: integer('minimum_cart_amount'),
    availableTo: text('available_to', { enum: availableToValues }).notNull(),
    availableToObjectIds: text('available_to_object_ids', { mode: 'json' }).$type<string[]>().notNull(),
    combinability: text('combinability', { enum: combinabilities }).notNull(),
    requiresManagerApproval: integer('requires_manager_approval', { mode: 'boolean' }).notNull(),
    excludesServiceCharges: integer('excludes_service_charges', { mode: 'boolean' }).notNull(),
    serviceChargeInteraction: text('service_charge_interaction', {
      enum: serviceChargeInteractions,
    }).notNull(),
    maxDiscountAmount: integer('max_discount_amount'),
    promotionSets: text('promotion_sets', { mode: 'json' }).$type<Record<string, unknown>[]>().notNull(),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (table) => [
    uniqueIndex('coupons_code_unique').on(sql`lower(${table.code})`),
    index('coupons_title').on(table.title),
  ],
)

export type CouponRow = typeof coupons.$inferSelect
