// Gift cards, their append-only value ledger, settings and delivery attempts.
// `gift_cards.current_balance` is a cache of the ledger: the database refuses any change to it
// that is not the `balance_after` of the card's newest ledger entry (see the
// gift_cards_ledger_guards migration), and ledger.ts is the only code that appends entries.
import { sql } from 'drizzle-orm'
import { check, index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'

export const giftCardTypes = ['Virtual', 'Physical'] as const
export const giftCardStatuses = ['Inactive', 'Active', 'Disabled', 'Merged', 'Expired'] as const
export const giftCardSources = ['manual', 'sale', 'import'] as const
export const deliveryChannels = ['email', 'sms'] as const
export const deliveryStatuses = ['not_applicable', 'scheduled', 'sent', 'failed'] as const
export const ledgerEntryTypes = [
  'activate',
  'load',
  'void_load',
  'redeem',
  'void_redeem',
  'adjust',
  'cash_out',
  'expire',
  'merge',
] as const

export type GiftCardType = (typeof giftCardTypes)[number]
export type GiftCardStatus = (typeof giftCardStatuses)[number]
export type LedgerEntryType = (typeof ledgerEntryTypes)[number]
export type DeliveryChannel = (typeof deliveryChannels)[number]

export const giftCards = sqliteTable(
  'gift_cards',
  {
    id: text('id').primaryKey(),
    giftCardNumber: integer('gift_card_number').notNull(),
    title: text('title').notNull(),
    type: text('type', { enum: giftCardTypes }).notNull(),
    status: text('status', { enum: giftCardStatuses }).notNull(),
    /** The code as issued (shown to staff); lookups go through `codeHash`. */
    code: text('code').notNull(),
    /** SHA-256 of the normalized code (upper case, no spaces or dashes): unique, and what lookups match. */
    codeHash: text('code_hash').notNull(),
    initialAmount: integer('initial_amount').notNull(),
    currentBalance: integer('current_balance').notNull().default(0),
    valueAccountId: text('value_account_id').notNull(),
    originLocationId: text('origin_location_id'),
    source: text('source', { enum: giftCardSources }).notNull(),
    recipientName: text('recipient_name'),
    recipientPhone: text('recipient_phone'),
    recipientEmail: text('recipient_email'),
    purchaserEmail: text('purchaser_email'),
    purchaserPhone: text('purchaser_phone'),
    fromName: text('from_name'),
    giftMessage: text('gift_message'),
    notes: text('notes'),
    deliveryStatus: text('delivery_status', { enum: deliveryStatuses }).notNull(),
    deliveryScheduledAt: text('delivery_scheduled_at'),
    deliveryChannel: text('delivery_channel', { enum: deliveryChannels }),
    deliveryDestination: text('delivery_destination'),
    deliveryLastAttemptAt: text('delivery_last_attempt_at'),
    deliveryFailureReason: text('delivery_failure_reason'),
    deliveryClaimedAt: text('delivery_claimed_at'),
    mergedIntoGiftCardId: text('merged_into_gift_card_id'),
    expiryDate: text('expiry_date'),
    productId: text('product_id'),
    purchasedOnOrderId: text('purchased_on_order_id'),
    purchasedOnOrderNumber: text('purchased_on_order_number'),
    purchasedOnOrderLineId: text('purchased_on_order_line_id'),
    notifyPurchaserWhenOpened: integer('notify_purchaser_when_opened', { mode: 'boolean' })
      .notNull()
      .default(false),
    openedAt: text('opened_at'),
    purchaserNotifiedAt: text('purchaser_notified_at'),
    customerId: text('customer_id'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (table) => [
    uniqueIndex('gift_cards_number_unique').on(table.giftCardNumber),
    uniqueIndex('gift_cards_code_hash_unique').on(table.codeHash),
    uniqueIndex('gift_cards_order_line_unique')
      .on(table.purchasedOnOrderId, table.purchasedOnOrderLineId)
      .where(sql`${table.purchasedOnOrderLineId} IS NOT NULL`),
    index('gift_cards_delivery_due').on(table.deliveryStatus, table.deliveryScheduledAt),
    index('gift_cards_customer').on(table.customerId),
    check('gift_cards_balance_non_negative', sql`${table.currentBalance} >= 0`),
    check('gift_cards_initial_amount_non_negative', sql`${table.initialAmount} >= 0`),
  ],
)

export const giftCardTransactions = sqliteTable(
  'gift_card_transactions',
  {
    id: text('id').primaryKey(),
    giftCardId: text('gift_card_id')
      .notNull()
      .references(() => giftCards.id),
    /** 1, 2, 3... per card; the database checks each entry continues the previous one. */
    sequence: integer('sequence').notNull(),
    accountId: text('account_id').notNull(),
    entryType: text('entry_type', { enum: ledgerEntryTypes }).notNull(),
    amountDelta: integer('amount_delta').notNull(),
    balanceAfter: integer('balance_after').notNull(),
    orderId: text('order_id'),
    /** The payment (intent) this entry belongs to; redemptions are idempotent by it. */
    paymentReference: text('payment_reference'),
    reason: text('reason'),
    originLocationId: text('origin_location_id'),
    transactionLocationId: text('transaction_location_id'),
    /** For void_redeem and void_load: the entry this one reverses. */
    voidsTransactionId: text('voids_transaction_id'),
    /** For merge entries: the other card of the merge. */
    relatedGiftCardId: text('related_gift_card_id'),
    staffUserId: text('staff_user_id'),
    occurredAt: text('occurred_at').notNull(),
  },
  (table) => [
    uniqueIndex('gift_card_transactions_card_sequence').on(table.giftCardId, table.sequence),
    uniqueIndex('gift_card_transactions_redeem_payment')
      .on(table.paymentReference)
      .where(sql`${table.entryType} = 'redeem' AND ${table.paymentReference} IS NOT NULL`),
    uniqueIndex('gift_card_transactions_voids_unique')
      .on(table.voidsTransactionId)
      .where(sql`${table.voidsTransactionId} IS NOT NULL`),
    index('gift_card_transactions_occurred').on(table.occurredAt),
    check('gift_card_transactions_balance_non_negative', sql`${table.balanceAfter} >= 0`),
  ],
)

export const giftCardSettings = sqliteTable(
  'gift_card_settings',
  {
    /** Always 1: one row per tenant. */
    id: integer('id').primaryKey(),
    enabled: integer('enabled', { mode: 'boolean' }).notNull(),
    tipsEnabled: integer('tips_enabled', { mode: 'boolean' }).notNull(),
    cashOutEnabled: integer('cash_out_enabled', { mode: 'boolean' }).notNull(),
    cashOutThreshold: integer('cash_out_threshold').notNull(),
    cashOutPermission: text('cash_out_permission').notNull(),
    allowDiscounts: integer('allow_discounts', { mode: 'boolean' }).notNull(),
    allowOnlineRedemption: integer('allow_online_redemption', { mode: 'boolean' }).notNull(),
    sharedAcrossLocations: integer('shared_across_locations', { mode: 'boolean' }).notNull(),
    minimumPurchaseAmount: integer('minimum_purchase_amount').notNull(),
    digitalPurchaseLimit: integer('digital_purchase_limit').notNull(),
    physicalPurchaseLimit: integer('physical_purchase_limit').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (table) => [check('gift_card_settings_single_row', sql`${table.id} = 1`)],
)

/** Every attempt to send a card (or a purchaser's "opened" notice), successful or not. */
export const giftCardDeliveries = sqliteTable(
  'gift_card_deliveries',
  {
    id: text('id').primaryKey(),
    giftCardId: text('gift_card_id')
      .notNull()
      .references(() => giftCards.id),
    /** `recipient`: the card itself; `purchaser_opened`: telling the purchaser it was opened. */
    kind: text('kind', { enum: ['recipient', 'purchaser_opened'] }).notNull(),
    channel: text('channel', { enum: deliveryChannels }).notNull(),
    destination: text('destination').notNull(),
    provider: text('provider').notNull(),
    status: text('status', { enum: ['sent', 'failed'] }).notNull(),
    failureReason: text('failure_reason'),
    providerMessageId: text('provider_message_id'),
    scheduledAt: text('scheduled_at'),
    attemptedAt: text('attempted_at').notNull(),
  },
  (table) => [
    index('gift_card_deliveries_card').on(table.giftCardId),
    index('gift_card_deliveries_status_attempted').on(table.status, table.attemptedAt),
  ],
)

export type GiftCardRow = typeof giftCards.$inferSelect
export type GiftCardTransactionRow = typeof giftCardTransactions.$inferSelect
export type GiftCardSettingsRow = typeof giftCardSettings.$inferSelect
export type GiftCardDeliveryRow = typeof giftCardDeliveries.$inferSelect
