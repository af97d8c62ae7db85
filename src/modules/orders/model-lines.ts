// TypeBox schemas of line items, modifiers and routing: requests and responses.

import { t } from 'elysia'
import { int, money, oneOf, signedMoney } from '../../platform/foundation/types'
import { taxCodes } from './schema'

const text = (max: number, description?: string) => t.String({ minLength: 1, maxLength: max, description })
const optionalText = (max: number, description?: string) => t.Optional(t.Nullable(text(max, description)))

const taxCode = oneOf(taxCodes, {
  description:
    'Which rate of the location’s Tax record applies: `food`, `wine`, `generalMerchandise` or `freight`.',
})

export const Routing = t.Object(
  {
    prepStationIds: t.Array(text(200), { maxItems: 20, default: [] }),
    assemblyLineId: t.Nullable(text(200)),
    immediatePrepStationIds: t.Array(text(200), { maxItems: 20, default: [] }),
    modifierRouting: t.Nullable(t.Union([t.Literal('with_parent'), t.Literal('separate')])),
    ticketDestination: t.Nullable(
      t.Union([t.Literal('prep_only'), t.Literal('expo_only'), t.Literal('prep_and_expo')]),
    ),
    appliedRuleIds: t.Array(text(200), { maxItems: 20 }),
  },
  { description: 'Where the kitchen ticket of a line (or modifier) goes.' },
)

export const RoutingInput = t.Object(
  {
    prepStationIds: t.Optional(t.Array(text(200), { maxItems: 20 })),
    assemblyLineId: optionalText(200),
    immediatePrepStationIds: t.Optional(t.Array(text(200), { maxItems: 20 })),
    modifierRouting: t.Optional(t.Nullable(t.Union([t.Literal('with_parent'), t.Literal('separate')]))),
    ticketDestination: t.Optional(
      t.Nullable(t.Union([t.Literal('prep_only'), t.Literal('expo_only'), t.Literal('prep_and_expo')])),
    ),
    appliedRuleIds: t.Optional(t.Array(text(200), { maxItems: 20 })),
  },
  { additionalProperties: false },
)

const pricingStrategy = t.Union([t.Literal('base'), t.Literal('no_charge'), t.Literal('open_price')], {
  description:
    '`base` charges `priceDelta`; `no_charge` charges nothing (a free choice); `open_price` charges `openPriceAmount`.',
})

const modifierFields = {
  productId: optionalText(200),
  title: text(200),
  groupId: optionalText(200),
  groupTitle: optionalText(200),
  portionId: optionalText(200),
  portionLabel: optionalText(100, 'e.g. `Left half`, `Whole`.'),
  sizeName: optionalText(100),
  sequenceOrdinal: t.Optional(t.Nullable(int({ minimum: 0, maximum: 1000 }))),
  preModifierOptionId: optionalText(200),
  preModifierLabel: optionalText(100, 'e.g. `Extra`, `Light`, `No`.'),
  preModifierPosition: t.Optional(t.Nullable(t.Union([t.Literal('prefix'), t.Literal('suffix')]))),
  displayLabel: optionalText(300),
  defaultApplied: t.Optional(
    t.Boolean({ description: 'Part of the item by default (shown, not charged extra unless priced).' }),
  ),
}

export interface ModifierInput {
  productId?: string | null
  title: string
  priceDelta?: number
  quantity?: number
  groupId?: string | null
  groupTitle?: string | null
  portionId?: string | null
  portionLabel?: string | null
  portionPriceMultiplier?: number
  pricingStrategy?: 'base' | 'no_charge' | 'open_price'
  openPriceAmount?: number | null
  sizeName?: string | null
  sequenceOrdinal?: number | null
  preModifierOptionId?: string | null
  preModifierLabel?: string | null
  preModifierPosition?: 'prefix' | 'suffix' | null
  displayLabel?: string | null
  defaultApplied?: boolean
  routing?: typeof RoutingInput.static | null
  modifiers?: ModifierInput[]
}

