// The drawer arithmetic, pure: the signed effect of each entry type, the expected balance, and
// the reconciliation of a counted balance against it. Integer cents throughout.
import type { CloseoutMode, EntryType, ReconciliationStatus } from './schema'

/** +1: cash goes into the drawer; -1: cash leaves it; 0: the drawer opens without money moving. */
export const entrySign: Record<EntryType, 1 | -1 | 0> = {
  cash_in: 1,
  cash_collected: 1,
  cash_out: -1,
  payout: -1,
  tip_out: -1,
  cash_drop: -1,
  no_sale: 0,
}

/** The balanceDelta of an entry: its amount signed by its type (0 for `no_sale`). */
export function balanceDelta(entryType: EntryType, amount: number): number {
  const sign = entrySign[entryType]
  return sign === 0 ? 0 : sign * amount
}

/** startingBalance + the sum of the deltas. */
export function expectedBalance(startingBalance: number, deltas: readonly number[]): number {
  let total = startingBalance
  for (const delta of deltas) total += delta
  return total
}

export interface Thresholds {
  closeoutWarningAmount: number | null
  closeoutRequireApprovalAmount: number | null
}

export interface Reconciliation {
  drawerId: string
  closeoutMode: CloseoutMode
  startingBalance: number
  expectedBalance: number
  actualBalance: number | null
  overShortAmount: number | null
  requiresWarningConfirmation: boolean
  requiresManagerApproval: boolean
  status: ReconciliationStatus | null
}

/**
 * Reconciles a counted balance: overShortAmount = actual - expected (positive over, negative
 * short). A threshold is crossed when the absolute difference is strictly above it; a null
 * threshold is never crossed. Without a count (actualBalance null) nothing is required yet.
 */
export function reconcile(
  drawer: { id: string; closeoutMode: CloseoutMode; startingBalance: number } & Thresholds,
  expected: number,
  actual: number | null,
): Reconciliation {
  const overShort = actual === null ? null : actual - expected
  const off = overShort === null ? 0 : Math.abs(overShort)
  const above = (threshold: number | null) => overShort !== null && threshold !== null && off > threshold
  return {
    drawerId: drawer.id,
    closeoutMode: drawer.closeoutMode,
    startingBalance: drawer.startingBalance,
    expectedBalance: expected,
    actualBalance: actual,
    overShortAmount: overShort,
    requiresWarningConfirmation: above(drawer.closeoutWarningAmount),
    requiresManagerApproval: above(drawer.closeoutRequireApprovalAmount),
    status: overShort === null ? null : overShort === 0 ? 'exact' : overShort > 0 ? 'over' : 'short',
  }
}
