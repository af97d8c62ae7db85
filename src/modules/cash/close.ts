// Closing a drawer: the counted balance against the expected one, the two thresholds, and the
// manager approval that the larger differences (and a blocked shift summary) need.
import { eq } from 'drizzle-orm'
import { recordWrite } from '../../platform/audit/record-write'
import type { Actor } from '../../platform/foundation/actor'
import { nowIso } from '../../platform/foundation/ids'
import { ApiError, conflict, invalid } from '../../platform/foundation/problem'
import type { Db } from '../../platform/tenancy/databases'
import { inWriteTransaction, type Queryable } from '../../platform/tenancy/transaction'
import { staffPermissionsAt } from '../labor'
import { findStaffUser } from '../staff'
import { reconcile } from './balance'
import { closeoutSummary } from './closeout'
import { assertState, drawerWrite, getDrawerRow, presentDrawer } from './drawers'
import type { CloseDrawerInput } from './model'
import { cashDrawers, type DrawerRow } from './schema'

function canApprove(tx: Queryable, staffUserId: string, locationId: string): boolean {
  if (findStaffUser(tx, staffUserId)?.status !== 'active') return false
  return staffPermissionsAt(tx, staffUserId, locationId).has('cash:approve')
}

/** The approving staff user, when one is needed: the one named, else the caller if they may approve. */
function approver(
  tx: Queryable,
  actor: Actor,
  drawer: DrawerRow,
  named: string | null | undefined,
): string | null {
  if (named) {
    if (findStaffUser(tx, named)?.status !== 'active')
      throw invalid('body/managerApprovedByStaffUserId', `no active staff user ${named}`)
    if (!canApprove(tx, named, drawer.locationId))
      throw new ApiError(
        'forbidden',
        `staff user ${named} may not approve drawer closeouts at this location (cash:approve)`,
      )
    return named
  }
  return actor.staffUserId && canApprove(tx, actor.staffUserId, drawer.locationId) ? actor.staffUserId : null
}

/**
 * open or paused → closed. overShortAmount = actualBalance − expectedBalance; status `exact`,
 * `over` or `short`. Above closeoutWarningAmount the close needs `confirmWarning: true` (409
 * otherwise); above closeoutRequireApprovalAmount, or while the shift summary is blocked, it
 * needs a manager: `managerApprovedByStaffUserId` naming an active staff user holding
 * cash:approve at the location, or a caller holding it (403 otherwise). A refusal writes nothing
 * and carries the reconciliation. The closeout summary is frozen with the drawer.
 */
export function closeDrawer(db: Db, actor: Actor, id: string, input: CloseDrawerInput) {
  return inWriteTransaction(db, (tx) => {
    const drawer = getDrawerRow(tx, id)
    assertState(drawer, ['open', 'paused'], 'close')
    const mode = input.closeoutMode ?? drawer.closeoutMode
    const reconciliation = reconcile(
      { ...drawer, closeoutMode: mode },
      drawer.expectedBalance,
      input.actualBalance,
    )
    const now = nowIso()
    const summary = closeoutSummary(tx, { ...drawer, state: 'open', closedAt: now })
    if (reconciliation.requiresWarningConfirmation && input.confirmWarning !== true)
      throw conflict(
        `the drawer is ${reconciliation.status} by ${Math.abs(reconciliation.overShortAmount!)} cents, above the warning amount of ${drawer.closeoutWarningAmount}: confirm with confirmWarning: true`,
        { reason: 'warning_confirmation_required', currentState: drawer.state, reconciliation },
      )
    const needsApproval = reconciliation.requiresManagerApproval || summary.status !== 'ready'
    const approvedBy = needsApproval ? approver(tx, actor, drawer, input.managerApprovedByStaffUserId) : null
    if (needsApproval && !approvedBy)
      throw new ApiError(
        'forbidden',
        reconciliation.requiresManagerApproval
          ? `the drawer is ${reconciliation.status} by ${Math.abs(reconciliation.overShortAmount!)} cents, above the approval amount of ${drawer.closeoutRequireApprovalAmount}: a manager (cash:approve) must approve the closeout (managerApprovedByStaffUserId)`
          : `the shift is not ready to close out (${summary.blockingReasons.join(', ')}): resolve it, or have a manager (cash:approve) approve the closeout`,
        {
          extensions: {
            reason: 'manager_approval_required',
            reconciliation,
            blockingReasons: summary.blockingReasons,
          },
        },
      )
    const closed = tx
      .update(cashDrawers)
      .set({
        state: 'closed',
        closeoutMode: mode,
        actualBalance: input.actualBalance,
        overShortAmount: reconciliation.overShortAmount,
        reconciliationStatus: reconciliation.status,
        stateComment: input.stateComment === undefined ? drawer.stateComment : input.stateComment,
        closedByStaffUserId: actor.staffUserId,
        approvedByStaffUserId: approvedBy,
        closeoutSummary: summary as unknown as Record<string, unknown>,
        closedAt: now,
        updatedAt: now,
      })
      .where(eq(cashDrawers.id, id))
      .returning()
      .get()
    recordWrite(
      tx,
      actor,
      drawerWrite(
        closed,
        'close',
        {
          label: closed.label,
          from: drawer.state,
          reconciliation,
          warningConfirmed: reconciliation.requiresWarningConfirmation,
          approvedByStaffUserId: approvedBy,
          blockingReasons: summary.blockingReasons,
        },
        { action: 'close', payload: { ...presentDrawer(closed), closeoutSummary: summary } },
      ),
    )
    return { drawer: presentDrawer(closed), reconciliation, closeoutSummary: summary }
  })
}
