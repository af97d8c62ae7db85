// TypeBox schemas of the order header, totals, discounts, fulfillments and list.

import { t } from 'elysia'
import { pagingQuery } from '../../platform/foundation/paging'
import { bool, int, MAX_MONEY, money, oneOf } from '../../platform/foundation/types'
import { AddLine, LineItem } from './model-lines'
import { OffPremiseBlock, OffPremiseInput } from './model-off-premise'
import { orderStatuses, serviceChargeTypes, taxCodes } from './schema'

const text = (max: number, description?: string) => t.String({ minLength: 1, maxLength: max, description })
const optionalText = (max: number, description?: string) => t.Optional(t.Nullable(text(max, description)))

export const orderSources = ['pos', 'online', 'kiosk', 'phone', 'third_party', 'api'] as const
export const fulfillmentModes = ['dine_in', 'takeout', 'delivery', 'curbside', 'pickup', 'shipping'] as const

const status = oneOf(orderStatuses, {
  description:
    '`draft` (being built) → `submitted` (sent to the kitchen; lines can still be added and sent again) → `paid` (payments cover the balance) → `closed`. `voided` from `draft` or `submitted` when nothing is paid.',
})

const FundraisingInput = t.Object(
  {
    campaignId: optionalText(200),
    campaignCode: optionalText(100),
    campaignName: optionalText(200),
    causeName: optionalText(200),
    contributionType: t.Union([t.Literal('round_up'), t.Literal('fixed')], {
      description:
        '`round_up`: the guest rounds the amount due (before tips) up to the next multiple of `contributionValue` cents (default 100, a whole dollar; nothing when it is already whole). `fixed`: `contributionValue` cents.',
    }),
    contributionValue: t.Optional(money({ minimum: 1 })),
  },
  { additionalProperties: false },
)

export const Fundraising = t.Object({
  campaignId: t.Nullable(t.String()),
  campaignCode: t.Nullable(t.String()),
  campaignName: t.Nullable(t.String()),
  causeName: t.Nullable(t.String()),
  contributionType: t.Union([t.Literal('round_up'), t.Literal('fixed')]),
  contributionValue: int(),
  contributionAmountCents: int({ description: 'Computed: the contribution added to `total`, cents.' }),
})

const ShipToInput = t.Object(
  {
    countryCode: t.String({ pattern: '^[A-Za-z]{2}$', description: 'ISO 3166-1 alpha-2.' }),
    stateCode: t.Optional(t.Nullable(t.String({ pattern: '^[A-Za-z0-9]{1,3}$' }))),
  },
  {
    additionalProperties: false,
    description:
      'Where a `shipping` order ships to: its shipping rate and its tax place (its lines, service charges and shipping are taxed there). Null clears it.',
    examples: [{ countryCode: 'US', stateCode: 'CA' }],
  },
)

const headerFields = {
  customerId: optionalText(200),
  customerName: optionalText(200),
  guestName: optionalText(200),
  assignedStaffUserId: optionalText(200, 'Server of the order; default the acting staff user.'),
  fulfillmentMode: t.Optional(oneOf(fulfillmentModes)),
  tableId: optionalText(200),
  sectionId: optionalText(200),
  serviceAreaId: optionalText(200),
  tableLabel: optionalText(50),
  seatCount: t.Optional(t.Nullable(int({ minimum: 1, maximum: 999 }))),
  note: optionalText(2000),
  fundraising: t.Optional(t.Nullable(FundraisingInput)),
  shipTo: t.Optional(t.Nullable(ShipToInput)),
  shippingOverride: t.Optional(
    t.Nullable(
      money({
        description:
          'An explicit shipping charge in place of the configured rate, cents; null returns to the rate. Needs `orders:shipping-override` (403 without it).',
      }),
    ),
  ),
}

export const CreateOrder = t.Object(
  {
    locationId: optionalText(200, 'Default: the `x-location-id` of the request. One of the two is required.'),
    source: t.Optional(oneOf(orderSources, { description: 'Default `pos`.' })),
    ...headerFields,
    lineItems: t.Optional(
      t.Array(AddLine, { maxItems: 200, description: 'Lines to add at once, as `POST /order/{id}/line`.' }),
    ),
    offPremise: t.Optional(OffPremiseInput),
  },
  { additionalProperties: false },
)

