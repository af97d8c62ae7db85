// Drawer entries: each one row with its signed balanceDelta, and the drawer's expectedBalance
// rewritten from startingBalance + SUM(balanceDelta) in the same BEGIN IMMEDIATE transaction,
// so concurrent entries on one drawer serialize and none is lost.
import { and, eq, sql, sum } from 'drizzle-orm'
import { recordWrite } from '../../platform/audit/record-write'
import type { Actor } from '../../platform/foundation/actor'
import { newId, nowIso } from '../../platform/foundation/ids'
import { conflict, forbidden, invalid } from '../../platform/foundation/problem'
import type { Db } from '../../platform/tenancy/databases'
import { rowById } from '../../platform/tenancy/row-by-id'
import { inWriteTransaction, type Queryable } from '../../platform/tenancy/transaction'
import { balanceDelta } from './balance'
import { closeoutSummary } from './closeout'
import {
  assertStaffAt,
  assertState,
  drawerWrite,
  getDrawerRow,
  presentDrawer,
  reconciliationOf,
} from './drawers'
import type { AddEntryInput } from './model'
import { cashDrawers, type DrawerEntryRow, type DrawerRow, drawerEntries, type EntryType } from './schema'

export interface NewEntry {
  entryType: EntryType
  amount: number
  comment?: string | null
  reason?: string | null
  relatedStaffUserId?: string | null
  paymentIntentId?: string | null
  orderId?: string | null
  payload?: Record<string, unknown>
}

/** Checks an entry's amount against its type: a positive amount, or 0 for `no_sale`. */
export function assertEntryAmount(
  entryType: EntryType,
  amount: number | undefined,
  path = 'body/amount',
): number {
  if (entryType === 'no_sale') {
    if (amount !== undefined && amount !== 0) throw invalid(path, 'a no_sale entry moves no money: amount 0')
    return 0
  }
  if (amount === undefined) throw invalid(path, `a ${entryType} entry needs an amount`)
  if (!Number.isSafeInteger(amount) || amount <= 0) throw invalid(path, 'a positive integer of cents')
  return amount
}

/**
 * Appends an entry to an open drawer inside the caller's transaction and rewrites the drawer's
 * expectedBalance from its entries. Callers check who may write; this checks the state.
 */
export function appendDrawerEntry(
  tx: Queryable,
  actor: Actor,
  drawerId: string,
  entry: NewEntry,
): { drawer: DrawerRow; entry: DrawerEntryRow } {
  const drawer = getDrawerRow(tx, drawerId)
  assertState(drawer, ['open'], 'record entries on')
  const amount = assertEntryAmount(entry.entryType, entry.amount)
  const now = nowIso()
  const row = tx
    .insert(drawerEntries)
    .values({
      id: newId(),
      drawerId,
      locationId: drawer.locationId,
      entryType: entry.entryType,
      amount,
      balanceDelta: balanceDelta(entry.entryType, amount),
      comment: entry.comment ?? null,
      reason: entry.reason ?? null,
      createdByStaffUserId: actor.staffUserId,
      relatedStaffUserId: entry.relatedStaffUserId ?? null,
      paymentIntentId: entry.paymentIntentId ?? null,
      orderId: entry.orderId ?? null,
      payload: entry.payload ?? {},
      createdAt: now,
      updatedAt: now,
    })
    .returning()
    .get()
  const deltas = tx
    .select({ total: sum(drawerEntries.balanceDelta).mapWith(Number) })
    .from(drawerEntries)
    .where(eq(drawerEntries.drawerId, drawerId))
    .get()
  const updated = tx
    .update(cashDrawers)
    .set({ expectedBalance: sql`${cashDrawers.startingBalance} + ${deltas?.total ?? 0}`, updatedAt: now })
    .where(eq(cashDrawers.id, drawerId))
    .returning()
    .get()
  recordWrite(
    tx,
    actor,
    drawerWrite(
      updated,
      `entry.${entry.entryType}`,
      {
        entryId: row.id,
        entryType: row.entryType,
        amount: row.amount,
        balanceDelta: row.balanceDelta,
        expectedBalance: { before: drawer.expectedBalance, after: updated.expectedBalance },
        ...(row.paymentIntentId ? { paymentIntentId: row.paymentIntentId, orderId: row.orderId } : {}),
      },
      { action: 'entry', payload: { ...presentDrawer(updated), entry: row } },
    ),
  )
  return { drawer: updated, entry: row }
}

/** Refuses an entry by someone other than the staff user the drawer is locked to. */
export function assertMayUse(drawer: DrawerRow, actor: Actor, canOverrideLock: boolean) {
  if (drawer.lockedToStaffUserId && drawer.lockedToStaffUserId !== actor.staffUserId && !canOverrideLock)
    throw forbidden(
      `drawer ${drawer.label} is locked to staff user ${drawer.lockedToStaffUserId}; only they (or someone holding cash:approve) may use it`,
    )
}

export function addEntry(
  db: Db,
  actor: Actor,
  drawerId: string,
  input: AddEntryInput,
  options: { canOverrideLock: boolean },
) {
  const amount = assertEntryAmount(input.entryType, input.amount)
  return inWriteTransaction(db, (tx) => {
    const drawer = getDrawerRow(tx, drawerId)
    assertState(drawer, ['open'], 'record entries on')
    assertMayUse(drawer, actor, options.canOverrideLock)
    if (input.relatedStaffUserId)
      assertStaffAt(tx, input.relatedStaffUserId, drawer.locationId, 'body/relatedStaffUserId')
    const result = appendDrawerEntry(tx, actor, drawerId, { ...input, amount })
    return {
      drawer: presentDrawer(result.drawer),
      entry: result.entry,
      reconciliation: reconciliationOf(result.drawer),
      closeoutSummary: closeoutSummary(tx, result.drawer),
    }
  })
}

/**
 * The drawer a cash payment or cash refund at a location goes through: the named drawer (open,
 * at that location), else the open drawer there assigned to the acting staff user, else the only
 * open drawer there. None, or several with none assigned to the actor, is 409.
 */
export function cashDrawerFor(
  tx: Queryable,
  actor: Actor,
  locationId: string,
  drawerId?: string | null,
): DrawerRow {
  if (drawerId) {
    const drawer = rowById(tx, cashDrawers, drawerId)
    if (!drawer || drawer.locationId !== locationId)
      throw invalid('body/drawerId', `no cash drawer ${drawerId} at the order's location`)
    assertState(drawer, ['open'], 'take cash into')
    return drawer
  }
  const open = tx
    .select()
    .from(cashDrawers)
    .where(and(eq(cashDrawers.locationId, locationId), eq(cashDrawers.state, 'open')))
    .all()
  const mine = actor.staffUserId ? open.filter((d) => d.assignedStaffUserId === actor.staffUserId) : []
  if (mine.length === 1) return mine[0]!
  if (open.length === 1) return open[0]!
  throw conflict(
    open.length === 0
      ? 'no open cash drawer at this location: open one (POST /cash-management/drawers) before taking cash'
      : 'several open cash drawers at this location and none assigned to you: name one in drawerId',
    {
      reason: open.length === 0 ? 'no_open_drawer' : 'ambiguous_drawer',
      openDrawerIds: open.map((d) => d.id),
    },
  )
}
