import { sql } from 'drizzle-orm'
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { locations } from '../locations/schema'

export const drawerStates = ['open', 'paused', 'closed'] as const
export type DrawerState = (typeof drawerStates)[number]

export const closeoutModes = ['standard'] as const
export type CloseoutMode = (typeof closeoutModes)[number]

export const reconciliationStatuses = ['exact', 'over', 'short'] as const
export type ReconciliationStatus = (typeof reconciliationStatuses)[number]

export const entryTypes = [
  'cash_in',
  'cash_collected',
  'cash_out',
  'payout',
  'tip_out',
  'cash_drop',
  'no_sale',
] as const
export type EntryType = (typeof entryTypes)[number]

/** The closeout summary of a closed drawer, frozen when it closed (see closeout.ts). */
export type CloseoutSnapshot = Record<string, unknown>

export const cashDrawers = sqliteTable(
  'cash_drawers',
  {
    id: text('id').primaryKey(),
    locationId: text('location_id')
      .notNull()
      .references(() => locations.id),
    /** What the drawer is called: the base label, with ` #n` from the second drawer of that label on. */
    label: text('label').notNull(),
    baseLabel: text('base_label').notNull(),
    /** 1, 2, 3... per base label (case-insensitive) per location. */
    sequenceNumber: integer('sequence_number').notNull(),
    state: text('state', { enum: drawerStates }).notNull(),
    assignedStaffUserId: text('assigned_staff_user_id'),
    lockedToStaffUserId: text('locked_to_staff_user_id'),
    openingStaffUserId: text('opening_staff_user_id'),
    // Balances: integer cents. expectedBalance = startingBalance + the sum of the entries' deltas,
    // rewritten from that sum in the same transaction as every entry.
    startingBalance: integer('starting_balance').notNull(),
    expectedBalance: integer('expected_balance').notNull(),
    actualBalance: integer('actual_balance'),
    overShortAmount: integer('over_short_amount'),
    reconciliationStatus: text('reconciliation_status', { enum: reconciliationStatuses }),
    closeoutMode: text('closeout_mode', { enum: closeoutModes }).notNull(),
    /** null: no approval threshold. */
    closeoutRequireApprovalAmount: integer('closeout_require_approval_amount'),
    /** null: no warning threshold. */
    closeoutWarningAmount: integer('closeout_warning_amount'),
    stateComment: text('state_comment'),
    closedByStaffUserId: text('closed_by_staff_user_id'),
    approvedByStaffUserId: text('approved_by_staff_user_id'),
    closeoutSummary: text('closeout_summary', { mode: 'json' }).$type<CloseoutSnapshot | null>(),
    parentDrawerId: text('parent_drawer_id'),
    replacementDrawerId: text('replacement_drawer_id'),
    payload: text('payload', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    openedAt: text('opened_at').notNull(),
    pausedAt: text('paused_at'),
    closedAt: text('closed_at'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (table) => [
    uniqueIndex('cash_drawers_label_sequence').on(
      table.locationId,
      sql`lower(${table.baseLabel})`,
      table.sequenceNumber,
    ),
    index('cash_drawers_location_state').on(table.locationId, table.state),
    index('cash_drawers_assigned').on(table.assignedStaffUserId),
  ],
)

export type DrawerRow = typeof cashDrawers.$inferSelect

export const drawerEntries = sqliteTable(
  'cash_drawer_entries',
  {
    id: text('id').primaryKey(),
    drawerId: text('drawer_id')
      .notNull()
      .references(() => cashDrawers.id),
    locationId: text('location_id').notNull(),
    entryType: text('entry_type', { enum: entryTypes }).notNull(),
    /** Non-negative cents; 0 for `no_sale`. */
    amount: integer('amount').notNull(),
    /** The signed effect on the expected balance. */
    balanceDelta: integer('balance_delta').notNull(),
    comment: text('comment'),
    reason: text('reason'),
    createdByStaffUserId: text('created_by_staff_user_id'),
    relatedStaffUserId: text('related_staff_user_id'),
    /** Set on entries written by payments (cash collected, cash refunded). */
    paymentIntentId: text('payment_intent_id'),
    orderId: text('order_id'),
    payload: text('payload', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (table) => [
    index('cash_drawer_entries_drawer').on(table.drawerId, table.createdAt),
    index('cash_drawer_entries_payment').on(table.paymentIntentId),
  ],
)

export type DrawerEntryRow = typeof drawerEntries.$inferSelect