export const UpdateOrder = t.Object(headerFields, {
  additionalProperties: false,
  description: 'Partial update of the header of a draft or submitted order; null clears a field.',
})

export const AppliedDiscount = t.Object({
  id: t.String({ format: 'uuid' }),
  sourceType: t.String({ description: '`coupon` for coupons applied by code.' }),
  sourceId: t.Nullable(t.String()),
  code: t.Nullable(t.String()),
  title: t.String(),
  scope: t.Union([t.Literal('order'), t.Literal('line')]),
  lineItemId: t.Nullable(t.String()),
  actionMessage: t.Nullable(t.String()),
  appliesTo: t.String(),
  appliesToObjectIds: t.Array(t.String()),
  combinability: t.String({ description: 'From the coupon: `combinable` or `exclusive`.' }),
  stackingScope: t.String({ description: '`sequential`: applies to what earlier discounts left.' }),
  requiresManagerApproval: t.Boolean(),
  managerApprovedByStaffUserId: t.Nullable(t.String()),
  excludesServiceCharges: t.Boolean(),
  serviceChargeInteraction: t.Nullable(t.String()),
  eligibilitySummary: t.String({ description: 'Computed: how the amount came about, or why it is 0.' }),
  discountType: t.Union([t.Literal('amount'), t.Literal('percentage'), t.Literal('set_price')], {
    description:
      'From the coupon: Dollar Off is `amount`, Percentage Off `percentage`, Free `percentage` of 10000, Set Price `set_price`, No Discount `amount` of 0.',
  }),
  value: int({
    description:
      'Cents for `amount`; basis points for `percentage` (1000 = 10%); cents per unit for `set_price`.',
  }),
  maxDiscountAmount: t.Nullable(int()),
  minimumCartAmount: t.Nullable(int()),
  shippingDiscountType: t.String({
    description:
      'From the coupon: its discount on shipping (`No Discount`, `Percentage Off`, `Dollar Off`, `Set Price`, `Free`).',
  }),
  shippingDiscount: t.Nullable(
    int({
      description: 'From the coupon: basis points for Percentage Off, cents for Dollar Off and Set Price.',
    }),
  ),
  amount: int({
    description:
      'Computed by the coupons engine, cents: what it takes from the lines and service charges plus what its shipping terms take from what earlier discounts left of `shipping.amount` (together capped at `maxDiscountAmount`, products first). The lines’ part is computed on what earlier discounts left of the eligible lines: the `amount` value, round-half-up(eligible × value / 10000), or for `set_price` the sum over eligible lines of what each has above value × quantity; never more than the eligible amount; capped at `maxDiscountAmount`; 0 while the subtotal is below `minimumCartAmount` or no line is eligible any more. Spread over the lines in proportion to what each has left (set_price: to what each has above the price), largest remainders taking the odd cents.',
  }),
  createdAt: t.String({ format: 'date-time' }),
})

export const ServiceCharge = t.Object({
  id: t.String({ format: 'uuid' }),
  title: t.String(),
  chargeType: oneOf(serviceChargeTypes, {
    description: '`fixed`: `value` cents. `percent`: `value` basis points of the lines.',
  }),
  value: int(),
  taxable: t.Boolean(),
  gratuity: t.Boolean({ description: 'A gratuity for the staff: never reduced by a discount.' }),
  taxCode: oneOf(taxCodes),
  taxRateBps: int({ description: 'The rate of `taxCode` where the order is taxed, when it was added.' }),
  amount: int({
    description:
      'Computed: `fixed` the value; `percent` round-half-up(base × value / 10000), the base being the subtotal less what the order’s `post_discount` discounts take from the lines.',
  }),
  discountAmount: int({
    description:
      'Computed: what Store coupons that do not exclude service charges take from it (never from a gratuity).',
  }),
  taxAmount: int({ description: 'Computed: on amount − discountAmount at taxRateBps when taxable, else 0.' }),
  total: int({ description: 'Computed: amount − discountAmount + taxAmount.' }),
  createdByStaffUserId: t.Nullable(t.String()),
  createdAt: t.String({ format: 'date-time' }),
})

