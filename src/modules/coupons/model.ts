import type { TOptional } from '@sinclair/typebox'
import { t } from 'elysia'
import { pagingQuery } from '../../platform/foundation/paging'
import { freeForm, int, MAX_MONEY, money, oneOf } from '../../platform/foundation/types'
import {
  appliesToValues,
  availableToValues,
  combinabilities,
  couponStatuses,
  discountTypes,
  serviceChargeInteractions,
  usageLimitTypes,
} from './schema'

// One field holds either basis points or cents, so its schema carries the money bound (the wider
// one) and the coupon rules check the percentage range.
const discountValueDoc = `Depends on the discount type: Percentage Off in basis points, 1..10000 (1000 = 10%; above 100% is refused); Dollar Off in cents, 1..${MAX_MONEY}; Set Price in cents, 0..${MAX_MONEY} (the price each eligible unit, or the shipping, is sold at); No Discount and Free take no value (null).`

/** Redemptions are counted one by one: a billion is no limit in practice, and stays an exact integer. */
const MAX_USAGE_LIMIT = 1_000_000_000

const fields = {
  status: oneOf(couponStatuses, { description: 'Disabled coupons never apply. Default Enabled.' }),
  usageLimitType: oneOf(usageLimitTypes, {
    description:
      'Unlimited (usageLimit null); Total: at most usageLimit redemptions in all; Per Customer: at most usageLimit per customer (anonymous carts cannot use it). Default Unlimited.',
  }),
  usageLimit: t.Nullable(
    int({
      minimum: 1,
      maximum: MAX_USAGE_LIMIT,
      description: 'Required (>= 1) unless usageLimitType is Unlimited.',
    }),
  ),
  appliesTo: oneOf(appliesToValues, {
    description:
      'Store: the whole cart; Product: lines of the products in appliesToObjectIds; Collection: lines of products in the collections in appliesToObjectIds. Default Store.',
  }),
  appliesToObjectIds: t.Array(t.String({ minLength: 1, maxLength: 200 }), {
    maxItems: 500,
    uniqueItems: true,
    description:
      'Product or collection ids (1..500) for Product and Collection coupons, each a product or collection of this tenant (400 naming the index otherwise); empty for Store.',
  }),
  productDiscountType: oneOf(discountTypes, {
    description: 'Discount on the eligible items. Default No Discount.',
  }),
  productDiscount: t.Nullable(money({ description: discountValueDoc })),
  shippingDiscountType: oneOf(discountTypes, { description: 'Discount on shipping. Default No Discount.' }),
  shippingDiscount: t.Nullable(money({ description: discountValueDoc })),
  startDate: t.Nullable(
    t.String({
      format: 'date',
      description: 'First day the coupon applies (YYYY-MM-DD, in the location’s time zone); null: from now.',
    }),
  ),
  endDate: t.Nullable(
    t.String({
      format: 'date',
      description: 'Last day the coupon applies, inclusive; null: no end. Not before startDate.',
    }),
  ),
  minimumCartAmount: t.Nullable(money({ description: 'Cart subtotal the cart must reach, in cents.' })),
  availableTo: oneOf(availableToValues, {
    description:
      'Who may use it: Everyone; Customer, Club or Customer Tag with the customer, club or customer-tag ids in availableToObjectIds. Default Everyone.',
  }),
  availableToObjectIds: t.Array(t.String({ minLength: 1, maxLength: 200 }), {
    maxItems: 500,
    uniqueItems: true,
    description:
      'Customer, club or customer-tag ids (1..500) unless availableTo is Everyone, each a customer, club or customer tag of this tenant (400 naming the index otherwise). A customer id merged away is stored as the customer it was merged into, and a customer merge replaces the source’s id with the primary’s.',
  }),
  combinability: oneOf(combinabilities, {
    description:
      'combinable: may join other combinable coupons on a cart; exclusive: the only coupon on the cart. Default combinable.',
  }),
  requiresManagerApproval: t.Boolean({
    description: 'A manager (discounts:approve) must approve it on the order. Default false.',
  }),
  excludesServiceCharges: t.Boolean({
    description: 'When false, a Store coupon also discounts service charges. Default true.',
  }),
  serviceChargeInteraction: oneOf(serviceChargeInteractions, {
    description:
      'pre_discount: service charges are computed on the subtotal before this discount; post_discount: after it. Default pre_discount.',
  }),
  maxDiscountAmount: t.Nullable(
    money({ minimum: 1, description: 'Cap on the whole discount (products and shipping), in cents.' }),
  ),
  promotionSets: t.Array(freeForm(), {
    maxItems: 50,
    description:
      'Free-form promotion set objects, stored as given for promotion engines; not used by the discount calculation.',
  }),
}

const code = t.String({
  pattern: '^[A-Za-z0-9][A-Za-z0-9_-]{0,49}$',
  description:
    'What the guest enters: letters, digits, - and _, up to 50; unique case-insensitively (409). Omitted on create: an 8-character code is generated.',
})
const title = t.String({ minLength: 1, maxLength: 200 })
const actionMessage = t.Nullable(
  t.String({ maxLength: 500, description: 'Shown to the guest when the coupon applies.' }),
)

export const Coupon = t.Object(
  {
    id: t.String({ format: 'uuid' }),
    code: t.String(),
    title: t.String(),
    actionMessage: t.Nullable(t.String()),
    ...fields,
    createdAt: t.String({ format: 'date-time' }),
    updatedAt: t.String({ format: 'date-time' }),
  },
  { $id: '#/components/schemas/Coupon' },
)

const optional = Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, t.Optional(v)])) as {
  [K in keyof typeof fields]: TOptional<(typeof fields)[K]>
}

export const CreateCoupon = t.Object(
  { title, code: t.Optional(code), actionMessage: t.Optional(actionMessage), ...optional },
  { additionalProperties: false },
)

export const UpdateCoupon = t.Object(
  { title: t.Optional(title), code: t.Optional(code), actionMessage: t.Optional(actionMessage), ...optional },
  {
    additionalProperties: false,
    description:
      'Partial update; the coupon that results is validated as a whole (e.g. a new discount type needs its value).',
  },
)

export const CouponListQuery = t.Object({
  q: t.Optional(t.String({ maxLength: 200, description: 'Case-insensitive search over code and title.' })),
  status: t.Optional(oneOf(couponStatuses)),
  ...pagingQuery(100),
})

export const CouponList = t.Object({ coupons: t.Array(Coupon), total: int({ minimum: 0 }) })

export const CouponParams = t.Object({ id: t.String({ minLength: 1, maxLength: 200 }) })

export type CreateCouponInput = typeof CreateCoupon.static
export type UpdateCouponInput = typeof UpdateCoupon.static