const MAX_DEPTH = 3

function modifierInput(depth: number): ReturnType<typeof t.Object> {
  return t.Object(
    {
      ...modifierFields,
      priceDelta: t.Optional(
        signedMoney({
          description: 'Cents added to one unit of the parent (negative for a removal credit). Default 0.',
        }),
      ),
      quantity: t.Optional(
        int({ minimum: 1, maximum: 99, description: 'Per unit of the parent. Default 1.' }),
      ),
      portionPriceMultiplier: t.Optional(
        t.Number({
          minimum: 0,
          maximum: 10,
          description:
            'Share of the modifier’s own price charged for a portion: 0.5 for a half. Default 1. Taken to 4 decimal places.',
        }),
      ),
      pricingStrategy: t.Optional(pricingStrategy),
      openPriceAmount: t.Optional(
        t.Nullable(money({ description: 'Price of an `open_price` modifier, in cents.' })),
      ),
      routing: t.Optional(t.Nullable(RoutingInput)),
      ...(depth < MAX_DEPTH
        ? { modifiers: t.Optional(t.Array(modifierInput(depth + 1), { maxItems: 30 })) }
        : {}),
    },
    { additionalProperties: false },
  )
}

export const ModifierInputSchema = modifierInput(1)

function modifierView(depth: number): ReturnType<typeof t.Object> {
  return t.Object({
    productId: t.Nullable(t.String()),
    title: t.String(),
    priceDelta: int({ description: 'Cents, as entered.' }),
    quantity: int(),
    groupId: t.Nullable(t.String()),
    groupTitle: t.Nullable(t.String()),
    portionId: t.Nullable(t.String()),
    portionLabel: t.Nullable(t.String()),
    portionPriceMultiplier: t.Number(),
    pricingStrategy,
    openPriceAmount: t.Nullable(int()),
    sizeName: t.Nullable(t.String()),
    sequenceOrdinal: t.Nullable(int()),
    preModifierOptionId: t.Nullable(t.String()),
    preModifierLabel: t.Nullable(t.String()),
    preModifierPosition: t.Nullable(t.Union([t.Literal('prefix'), t.Literal('suffix')])),
    displayLabel: t.Nullable(t.String()),
    defaultApplied: t.Boolean(),
    routing: t.Nullable(Routing),
    modifiers: depth < MAX_DEPTH ? t.Array(modifierView(depth + 1)) : t.Array(t.Any(), { maxItems: 0 }),
    amount: int({
      description:
        'Computed, cents per one unit of the line: round-half-up(price × portionPriceMultiplier) — price being `priceDelta` (`base`), 0 (`no_charge`) or `openPriceAmount` (`open_price`) — plus the amounts of nested modifiers, times `quantity`.',
    }),
  })
}

export const Modifier = modifierView(1)

const giftCardSaleFields = {
  cardType: t.Nullable(t.Union([t.Literal('Virtual'), t.Literal('Physical')])),
  code: t.Nullable(t.String({ minLength: 4, maxLength: 64 })),
  recipientName: t.Nullable(t.String({ maxLength: 200 })),
  recipientEmail: t.Nullable(t.String({ format: 'email', maxLength: 320 })),
  recipientPhone: t.Nullable(t.String({ maxLength: 50 })),
  fromName: t.Nullable(t.String({ maxLength: 200 })),
  purchaserEmail: t.Nullable(t.String({ format: 'email', maxLength: 320 })),
  purchaserPhone: t.Nullable(t.String({ maxLength: 50 })),
  giftMessage: t.Nullable(t.String({ maxLength: 2000 })),
  notes: t.Nullable(t.String({ maxLength: 2000 })),
  deliveryChannel: t.Nullable(t.Union([t.Literal('email'), t.Literal('sms')])),
  deliveryDestination: t.Nullable(t.String({ maxLength: 320 })),
  deliveryScheduledAt: t.Nullable(t.String({ format: 'date-time' })),
  notifyPurchaserWhenOpened: t.Boolean(),
}