export const Shipping = t.Object(
  {
    shipTo: t.Nullable(t.Object({ countryCode: t.String(), stateCode: t.Nullable(t.String()) })),
    serviceId: t.Nullable(t.String({ description: 'The shipping service that rates the order.' })),
    serviceTitle: t.Nullable(t.String()),
    rate: t.Nullable(
      int({
        description:
          'The configured rate for the order’s shipping weight and ship-to: the default active service of the first shipping configuration (by title) covering the ship-to, else its first active service; null without a ship-to or a covering configuration.',
      }),
    ),
    override: t.Nullable(int({ description: 'An explicit charge in place of the rate.' })),
    amount: int({ description: 'Computed: override, else rate, else 0; 0 once voided. = shippingTotal.' }),
    discountAmount: int({
      description:
        'Computed: what coupons with shipping terms (`shippingDiscountType`) take from amount; part of discountTotal.',
    }),
    taxAmount: int({
      description: 'Computed: the `freight` tax on amount − discountAmount where the order is taxed.',
    }),
  },
  { description: 'The shipping charge of a `shipping` order; null for other fulfillment modes.' },
)

export const fulfillmentTypes = ['Shipped', 'Picked Up', 'Carry Out', 'Local Delivery'] as const

export const Fulfillment = t.Object({
  id: t.String({ format: 'uuid' }),
  type: oneOf(fulfillmentTypes),
  fulfillmentDate: t.String(),
  packageCount: int(),
  sendTransactionEmail: t.Boolean(),
  items: t.Array(t.Object({ sku: t.String(), quantityFulfilled: int({ minimum: 1 }) })),
  shipped: t.Nullable(t.Object({ trackingNumbers: t.Array(t.String()), carrier: t.Nullable(t.String()) })),
  pickedUp: t.Nullable(t.Object({ pickedUpBy: t.String() })),
  createdAt: t.String({ format: 'date-time' }),
})

