// Drawers: open (create), list, read, assign and lock, pause with a replacement.
// Entries are in entries.ts, closing in close.ts, the shift summary in closeout.ts.
import { and, asc, count, desc, eq, max, type SQL, sql } from 'drizzle-orm'
import { recordWrite, type WriteRecord } from '../../platform/audit/record-write'
import { type LocationScope, locatedRow, scopeCondition } from '../../platform/auth/location-scope'
import type { Actor } from '../../platform/foundation/actor'
import { newId, nowIso } from '../../platform/foundation/ids'
import { offsetOf, type PageRequest } from '../../platform/foundation/paging'
import { conflict, invalid, notFound } from '../../platform/foundation/problem'
import type { Db } from '../../platform/tenancy/databases'
import { rowById } from '../../platform/tenancy/row-by-id'
import { inWriteTransaction, type Queryable } from '../../platform/tenancy/transaction'
import { staffPermissionsAt } from '../labor'
import { findLocation } from '../locations'
import { findStaffUser } from '../staff'
import { reconcile } from './balance'
import { closeoutSummary } from './closeout'
import {
  type AssignDrawerInput,
  type CreateDrawerInput,
  DEFAULT_APPROVAL_AMOUNT,
  DEFAULT_WARNING_AMOUNT,
  type PauseDrawerInput,
} from './model'
import { cashDrawers, type DrawerRow, type DrawerState, drawerEntries } from './schema'

/** Where a drawer is (routes under /drawers/:id declare it with `locatedBy`; its entries follow it). */
export const drawerLocated = locatedRow('cash drawer', cashDrawers, cashDrawers.id, cashDrawers.locationId)

export const findDrawerRow = (db: Queryable, id: string): DrawerRow | undefined =>
  rowById(db, cashDrawers, id)

export function getDrawerRow(db: Queryable, id: string): DrawerRow {
  const row = findDrawerRow(db, id)
  if (!row) throw notFound('cash drawer', id)
  return row
}

/** 409 unless the drawer is in one of the allowed states, with the current state. */
export function assertState(drawer: DrawerRow, allowed: readonly DrawerState[], doing: string) {
  if (!allowed.includes(drawer.state))
    throw conflict(`cannot ${doing} a ${drawer.state} drawer (allowed when ${allowed.join(' or ')})`, {
      currentState: drawer.state,
      allowedStates: allowed,
    })
}

/**
 * A drawer is assigned to, and its entries name, active staff users who work at its location (a
 * role there or tenant-wide, or a job there that grants something). Someone who works elsewhere gets the same answer as no one, so the
 * answer does not reveal the staff of other locations.
 */
export function assertStaffAt(db: Queryable, id: string, locationId: string, path: string) {
  const active = findStaffUser(db, id)?.status === 'active'
  if (!active || staffPermissionsAt(db, id, locationId).size === 0)
    throw invalid(path, `no active staff user ${id} at the drawer's location`)
}

/** A drawer as the API shows it: the frozen closeout summary travels separately. */
export function presentDrawer(row: DrawerRow) {
  const { closeoutSummary: _frozen, ...drawer } = row
  return drawer
}

export type DrawerView = ReturnType<typeof presentDrawer>

export const drawerLabel = (baseLabel: string, sequenceNumber: number) =>
  sequenceNumber === 1 ? baseLabel : `${baseLabel} #${sequenceNumber}`

function nextSequence(tx: Queryable, locationId: string, baseLabel: string): number {
  const last = tx
    .select({ n: max(cashDrawers.sequenceNumber) })
    .from(cashDrawers)
    .where(
      and(
        eq(cashDrawers.locationId, locationId),
        eq(sql`lower(${cashDrawers.baseLabel})`, baseLabel.toLowerCase()),
      ),
    )
    .get()?.n
  return (last ?? 0) + 1
}

type NewDrawer = Pick<
  DrawerRow,
  | 'locationId'
  | 'baseLabel'
  | 'startingBalance'
  | 'assignedStaffUserId'
  | 'lockedToStaffUserId'
  | 'closeoutMode'
  | 'closeoutWarningAmount'
  | 'closeoutRequireApprovalAmount'
  | 'stateComment'
  | 'parentDrawerId'
  | 'payload'
>

