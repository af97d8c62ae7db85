import type { TLiteral, TUnion } from '@sinclair/typebox'
import { t } from 'elysia'
import { pagingQuery } from '../../platform/foundation/paging'
import { int, money, signedMoney } from '../../platform/foundation/types'
import { Customer } from '../customers'
import {
  deliveryChannels,
  deliveryStatuses,
  giftCardSources,
  giftCardStatuses,
  giftCardTypes,
  ledgerEntryTypes,
} from './schema'

// Not t.UnionEnum: it gives the schema a default (its first value), which would fill absent fields.
const literals = <const T extends readonly string[]>(values: T, description?: string) =>
  t.Union(
    values.map((v) => t.Literal(v)),
    description ? { description } : {},
  ) as unknown as TUnion<{ -readonly [K in keyof T]: TLiteral<T[K]> }>

const nullableText = t.Nullable(t.String())
const optionalText = (max: number, description?: string) =>
  t.Optional(t.Nullable(t.String({ maxLength: max, description })))
const id = t.String({ minLength: 1, maxLength: 200 })
const date = t.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'YYYY-MM-DD' })
const dateTime = t.String({ format: 'date-time' })

export const giftCardType = literals(giftCardTypes, '`Virtual` (digital) or `Physical`.')
export const deliveryChannel = literals(deliveryChannels)

export const GiftCard = t.Object(
  {
    id: t.String(),
    title: t.String(),
    type: literals(giftCardTypes),
    status: literals(giftCardStatuses),
    giftCardNumber: int({ minimum: 1 }),
    code: t.String(),
    initialAmount: int({ minimum: 0 }),
    currentBalance: int({ minimum: 0 }),
    valueAccountId: t.String(),
    originLocationId: nullableText,
    source: literals(giftCardSources),
    recipientName: nullableText,
    recipientPhone: nullableText,
    recipientEmail: nullableText,
    purchaserEmail: nullableText,
    purchaserPhone: nullableText,
    fromName: nullableText,
    giftMessage: nullableText,
    notes: nullableText,
    deliveryStatus: literals(deliveryStatuses),
    deliveryScheduledAt: nullableText,
    deliveryChannel: t.Nullable(literals(deliveryChannels)),
    deliveryDestination: nullableText,
    deliveryLastAttemptAt: nullableText,
    deliveryFailureReason: nullableText,
    deliveryClaimedAt: nullableText,
    mergedIntoGiftCardId: nullableText,
    expiryDate: nullableText,
    productId: nullableText,
    purchasedOnOrderId: nullableText,
    purchasedOnOrderNumber: nullableText,
    purchasedOnOrderLineId: nullableText,
    notifyPurchaserWhenOpened: t.Boolean(),
    openedAt: nullableText,
    purchaserNotifiedAt: nullableText,
    customerId: nullableText,
    customer: t.Optional(
      t.Nullable(Customer, {
        description: 'With `expand=customer` only: the customer who owns the card (null when it has none).',
      }),
    ),
    createdAt: t.String(),
    updatedAt: t.String(),
  },
  { $id: '#/components/schemas/GiftCard' },
)

export const GiftCardTransaction = t.Object(
  {
    id: t.String(),
    giftCardId: t.String(),
    accountId: t.String(),
    sequence: int({ minimum: 1 }),
    entryType: literals(ledgerEntryTypes),
    amountDelta: int(),
    balanceAfter: int({ minimum: 0 }),
    orderId: nullableText,
    paymentIntentId: t.Nullable(t.String({ description: 'The payment reference of the entry.' })),
    reason: nullableText,
    originLocationId: nullableText,
    transactionLocationId: nullableText,
    voidsTransactionId: nullableText,
    relatedGiftCardId: nullableText,
    staffUserId: nullableText,
    occurredAt: t.String(),
  },
  { $id: '#/components/schemas/GiftCardTransaction' },
)

