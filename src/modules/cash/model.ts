import { t } from 'elysia'
import { pageInfoSchema, pagingQuery } from '../../platform/foundation/paging'
import { bool, freeForm, money, oneOf } from '../../platform/foundation/types'
import { closeoutModes, drawerStates, entryTypes, reconciliationStatuses } from './schema'

const optionalText = (max: number, description?: string) =>
  t.Optional(t.Nullable(t.String({ maxLength: max, description })))
const payloadSchema = freeForm()

export const DEFAULT_WARNING_AMOUNT = 500
export const DEFAULT_APPROVAL_AMOUNT = 2000

export const CashDrawer = t.Object(
  {
    id: t.String({ format: 'uuid' }),
    locationId: t.String(),
    label: t.String({ description: 'The base label, with ` #n` from the second drawer of that label on.' }),
    baseLabel: t.String(),
    sequenceNumber: t.Integer({ minimum: 1, description: '1, 2, ... per base label per location.' }),
    state: oneOf(drawerStates),
    assignedStaffUserId: t.Nullable(t.String()),
    lockedToStaffUserId: t.Nullable(t.String()),
    openingStaffUserId: t.Nullable(t.String()),
    startingBalance: t.Integer({ description: 'Cents in the drawer when it opened.' }),
    expectedBalance: t.Integer({ description: 'startingBalance + the sum of every entry’s balanceDelta.' }),
    actualBalance: t.Nullable(t.Integer({ description: 'The counted cents, once closed.' })),
    overShortAmount: t.Nullable(t.Integer({ description: 'actualBalance − expectedBalance, once closed.' })),
    reconciliationStatus: t.Nullable(oneOf(reconciliationStatuses)),
    closeoutMode: oneOf(closeoutModes),
    closeoutRequireApprovalAmount: t.Nullable(t.Integer()),
    closeoutWarningAmount: t.Nullable(t.Integer()),
    stateComment: t.Nullable(t.String()),
    closedByStaffUserId: t.Nullable(t.String()),
    approvedByStaffUserId: t.Nullable(t.String()),
    parentDrawerId: t.Nullable(t.String()),
    replacementDrawerId: t.Nullable(t.String()),
    payload: payloadSchema,
    openedAt: t.String({ format: 'date-time' }),
    pausedAt: t.Nullable(t.String({ format: 'date-time' })),
    closedAt: t.Nullable(t.String({ format: 'date-time' })),
    createdAt: t.String({ format: 'date-time' }),
    updatedAt: t.String({ format: 'date-time' }),
  },
  {
    description:
      'A cash drawer for one shift at a location: `open` → `paused` (replaced by a new open drawer) → `closed`, or `open` → `closed`. Money is integer cents.',
  },
)

export const DrawerEntry = t.Object({
  id: t.String({ format: 'uuid' }),
  drawerId: t.String(),
  locationId: t.String(),
  entryType: oneOf(entryTypes),
  amount: t.Integer({ minimum: 0 }),
  balanceDelta: t.Integer({
    description:
      '+amount for cash_in and cash_collected; −amount for cash_out, payout, tip_out and cash_drop; 0 for no_sale.',
  }),
  comment: t.Nullable(t.String()),
  reason: t.Nullable(t.String()),
  createdByStaffUserId: t.Nullable(t.String()),
  relatedStaffUserId: t.Nullable(t.String()),
  paymentIntentId: t.Nullable(t.String()),
  orderId: t.Nullable(t.String()),
  payload: payloadSchema,
  createdAt: t.String({ format: 'date-time' }),
  updatedAt: t.String({ format: 'date-time' }),
})

export const DrawerReconciliation = t.Object({
  drawerId: t.String(),
  closeoutMode: oneOf(closeoutModes),
  startingBalance: t.Integer(),
  expectedBalance: t.Integer(),
  actualBalance: t.Nullable(t.Integer()),
  overShortAmount: t.Nullable(t.Integer()),
  requiresWarningConfirmation: t.Boolean(),
  requiresManagerApproval: t.Boolean(),
  status: t.Nullable(oneOf(reconciliationStatuses, { description: 'null until counted.' })),
})

export const CloseoutSummary = t.Object(
  {
    shiftId: t.String({ description: 'The drawer id: a drawer is one shift.' }),
    locationId: t.String(),
    staffUserId: t.Nullable(t.String()),
    from: t.String({ format: 'date-time' }),
    to: t.String({ format: 'date-time' }),
    orderIds: t.Array(t.String()),
    paymentIntentIds: t.Array(t.String()),
    openOrderIds: t.Array(t.String()),
    unresolvedPaymentIntentIds: t.Array(t.String()),
    orderCount: t.Integer(),
    openOrderCount: t.Integer(),
    paidOpenCheckCount: t.Integer(),
    authorizedPaymentCount: t.Integer(),
    openTabCount: t.Integer(),
    unresolvedPaymentCount: t.Integer(),
    capturedPaymentCount: t.Integer(),
    refundedPaymentCount: t.Integer(),
    grossCapturedAmount: t.Integer(),
    grossRefundedAmount: t.Integer(),
    netCapturedAmount: t.Integer(),
    tipAmount: t.Integer(),
    refundedTipAmount: t.Integer(),
    blockingReasons: t.Array(t.String()),
    status: oneOf(['ready', 'blocked']),
  },
  {
    description:
      'The shift behind a drawer: orders at its location live between the drawer opening and closing (or now), those of its assigned staff user when it has one, and their payments. Frozen when the drawer closes.',
  },
)