function insertDrawer(tx: Queryable, actor: Actor, fields: NewDrawer): DrawerRow {
  const sequenceNumber = nextSequence(tx, fields.locationId, fields.baseLabel)
  const now = nowIso()
  return tx
    .insert(cashDrawers)
    .values({
      id: newId(),
      ...fields,
      label: drawerLabel(fields.baseLabel, sequenceNumber),
      sequenceNumber,
      state: 'open',
      openingStaffUserId: actor.staffUserId,
      expectedBalance: fields.startingBalance,
      openedAt: now,
      createdAt: now,
      updatedAt: now,
    })
    .returning()
    .get()
}

/**
 * A drawer write: the audit entry `cash_drawer.<action>` and its event, whose object is spelled
 * `cash_drawer`; by default the event repeats the action and carries the drawer.
 */
export function drawerWrite(
  drawer: DrawerRow,
  action: string,
  metadata: Record<string, unknown>,
  event: { action: string; payload: Record<string, unknown> } = { action, payload: presentDrawer(drawer) },
): WriteRecord {
  return {
    action: `cash_drawer.${action}`,
    entityType: 'cash_drawer',
    entityId: drawer.id,
    metadata,
    events: [{ object: 'cash_drawer', action: event.action, aggregateId: drawer.id, payload: event.payload }],
  }
}

/** Create, assign and pause entries name the drawer and its location. */
const drawerFacts = (drawer: DrawerRow, metadata: Record<string, unknown>) => ({
  label: drawer.label,
  locationId: drawer.locationId,
  ...metadata,
})

export function createDrawer(db: Db, actor: Actor, input: CreateDrawerInput): DrawerView {
  const warning =
    input.closeoutWarningAmount === undefined ? DEFAULT_WARNING_AMOUNT : input.closeoutWarningAmount
  const approval =
    input.closeoutRequireApprovalAmount === undefined
      ? DEFAULT_APPROVAL_AMOUNT
      : input.closeoutRequireApprovalAmount
  const baseLabel = input.label.trim()
  if (!baseLabel) throw invalid('body/label', 'a label needs a visible character')
  if (warning !== null && approval !== null && warning > approval)
    throw invalid(
      'body/closeoutWarningAmount',
      'the warning threshold cannot be above the approval threshold (a warning comes first)',
    )
  return inWriteTransaction(db, (tx) => {
    if (!findLocation(tx, input.locationId))
      throw invalid('body/locationId', `no location ${input.locationId}`)
    if (input.assignedStaffUserId)
      assertStaffAt(tx, input.assignedStaffUserId, input.locationId, 'body/assignedStaffUserId')
    const drawer = insertDrawer(tx, actor, {
      locationId: input.locationId,
      baseLabel,
      startingBalance: input.startingBalance,
      assignedStaffUserId: input.assignedStaffUserId ?? null,
      lockedToStaffUserId: null,
      closeoutMode: input.closeoutMode ?? 'standard',
      closeoutWarningAmount: warning,
      closeoutRequireApprovalAmount: approval,
      stateComment: input.stateComment ?? null,
      parentDrawerId: null,
      payload: input.payload ?? {},
    })
    recordWrite(
      tx,
      actor,
      drawerWrite(drawer, 'create', drawerFacts(drawer, { startingBalance: drawer.startingBalance })),
    )
    return presentDrawer(drawer)
  })
}

export interface DrawerQuery extends PageRequest {
  locationId?: string
  state?: DrawerState
  assignedStaffUserId?: string
}

export function listDrawers(db: Queryable, query: DrawerQuery, locations: LocationScope) {
  const conditions: (SQL | undefined)[] = [scopeCondition(locations, cashDrawers.locationId)]
  if (query.locationId) conditions.push(eq(cashDrawers.locationId, query.locationId))
  if (query.state) conditions.push(eq(cashDrawers.state, query.state))
  if (query.assignedStaffUserId)
    conditions.push(eq(cashDrawers.assignedStaffUserId, query.assignedStaffUserId))
  const where = and(...conditions)
  const total = db.select({ n: count() }).from(cashDrawers).where(where).get()?.n ?? 0
  const drawers = db
    .select()
    .from(cashDrawers)
    .where(where)
    .orderBy(desc(cashDrawers.openedAt), desc(cashDrawers.id))
    .limit(query.limit)
    .offset(offsetOf(query))
    .all()
  return { drawers: drawers.map(presentDrawer), page: { total, page: query.page, limit: query.limit } }
}

export const entriesOf = (db: Queryable, drawerId: string) =>
  db
    .select()
    .from(drawerEntries)
    .where(eq(drawerEntries.drawerId, drawerId))
    .orderBy(asc(drawerEntries.createdAt), asc(drawerEntries.id))
    .all()