const recipientFields = {
  recipientName: optionalText(200),
  recipientPhone: optionalText(50),
  recipientEmail: t.Optional(t.Nullable(t.String({ format: 'email', maxLength: 320 }))),
  purchaserEmail: t.Optional(t.Nullable(t.String({ format: 'email', maxLength: 320 }))),
  purchaserPhone: optionalText(50),
  fromName: optionalText(200),
  giftMessage: optionalText(2000),
  notes: optionalText(10_000),
}

const deliveryFields = {
  deliveryChannel: t.Optional(t.Nullable(deliveryChannel)),
  deliveryDestination: optionalText(320, 'Email address or phone number; defaults to the recipient’s.'),
  deliveryScheduledAt: t.Optional(t.Nullable(dateTime)),
  notifyPurchaserWhenOpened: t.Optional(t.Boolean()),
}

const editableFields = {
  ...recipientFields,
  ...deliveryFields,
  expiryDate: t.Optional(t.Nullable(date)),
  productId: optionalText(200),
  customerId: optionalText(
    200,
    'The customer who owns the card: a customer of this tenant (400 otherwise; an id merged away is stored as the customer it was merged into); null clears it.',
  ),
}

export const CreateGiftCard = t.Object(
  {
    title: t.String({ minLength: 1, maxLength: 200 }),
    type: giftCardType,
    code: t.String({
      minLength: 1,
      maxLength: 80,
      description:
        'Unique, case-insensitive; spaces and dashes are ignored when matching. At least 6 letters or digits.',
    }),
    initialAmount: money({ description: 'Cents loaded when the card is activated.' }),
    source: t.Optional(
      literals(['manual', 'import'] as const, '`import` for cards brought over from another system.'),
    ),
    originLocationId: t.Optional(t.Nullable(id)),
    activate: t.Optional(
      t.Boolean({
        description: 'Activate at once with `initialAmount` (default false: the card starts Inactive).',
      }),
    ),
    ...editableFields,
  },
  { additionalProperties: false },
)

export const UpdateGiftCard = t.Object(
  { title: t.Optional(t.String({ minLength: 1, maxLength: 200 })), ...editableFields },
  {
    additionalProperties: false,
    description:
      'Partial update of descriptive and delivery fields; value changes only through the ledger routes.',
  },
)

const expand = t.Optional(
  t.String({ pattern: '^customer$', description: '`customer` embeds the card’s customer as `customer`.' }),
)

export const GiftCardGetQuery = t.Object({ expand })

export const GiftCardListQuery = t.Object({
  q: t.Optional(
    t.String({ maxLength: 200, description: 'Searches title, code, number, recipient and purchaser.' }),
  ),
  expand,
  ...pagingQuery(200),
})

export const GiftCardList = t.Object({ giftCards: t.Array(GiftCard), total: int({ minimum: 0 }) })
export const GiftCardParams = t.Object({ id })
export const TransactionParams = t.Object({ id, transactionId: id })
export const LookupQuery = t.Object({ code: t.String({ minLength: 1, maxLength: 80 }) })

const location = t.Optional(
  t.Nullable(
    t.String({
      minLength: 1,
      maxLength: 200,
      description: 'Where it happens; defaults to the x-location-id of the request.',
    }),
  ),
)
const orderId = optionalText(200)
const paymentReference = t.Optional(t.Nullable(t.String({ minLength: 1, maxLength: 200 })))
const reason = optionalText(500)