export const Order = t.Object(
  {
    id: t.String({ format: 'uuid' }),
    orderNumber: int({ minimum: 1, description: 'Per tenant, from 1, without gaps or duplicates.' }),
    externalRef: t.Nullable(
      t.String({
        description: 'The order’s reference in the system it was imported from (imports’ `orders` kind).',
      }),
    ),
    importId: t.Nullable(
      t.String({
        description:
          'The import that last wrote the order, whose amounts are the history its file gave; null for orders taken here.',
      }),
    ),
    customerId: t.Nullable(t.String()),
    customerName: t.Nullable(t.String()),
    guestName: t.Nullable(t.String()),
    locationId: t.String(),
    assignedStaffUserId: t.Nullable(t.String()),
    status,
    source: t.String(),
    fulfillmentMode: t.String(),
    tableId: t.Nullable(t.String()),
    sectionId: t.Nullable(t.String()),
    serviceAreaId: t.Nullable(t.String()),
    tableLabel: t.Nullable(t.String()),
    seatCount: t.Nullable(int()),
    note: t.Nullable(t.String()),
    subtotal: int({
      description: 'Computed: sum of the lines’ `subtotal` (voided lines count 0), cents.',
    }),
    discountTotal: int({
      description:
        'Computed: sum of the lines’ and the service charges’ `discountAmount` and `shipping.discountAmount` (= sum of the applied discounts’ `amount`).',
    }),
    taxTotal: int({
      description:
        'Computed: sum of the lines’ and service charges’ `taxAmount` and `shipping.taxAmount`, Added and Included.',
    }),
    includedTaxTotal: int({
      description:
        'Computed: the part of `taxTotal` that is Included in prices, so not added to `total` again.',
    }),
    serviceChargeTotal: int({ description: 'Computed: sum of the service charges’ `amount`.' }),
    shippingTotal: int({ description: 'Computed: `shipping.amount` (0 for orders that do not ship).' }),
    bottleDepositTotal: int({ description: 'Computed: sum of the lines’ `bottleDepositAmount`.' }),
    tipTotal: int({ description: 'Tips recorded with payments, cents.' }),
    total: int({
      description:
        'Computed: subtotal − discountTotal + serviceChargeTotal + shippingTotal + bottleDepositTotal + (taxTotal − includedTaxTotal) + tipTotal + fundraising.contributionAmountCents. Never negative.',
    }),
    amountPaid: int({ description: 'Payments net of refunds, tips included, cents.' }),
    balanceDue: int({ description: 'Computed: total − amountPaid; never negative.' }),
    paymentIntentIds: t.Array(t.String()),
    fulfillmentStatus: t.Union(
      [t.Literal('unfulfilled'), t.Literal('partially_fulfilled'), t.Literal('fulfilled')],
      {
        description: 'Computed over lines with a SKU that are not voided.',
      },
    ),
    fundraising: t.Nullable(Fundraising),
    lineItems: t.Array(LineItem),
    appliedDiscounts: t.Array(AppliedDiscount),
    serviceCharges: t.Array(ServiceCharge),
    shipping: t.Nullable(Shipping),
    fulfillments: t.Array(Fulfillment),
    offPremise: t.Nullable(OffPremiseBlock),
    submittedAt: t.Nullable(t.String({ format: 'date-time' })),
    paidAt: t.Nullable(t.String({ format: 'date-time' })),
    closedAt: t.Nullable(t.String({ format: 'date-time' })),
    voidedAt: t.Nullable(t.String({ format: 'date-time' })),
    voidedByStaffUserId: t.Nullable(t.String()),
    voidReasonId: t.Nullable(t.String()),
    voidReasonName: t.Nullable(t.String()),
    createdAt: t.String({ format: 'date-time' }),
    updatedAt: t.String({ format: 'date-time' }),
  },
  {
    description:
      'An order (a check). Money is integer cents. Rounding is half-up, per modifier portion, per discount and per line’s tax; header totals are exact sums of line amounts.',
  },
)

export const OrderListQuery = t.Object({
  q: t.Optional(
    t.String({
      maxLength: 200,
      description:
        'An order number (exact), or text contained in the customer or guest name (case-insensitive).',
    }),
  ),
  locationId: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
  status: t.Optional(status),
  createdAfter: t.Optional(t.String({ format: 'date-time', description: 'Inclusive.' })),
  createdBefore: t.Optional(t.String({ format: 'date-time', description: 'Exclusive.' })),
  ...pagingQuery(100),
})

export const OrderList = t.Object({ orders: t.Array(Order), total: int({ minimum: 0 }) })

export const OrderParams = t.Object({ id: t.String({ minLength: 1, maxLength: 200 }) })

export const ApplyDiscount = t.Object(
  {
    couponCode: text(100, 'The coupon’s code, case-insensitive.'),
    lineItemId: optionalText(200, 'Apply to this line only (scope `line`); default the whole order.'),
    managerApprovedByStaffUserId: optionalText(
      200,
      'Required when the coupon requires manager approval: an active staff user holding `discounts:approve` at the order’s location.',
    ),
  },
  { additionalProperties: false },
)

export const VoidBody = t.Object(
  {
    voidReasonId: optionalText(200),
    voidReasonName: text(200, 'Why, e.g. “Customer changed mind”, “Kitchen error”.'),
  },
  { additionalProperties: false },
)

const dateOrDateTime = t.Union([t.String({ format: 'date' }), t.String({ format: 'date-time' })])