export const reconciliationOf = (drawer: DrawerRow) =>
  reconcile(drawer, drawer.expectedBalance, drawer.actualBalance)

export function drawerDetail(db: Queryable, id: string) {
  const drawer = getDrawerRow(db, id)
  return {
    drawer: presentDrawer(drawer),
    entries: entriesOf(db, id),
    reconciliation: reconciliationOf(drawer),
    closeoutSummary: closeoutSummary(db, drawer),
  }
}

export function assignDrawer(db: Db, actor: Actor, id: string, input: AssignDrawerInput): DrawerView {
  return inWriteTransaction(db, (tx) => {
    const drawer = getDrawerRow(tx, id)
    assertState(drawer, ['open', 'paused'], 'assign')
    const assignee = input.staffUserId === undefined ? actor.staffUserId : input.staffUserId
    if (input.staffUserId === undefined && !assignee)
      throw invalid('body/staffUserId', 'the caller is not a staff user: name the staff user to assign')
    if (assignee) assertStaffAt(tx, assignee, drawer.locationId, 'body/staffUserId')
    if (!assignee && input.lock)
      throw invalid('body/lock', 'a drawer can only be locked to an assigned staff user')
    const locked =
      input.lock === true
        ? assignee
        : input.lock === false || assignee !== drawer.assignedStaffUserId
          ? null
          : drawer.lockedToStaffUserId
    const row = tx
      .update(cashDrawers)
      .set({ assignedStaffUserId: assignee, lockedToStaffUserId: locked, updatedAt: nowIso() })
      .where(eq(cashDrawers.id, id))
      .returning()
      .get()
    recordWrite(
      tx,
      actor,
      drawerWrite(
        row,
        'assign',
        drawerFacts(row, {
          from: {
            assignedStaffUserId: drawer.assignedStaffUserId,
            lockedToStaffUserId: drawer.lockedToStaffUserId,
          },
          to: { assignedStaffUserId: assignee, lockedToStaffUserId: locked },
        }),
      ),
    )
    return presentDrawer(row)
  })
}

/**
 * open → paused, with a new open replacement drawer at the same location and base label (next
 * sequence number), the same assignment, lock and closeout settings, linked both ways. The
 * replacement starts with `startingBalance`, else the paused drawer's starting balance when
 * `inheritStartingBalance`, else 0. The paused drawer takes no more entries; it is closed later.
 */
export function pauseDrawer(db: Db, actor: Actor, id: string, input: PauseDrawerInput) {
  if (input.inheritStartingBalance && input.startingBalance !== undefined)
    throw invalid('body/startingBalance', 'give startingBalance or inheritStartingBalance, not both')
  return inWriteTransaction(db, (tx) => {
    const drawer = getDrawerRow(tx, id)
    assertState(drawer, ['open'], 'pause')
    const replacement = insertDrawer(tx, actor, {
      locationId: drawer.locationId,
      baseLabel: drawer.baseLabel,
      startingBalance: input.startingBalance ?? (input.inheritStartingBalance ? drawer.startingBalance : 0),
      assignedStaffUserId: drawer.assignedStaffUserId,
      lockedToStaffUserId: drawer.lockedToStaffUserId,
      closeoutMode: drawer.closeoutMode,
      closeoutWarningAmount: drawer.closeoutWarningAmount,
      closeoutRequireApprovalAmount: drawer.closeoutRequireApprovalAmount,
      stateComment: null,
      parentDrawerId: drawer.id,
      payload: {},
    })
    const now = nowIso()
    const paused = tx
      .update(cashDrawers)
      .set({
        state: 'paused',
        pausedAt: now,
        replacementDrawerId: replacement.id,
        stateComment: input.stateComment === undefined ? drawer.stateComment : input.stateComment,
        updatedAt: now,
      })
      .where(eq(cashDrawers.id, id))
      .returning()
      .get()
    recordWrite(
      tx,
      actor,
      drawerWrite(
        paused,
        'pause',
        drawerFacts(paused, { replacementDrawerId: replacement.id, expectedBalance: paused.expectedBalance }),
      ),
    )
    recordWrite(
      tx,
      actor,
      drawerWrite(
        replacement,
        'create',
        drawerFacts(replacement, {
          parentDrawerId: paused.id,
          startingBalance: replacement.startingBalance,
          inherited: input.inheritStartingBalance === true,
        }),
      ),
    )
    return {
      pausedDrawer: presentDrawer(paused),
      replacementDrawer: presentDrawer(replacement),
      reconciliation: reconciliationOf(paused),
    }
  })
}