export const ActivateBody = t.Object(
  {
    amount: t.Optional(money({ description: 'Defaults to the card’s initialAmount.' })),
    locationId: location,
    orderId,
    paymentReference,
    reason,
  },
  { additionalProperties: false },
)
export const LoadBody = t.Object(
  {
    amount: money({ minimum: 1, description: 'Cents to add.' }),
    locationId: location,
    orderId,
    paymentReference,
    reason,
  },
  { additionalProperties: false },
)
export const RedeemBody = t.Object(
  {
    amount: money({ minimum: 1, description: 'Cents to take; more than the balance is 409.' }),
    tipAmount: t.Optional(
      money({
        description:
          'The part of `amount` that pays a tip (at most `amount`); 409 while the setting `tipsEnabled` is off.',
      }),
    ),
    paymentReference: t.String({
      minLength: 1,
      maxLength: 200,
      description: 'Idempotency: one redemption per reference.',
    }),
    orderId,
    locationId: location,
    channel: t.Optional(literals(['pos', 'online'] as const, 'Default `pos`.')),
  },
  { additionalProperties: false },
)
export const AdjustBody = t.Object(
  {
    amountDelta: signedMoney({ not: t.Literal(0), description: 'Signed cents, not 0.' }),
    reason: t.String({ minLength: 1, maxLength: 500 }),
    locationId: location,
  },
  { additionalProperties: false },
)
export const ReasonBody = t.Object({ reason, locationId: location }, { additionalProperties: false })
export const MergeBody = t.Object(
  { sourceGiftCardId: id, reason, locationId: location },
  { additionalProperties: false, description: 'The source card’s whole balance moves onto this card.' },
)

export const LedgerResult = t.Object({
  giftCard: GiftCard,
  transaction: GiftCardTransaction,
  replayed: t.Boolean({ description: 'True when an earlier identical request is answered again.' }),
})
export const MergeResult = t.Object({
  giftCard: GiftCard,
  source: GiftCard,
  transactions: t.Array(GiftCardTransaction),
})
export const TransactionList = t.Object({ transactions: t.Array(GiftCardTransaction), total: int() })

export const GiftCardSettings = t.Object(
  {
    enabled: t.Boolean(),
    tipsEnabled: t.Boolean(),
    cashOutEnabled: t.Boolean(),
    cashOutThreshold: money({ description: 'A card can be cashed out only when its balance is above this.' }),
    cashOutPermission: t.String({
      minLength: 1,
      maxLength: 50,
      description: 'The least role that may cash out.',
    }),
    allowDiscounts: t.Boolean(),
    allowOnlineRedemption: t.Boolean(),
    sharedAcrossLocations: t.Boolean(),
    minimumPurchaseAmount: money({ description: 'Smallest activation or load; 0: none.' }),
    digitalPurchaseLimit: money({
      description: 'Largest activation or load of a Virtual card; 0: no limit.',
    }),
    physicalPurchaseLimit: money({
      description: 'Largest activation or load of a Physical card; 0: no limit.',
    }),
  },
  { $id: '#/components/schemas/GiftCardSettings' },
)
export const PutGiftCardSettings = t.Object(GiftCardSettings.properties, { additionalProperties: false })

export type CreateGiftCardInput = typeof CreateGiftCard.static
export type UpdateGiftCardInput = typeof UpdateGiftCard.static
export type GiftCardSettingsInput = typeof PutGiftCardSettings.static

/**
 * One gift card of a bulk import (`POST /imports`, kind `gift-cards`): matched by `id`, else by
 * its code. `balance` is what the card holds now: a new card opens its ledger with it (an
 * `activate` entry), a known one whose balance differs gets an `adjust` entry for the difference,
 * so the ledger always sums to the balance.
 */
export const ImportedGiftCard = t.Object(
  {
    id: t.Optional(t.String({ format: 'uuid' })),
    code: t.String({ minLength: 1, maxLength: 80 }),
    balance: money({ description: 'The balance now, in minor units.' }),
    title: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
    type: t.Optional(giftCardType),
    recipientName: t.Optional(t.String({ maxLength: 200 })),
    recipientEmail: t.Optional(t.String({ format: 'email', maxLength: 320 })),
    notes: t.Optional(t.String({ maxLength: 10_000 })),
    expiryDate: t.Optional(date),
    createdAt: t.Optional(t.String({ format: 'date-time', description: 'Kept as given (history).' })),
  },
  { additionalProperties: false },
)

export type ImportedGiftCardInput = typeof ImportedGiftCard.static