const fulfillmentBase = {
  type: oneOf(fulfillmentTypes),
  fulfillmentDate: dateOrDateTime,
  packageCount: int({ minimum: 0, maximum: 1000 }),
  sendTransactionEmail: t.Boolean({
    description:
      'Emails the order’s customer about this fulfillment through the message sender once it is recorded (audited as `order.fulfillment.email`); also recorded on the fulfillment and in its `order` `fulfill` event.',
  }),
  shipped: t.Optional(
    t.Object(
      {
        trackingNumbers: t.Array(text(200), { maxItems: 50 }),
        carrier: optionalText(100),
      },
      { additionalProperties: false, description: 'Only with type `Shipped`.' },
    ),
  ),
  pickedUp: t.Optional(
    t.Object(
      { pickedUpBy: text(200) },
      { additionalProperties: false, description: 'Only with type `Picked Up`.' },
    ),
  ),
}

export const FulfillAll = t.Object(fulfillmentBase, { additionalProperties: false })

export const FulfillItems = t.Object(
  {
    ...fulfillmentBase,
    items: t.Array(
      t.Object(
        { sku: text(200), quantityFulfilled: int({ minimum: 1, maximum: 100_000 }) },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 200 },
    ),
  },
  { additionalProperties: false },
)

export const FulfillmentParams = t.Object({
  id: t.String({ minLength: 1, maxLength: 200 }),
  fulfillmentId: t.String({ minLength: 1, maxLength: 200 }),
})

export const DiscountParams = t.Object({
  id: t.String({ minLength: 1, maxLength: 200 }),
  discountId: t.String({ minLength: 1, maxLength: 200 }),
})

export const AddServiceCharge = t.Object(
  {
    title: text(200, 'E.g. “Service charge 18%”, “Event fee”.'),
    chargeType: oneOf(serviceChargeTypes),
    value: int({
      minimum: 1,
      maximum: MAX_MONEY,
      description:
        '`fixed`: cents (at most the money bound). `percent`: basis points, 1..10000 (1800 = 18%).',
    }),
    taxable: t.Optional(bool({ description: 'Default false.' })),
    gratuity: t.Optional(bool({ description: 'Default false.' })),
    taxCode: t.Optional(
      oneOf(taxCodes, { description: 'The tax code a taxable charge is taxed by. Default `food`.' }),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      { title: 'Large party service charge 18%', chargeType: 'percent', value: 1800, taxable: true },
      { title: 'Corkage', chargeType: 'fixed', value: 2500 },
      { title: 'Auto-gratuity 20%', chargeType: 'percent', value: 2000, gratuity: true },
    ],
  },
)

export const ServiceChargeParams = t.Object({
  id: t.String({ minLength: 1, maxLength: 200 }),
  serviceChargeId: t.String({ minLength: 1, maxLength: 200 }),
})

export const OrderSettings = t.Object({
  bottleDepositTaxable: t.Boolean({
    description: 'Whether bottle deposits are taxed with their line (California CRV is). Default false.',
  }),
  updatedAt: t.Nullable(t.String({ format: 'date-time' })),
})

export const PutOrderSettings = t.Object(
  { bottleDepositTaxable: bool() },
  { additionalProperties: false, examples: [{ bottleDepositTaxable: true }] },
)

export const LocationTaxPlace = t.Object({
  locationId: t.String(),
  countryCode: t.Nullable(t.String({ description: 'ISO 3166-1 alpha-2, upper case; null until set.' })),
  stateCode: t.Nullable(t.String()),
  updatedAt: t.Nullable(t.String({ format: 'date-time' })),
})

export const PutLocationTaxPlace = t.Object(
  {
    countryCode: t.String({ pattern: '^[A-Za-z]{2}$' }),
    stateCode: t.Optional(t.Nullable(t.String({ pattern: '^[A-Za-z0-9]{1,3}$' }))),
  },
  { additionalProperties: false },
)

export const LocationParams = t.Object({ locationId: t.String({ minLength: 1, maxLength: 200 }) })

export type CreateOrderInput = typeof CreateOrder.static
export type UpdateOrderInput = typeof UpdateOrder.static
export type ApplyDiscountInput = typeof ApplyDiscount.static
export type VoidInput = typeof VoidBody.static
export type AddServiceChargeInput = typeof AddServiceCharge.static
export type FulfillAllInput = typeof FulfillAll.static
export type FulfillItemsInput = typeof FulfillItems.static
export type OrderView = typeof Order.static