export const GiftCardSale = t.Object(giftCardSaleFields, {
  description:
    'A gift card sold on the line; the card is issued (or a pre-printed `code` activated) when the order is paid.',
})

const {
  cardType,
  code,
  recipientName,
  recipientEmail,
  recipientPhone,
  fromName,
  purchaserEmail,
  purchaserPhone,
} = giftCardSaleFields
const {
  giftMessage,
  notes,
  deliveryChannel,
  deliveryDestination,
  deliveryScheduledAt,
  notifyPurchaserWhenOpened,
} = giftCardSaleFields

export const GiftCardSaleInput = t.Object(
  {
    cardType: t.Optional(cardType),
    code: t.Optional(code),
    recipientName: t.Optional(recipientName),
    recipientEmail: t.Optional(recipientEmail),
    recipientPhone: t.Optional(recipientPhone),
    fromName: t.Optional(fromName),
    purchaserEmail: t.Optional(purchaserEmail),
    purchaserPhone: t.Optional(purchaserPhone),
    giftMessage: t.Optional(giftMessage),
    notes: t.Optional(notes),
    deliveryChannel: t.Optional(deliveryChannel),
    deliveryDestination: t.Optional(deliveryDestination),
    deliveryScheduledAt: t.Optional(deliveryScheduledAt),
    notifyPurchaserWhenOpened: t.Optional(notifyPurchaserWhenOpened),
  },
  {
    additionalProperties: false,
    description:
      'Sells a gift card of the line’s price (quantity 1, untaxed, not discounted); issued when the order is paid.',
  },
)

const lineFields = {
  quantity: t.Optional(int({ minimum: 1, maximum: 9999, description: 'Default 1.' })),
  modifiers: t.Optional(t.Array(ModifierInputSchema, { maxItems: 50 })),
  routing: t.Optional(t.Nullable(RoutingInput)),
  category: optionalText(100),
  salesCategory: optionalText(100),
  menuId: optionalText(200),
  sizeName: optionalText(100),
  seatId: optionalText(200),
  seatNumber: t.Optional(t.Nullable(int({ minimum: 1, maximum: 999 }))),
  course: optionalText(50),
  diningOption: optionalText(50, 'e.g. `dine_in`, `takeout`.'),
  diningOptionLabel: optionalText(100),
  prepTimeSeconds: t.Optional(t.Nullable(int({ minimum: 0, maximum: 86_400 }))),
  note: optionalText(1000, 'Kitchen note, e.g. “allergy: nuts”.'),
}

export const AddLine = t.Object(
  {
    lineType: t.Optional(
      t.Union([t.Literal('catalog'), t.Literal('open_item')], {
        description: 'Default `catalog`. `open_item` lines have a typed-in title and price.',
      }),
    ),
    productVariantId: optionalText(200, 'Catalog lines: the variant sold (or give `sku`).'),
    sku: optionalText(200, 'Catalog lines: the SKU of the variant sold (instead of `productVariantId`).'),
    productId: optionalText(200, 'Catalog lines: optional; must be the variant’s product when sent.'),
    title: optionalText(200, 'Open items: required. Catalog lines take the product’s title.'),
    unitPrice: t.Optional(
      money({
        description:
          'Open items only (required there): price of one unit in cents. Refused on catalog lines, which are priced from the variant.',
      }),
    ),
    openItemScope: t.Optional(
      oneOf(taxCodes, {
        description:
          'Not needed for gift card open items. ' +
          'Open items only (required there): what kind of item it is; sets its `taxCode` unless `taxCode` is sent.',
      }),
    ),
    taxCode: t.Optional(taxCode),
    giftCardSale: t.Optional(GiftCardSaleInput),
    ...lineFields,
  },
  { additionalProperties: false },
)

export const UpdateLine = t.Object(
  {
    ...lineFields,
    title: optionalText(200, 'Open items only.'),
    unitPrice: t.Optional(money({ description: 'Open items only.' })),
  },
  {
    additionalProperties: false,
    description: 'Partial update of a line not yet sent to the kitchen; fields not sent keep their value.',
  },
)

