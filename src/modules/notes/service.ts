import { and, count, desc, eq, inArray, isNull, or, sql } from 'drizzle-orm'
import { diffFields } from '../../platform/audit/diff'
import { recordWrite } from '../../platform/audit/record-write'
import { type LocatedBy, type LocationScope, reaches } from '../../platform/auth/location-scope'
import type { Actor } from '../../platform/foundation/actor'
import { assertCalendarDate } from '../../platform/foundation/dates'
import { newId, nowIso } from '../../platform/foundation/ids'
import { offsetOf, type PageRequest, searchColumns } from '../../platform/foundation/paging'
import { ApiError, type FieldError, notFound } from '../../platform/foundation/problem'
import type { Db } from '../../platform/tenancy/databases'
import { preparedOn } from '../../platform/tenancy/prepared'
import { inWriteTransaction, type Queryable } from '../../platform/tenancy/transaction'
import { findMembershipRow } from '../club-memberships'
import { resolveCustomerId } from '../customers'
import { orderIdsWithin, orderLocated } from '../orders'
import type { CreateNoteInput, NoteListFilters, UpdateNoteInput } from './model'
import { type NoteRow, notes } from './schema'

/**
 * A note about an order lives where the order does; any other note is the business's. So a
 * caller bound to some locations sees (and writes) notes of orders there, and every other note.
 */
export const noteLocation: LocatedBy = {
  kind: 'note',
  param: 'id',
  locationOf: (db, id) => {
    const row = preparedOn(db, 'note-order', () =>
      db
        .select({ orderId: notes.orderId })
        .from(notes)
        .where(eq(notes.id, sql.placeholder('id')))
        .prepare(),
    ).get({ id })
    if (row === undefined) return undefined
    return row.orderId === null ? null : (orderLocated.locationOf(db, row.orderId) ?? null)
  },
}

interface References {
  customerId?: string | null
  orderId?: string | null
  clubMembershipId?: string | null
}

/**
 * The references of a note body, checked against this tenant: each id sent must name a customer,
 * order or club membership here (one 400 naming every bad field), an order at a location the
 * caller reaches (one elsewhere is as unknown). A customer id merged away is stored as the
 * customer it was merged into.
 */
function checkedReferences<T extends References>(db: Queryable, input: T, scope: LocationScope): T {
  const errors: FieldError[] = []
  const result = { ...input }
  if (input.customerId) {
    try {
      result.customerId = resolveCustomerId(db, input.customerId)
    } catch {
      errors.push({ path: 'body/customerId', message: `customer ${input.customerId} not found` })
    }
  }
  const orderAt = input.orderId ? orderLocated.locationOf(db, input.orderId) : null
  if (input.orderId && (orderAt === undefined || !reaches(scope, orderAt)))
    errors.push({ path: 'body/orderId', message: `order ${input.orderId} not found` })
  if (input.clubMembershipId && !findMembershipRow(db, input.clubMembershipId))
    errors.push({
      path: 'body/clubMembershipId',
      message: `club membership ${input.clubMembershipId} not found`,
    })
  if (errors.length > 0)
    throw new ApiError('validation_failed', `${errors[0]!.path}: ${errors[0]!.message}`, { errors })
  return result
}

/** A customer filter follows merges; an unknown id simply matches nothing. */
function customerFilter(db: Queryable, id: string): string {
  try {
    return resolveCustomerId(db, id)
  } catch {
    return id
  }
}

/** Notes newest first by `noteDate`, then by when they were written. */
export function listNotes(db: Queryable, scope: LocationScope, query: NoteListFilters & PageRequest) {
  const ordersInScope = orderIdsWithin(scope)
  const where = and(
    ordersInScope && or(isNull(notes.orderId), inArray(notes.orderId, ordersInScope)),
    searchColumns(query.q, [notes.content]),
    query.customerId ? eq(notes.customerId, customerFilter(db, query.customerId)) : undefined,
    query.orderId ? eq(notes.orderId, query.orderId) : undefined,
    query.clubMembershipId ? eq(notes.clubMembershipId, query.clubMembershipId) : undefined,
  )
  const total = db.select({ n: count() }).from(notes).where(where).get()?.n ?? 0
  const rows = db
    .select()
    .from(notes)
    .where(where)
    .orderBy(desc(notes.noteDate), desc(notes.createdAt), desc(notes.id))
    .limit(query.limit)
    .offset(offsetOf(query))
    .all()
  return { notes: rows, total }
}

export function getNote(db: Queryable, id: string): NoteRow {
  const row = db.select().from(notes).where(eq(notes.id, id)).get()
  if (!row) throw notFound('note', id)
  return row
}

export function createNote(db: Db, actor: Actor, scope: LocationScope, body: CreateNoteInput): NoteRow {
  assertCalendarDate('body/noteDate', body.noteDate)
  return inWriteTransaction(db, (tx) => {
    const input = checkedReferences(tx, body, scope)
    const now = nowIso()
    const row = tx
      .insert(notes)
      .values({
        id: newId(),
        type: input.type ?? 'Note',
        content: input.content,
        noteDate: input.noteDate,
        customerId: input.customerId ?? null,
        orderId: input.orderId ?? null,
        clubMembershipId: input.clubMembershipId ?? null,
        createdAt: now,
        updatedAt: now,
      })
      .returning()
      .get()
    recordWrite(tx, actor, {
      action: 'note.create',
      entityType: 'note',
      entityId: row.id,
      metadata: { note: row },
      event: row,
    })
    return row
  })
}

export function updateNote(
  db: Db,
  actor: Actor,
  scope: LocationScope,
  id: string,
  body: UpdateNoteInput,
): NoteRow {
  assertCalendarDate('body/noteDate', body.noteDate)
  return inWriteTransaction(db, (tx) => {
    const before = getNote(tx, id)
    const patch = checkedReferences(tx, body, scope)
    const changes = diffFields(before, patch)
    if (Object.keys(changes).length === 0) return before
    const row = tx
      .update(notes)
      .set({ ...patch, updatedAt: nowIso() })
      .where(eq(notes.id, id))
      .returning()
      .get()
    recordWrite(tx, actor, {
      action: 'note.update',
      entityType: 'note',
      entityId: id,
      metadata: { changes },
      event: row,
    })
    return row
  })
}

export function deleteNote(db: Db, actor: Actor, id: string): void {
  inWriteTransaction(db, (tx) => {
    const row = getNote(tx, id)
    tx.delete(notes).where(eq(notes.id, id)).run()
    recordWrite(tx, actor, {
      action: 'note.delete',
      entityType: 'note',
      entityId: id,
      metadata: { note: row },
      event: row,
    })
  })
}