export const DrawerDetail = t.Object({
  drawer: CashDrawer,
  entries: t.Array(DrawerEntry),
  reconciliation: DrawerReconciliation,
  closeoutSummary: CloseoutSummary,
})

export const EntryResult = t.Object({
  drawer: CashDrawer,
  entry: DrawerEntry,
  reconciliation: DrawerReconciliation,
  closeoutSummary: CloseoutSummary,
})

export const PauseResult = t.Object({
  pausedDrawer: CashDrawer,
  replacementDrawer: CashDrawer,
  reconciliation: DrawerReconciliation,
})

export const CloseResult = t.Object({
  drawer: CashDrawer,
  reconciliation: DrawerReconciliation,
  closeoutSummary: CloseoutSummary,
})

export const CreateDrawer = t.Object(
  {
    locationId: t.String({ minLength: 1, maxLength: 200 }),
    label: t.String({ minLength: 1, maxLength: 100, description: 'e.g. `Bar`; becomes the baseLabel.' }),
    startingBalance: money({ description: 'Cents counted into the drawer as it opens.' }),
    assignedStaffUserId: optionalText(200, 'An active staff user; default: none.'),
    closeoutMode: t.Optional(oneOf(closeoutModes, { description: 'Default `standard`.' })),
    closeoutWarningAmount: t.Optional(
      t.Nullable(
        money({
          description: `Over/short beyond this many cents needs a confirmation. Default ${DEFAULT_WARNING_AMOUNT}; null: never.`,
        }),
      ),
    ),
    closeoutRequireApprovalAmount: t.Optional(
      t.Nullable(
        money({
          description: `Over/short beyond this many cents needs a manager’s approval. Default ${DEFAULT_APPROVAL_AMOUNT}; null: never.`,
        }),
      ),
    ),
    stateComment: optionalText(1000),
    payload: t.Optional(payloadSchema),
  },
  { additionalProperties: false },
)

export const AssignDrawer = t.Object(
  {
    staffUserId: optionalText(
      200,
      'The staff user to assign; null unassigns (and unlocks). Omitted: the acting staff user.',
    ),
    lock: t.Optional(
      bool({
        description:
          'true: only the assigned staff user (or someone holding cash:approve) may record entries. false: unlock. Omitted: a lock follows the drawer only when the assignee does not change.',
      }),
    ),
  },
  { additionalProperties: false },
)

export const AddEntry = t.Object(
  {
    entryType: oneOf(entryTypes),
    amount: t.Optional(
      money({ description: 'Positive cents; the type gives the sign. `no_sale`: 0 or omitted.' }),
    ),
    comment: optionalText(1000),
    reason: optionalText(200),
    relatedStaffUserId: optionalText(200, 'e.g. who a tip_out paid; an existing staff user.'),
    payload: t.Optional(payloadSchema),
  },
  { additionalProperties: false },
)

export const PauseDrawer = t.Object(
  {
    inheritStartingBalance: t.Optional(
      bool({ description: 'true: the replacement starts with the paused drawer’s startingBalance.' }),
    ),
    startingBalance: t.Optional(
      money({ description: 'The replacement’s starting balance (instead of inheriting). Default 0.' }),
    ),
    stateComment: optionalText(1000),
  },
  { additionalProperties: false },
)

export const CloseDrawer = t.Object(
  {
    actualBalance: money({ description: 'The counted cents.' }),
    closeoutMode: t.Optional(oneOf(closeoutModes)),
    stateComment: optionalText(1000),
    confirmWarning: t.Optional(
      bool({ description: 'Required (true) when the over/short is above closeoutWarningAmount.' }),
    ),
    managerApprovedByStaffUserId: optionalText(
      200,
      'An active staff user holding cash:approve at the drawer’s location. Required when the over/short is above closeoutRequireApprovalAmount or the closeout summary is blocked, unless the caller holds cash:approve.',
    ),
  },
  { additionalProperties: false },
)

export const DrawerListQuery = t.Object({
  locationId: t.Optional(t.String({ maxLength: 200 })),
  state: t.Optional(t.Union(drawerStates.map((s) => t.Literal(s)))),
  assignedStaffUserId: t.Optional(t.String({ maxLength: 200 })),
  ...pagingQuery(100),
})

export const DrawerList = t.Object({
  drawers: t.Array(CashDrawer),
  page: pageInfoSchema,
})

export const DrawerParams = t.Object({ id: t.String({ minLength: 1, maxLength: 200 }) })

export type CreateDrawerInput = typeof CreateDrawer.static
export type AssignDrawerInput = typeof AssignDrawer.static
export type AddEntryInput = typeof AddEntry.static
export type PauseDrawerInput = typeof PauseDrawer.static
export type CloseDrawerInput = typeof CloseDrawer.static
export type CloseoutSummaryView = typeof CloseoutSummary.static