export const LineItem = t.Object({
  id: t.String({ format: 'uuid' }),
  lineType: t.Union([t.Literal('catalog'), t.Literal('open_item')]),
  sendStatus: t.Union([t.Literal('new'), t.Literal('sent')], {
    description: '`new` until the order is submitted (sent to the kitchen), then `sent`.',
  }),
  productId: t.Nullable(t.String()),
  productVariantId: t.Nullable(t.String()),
  sku: t.Nullable(t.String()),
  title: t.String(),
  quantity: int({ minimum: 1 }),
  unitPrice: int({
    description: 'Cents per unit before modifiers: the variant’s price, or the open item’s.',
  }),
  taxRateBps: int({
    description:
      'Resolved from the location’s Tax record by `taxCode` when the line was added or last changed; 0 when untaxed or no tax is configured.',
  }),
  taxCode: t.Nullable(taxCode),
  taxCalculation: t.Union([t.Literal('Added'), t.Literal('Included')], {
    description: '`Added`: tax on top of the price. `Included`: the price already contains the tax.',
  }),
  category: t.Nullable(t.String()),
  salesCategory: t.Nullable(t.String()),
  openItemScope: t.Nullable(t.String()),
  pricingStrategyApplied: t.String({
    description:
      '`base` (catalog price), `open_price` (open item) or `import` (history, as its file gave it).',
  }),
  menuId: t.Nullable(t.String()),
  sizeName: t.Nullable(t.String()),
  seatId: t.Nullable(t.String()),
  seatNumber: t.Nullable(int({ minimum: 1 })),
  course: t.Nullable(t.String()),
  diningOption: t.Nullable(t.String()),
  diningOptionLabel: t.Nullable(t.String()),
  prepTimeSeconds: t.Nullable(int()),
  note: t.Nullable(t.String()),
  modifiers: t.Array(Modifier),
  routing: t.Nullable(Routing),
  giftCardSale: t.Nullable(GiftCardSale),
  modifierTotal: int({ description: 'Computed: the modifiers’ amounts per unit, cents.' }),
  subtotal: int({ description: 'Computed: (unitPrice + modifierTotal) × quantity; 0 once voided.' }),
  discountAmount: int({ description: 'Computed: this line’s share of every applied discount.' }),
  bottleDeposit: int({
    description: 'The variant’s bottle deposit per unit when the line was added, cents (0: none).',
  }),
  bottleDepositAmount: int({
    description: 'Computed: bottleDeposit × quantity; 0 once voided. Never discounted.',
  }),
  taxAmount: int({
    description:
      'Computed per line on (subtotal − discountAmount, plus bottleDepositAmount when the tenant taxes deposits), rounded half-up to the cent: `Added` round(net × rate / 10000); `Included` net − round(net × 10000 / (10000 + rate)).',
  }),
  total: int({
    description: 'Computed: subtotal − discountAmount + bottleDepositAmount, plus taxAmount when `Added`.',
  }),
  quantityFulfilled: int({
    description:
      'Computed: units of this line covered by fulfillments (matched by SKU, earlier lines first).',
  }),
  sentAt: t.Nullable(t.String({ format: 'date-time' })),
  voidReasonId: t.Nullable(t.String()),
  voidReasonName: t.Nullable(t.String()),
  voidedAt: t.Nullable(t.String({ format: 'date-time' })),
  voidedByStaffUserId: t.Nullable(t.String()),
  voidedByStaffName: t.Nullable(t.String()),
  createdAt: t.String({ format: 'date-time' }),
  updatedAt: t.String({ format: 'date-time' }),
})

export const LineParams = t.Object({
  id: t.String({ minLength: 1, maxLength: 200 }),
  lineId: t.String({ minLength: 1, maxLength: 200 }),
})

export type AddLineInput = typeof AddLine.static
export type UpdateLineInput = typeof UpdateLine.static
