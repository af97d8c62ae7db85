// Tables reservations: booked from an availability option token, read by location and date,
// cancelled under an `if-match` version precondition. Capacity is counted and the booking
// inserted in one BEGIN IMMEDIATE transaction, so concurrent creates (threads, processes) can
// never book more covers than a start time holds.
import { and, asc, count, eq, gte, lte, ne, sum } from 'drizzle-orm'
import { appendAudit } from '../../platform/audit/audit'
import type { Actor } from '../../platform/auth/actor'
import { appendEvent } from '../../platform/events/outbox'
import { offsetOf, type PageRequest } from '../../platform/http/paging'
import { ApiError, conflict, invalid, notFound } from '../../platform/http/problem'
import { newId, nowIso } from '../../platform/ids'
import type { Db } from '../../platform/tenancy/databases'
import { inWriteTransaction, type Queryable } from '../../platform/tenancy/transaction'
import { occurrenceAt } from '../experiences/schedules'
import { paymentRequiredOptions } from '../experiences/schema'
import { getExperienceRow, getVersionRow } from '../experiences/service'
import { getLocation } from '../locations/service'
import { type TablesReservationRow, tablesReservations } from './schema'
import type { OptionClaims } from './tokens'

export interface Guest {
  name: string
  email: string
  phone?: string | null
}

export function reservationView(row: TablesReservationRow) {
  return {
    id: row.id,
    publicId: row.publicId,
    confirmationCode: row.confirmationCode,
    locationId: row.locationId,
    experienceId: row.experienceId,
    experienceVersionId: row.experienceVersionId,
    lifecycle: row.lifecycle,
    version: row.version,
    source: row.source,
    businessDate: row.businessDate,
    startsAt: row.startsAt,
    endsAt: row.endsAt,
    partySize: row.partySize,
    guest: { name: row.guestName, email: row.guestEmail, phone: row.guestPhone },
    booking: {
      method: row.bookingMethod,
      currency: row.currency,
      subtotalAmount: row.subtotalAmount,
      taxAmount: row.taxAmount,
      totalAmount: row.totalAmount,
    },
    confirmedAt: row.confirmedAt,
    cancelledAt: row.cancelledAt,
    cancelReason: row.cancelReason,
  }
}

export type TablesReservationView = ReturnType<typeof reservationView>

/** Covers already booked (not cancelled) at one start time of an experience. */
export function bookedCovers(db: Queryable, experienceId: string, startsAt: string): number {
  const row = db
    .select({ covers: sum(tablesReservations.partySize) })
    .from(tablesReservations)
    .where(
      and(
        eq(tablesReservations.experienceId, experienceId),
        eq(tablesReservations.startsAt, startsAt),
        ne(tablesReservations.lifecycle, 'cancelled'),
      ),
    )
    .get()
  return Number(row?.covers ?? 0)
}

const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'

function newConfirmationCode(db: Queryable): string {
  for (;;) {
    const bytes = crypto.getRandomValues(new Uint8Array(8))
    const code = Array.from(bytes, (b) => CODE_ALPHABET[b % CODE_ALPHABET.length]).join('')
    const taken = db
      .select({ id: tablesReservations.id })
      .from(tablesReservations)
      .where(eq(tablesReservations.confirmationCode, code))
      .get()
    if (!taken) return code
  }
}

/** Books the option a token names. Joins the caller's transaction (the idempotent request's). */
export function createTablesReservation(
  db: Db,
  actor: Actor,
  locationId: string,
  option: OptionClaims,
  guest: Guest,
  now: Date = new Date(),
): TablesReservationView {
  return inWriteTransaction(db, (tx) => {
    const location = getLocation(tx, locationId)
    if (option.locationId !== locationId)
      throw invalid('body/optionToken', 'the option token was issued for another location')
    const version = getVersionRow(tx, option.experienceVersionId)
    if (!version || version.experienceId !== option.experienceId)
      throw invalid('body/optionToken', 'the option token names an unknown experience version')
    const experience = getExperienceRow(tx, option.experienceId)
    if (experience.archivedAt)
      throw conflict('this experience has been archived and can no longer be booked', {
        experienceId: experience.id,
      })
    if (paymentRequiredOptions.includes(option.paymentOption)) {
      throw new ApiError(
        'payment_required',
        `this option needs a payment first (${option.paymentOption}); book it through the dashboard, which takes payments`,
        {
          extensions: {
            paymentOption: option.paymentOption,
            currency: option.currency,
            totalAmount: option.totalAmount,
          },
        },
      )
    }
    const slot = occurrenceAt(version, option.startsAt, location.timezone)
    if (!slot)
      throw invalid('body/optionToken', 'the option token names a start time the experience does not offer')
    const closesAt = Date.parse(slot.startsAt) - version.cutoffMinutes * 60_000
    if (now.getTime() > closesAt)
      throw conflict('bookings for this start time have closed', {
        startsAt: slot.startsAt,
        closedAt: new Date(closesAt).toISOString(),
      })
    if (option.partySize < version.partyMin || option.partySize > version.partyMax)
      throw invalid('body/optionToken', `party size must be ${version.partyMin}..${version.partyMax}`)
    const booked = bookedCovers(tx, experience.id, slot.startsAt)
    const remaining = slot.capacity - booked
    if (option.partySize > remaining)
      throw conflict(`only ${Math.max(remaining, 0)} covers are left at this start time`, {
        remainingCapacity: Math.max(remaining, 0),
        partySize: option.partySize,
      })
    const at = now.toISOString()
    const row = tx
      .insert(tablesReservations)
      .values({
        id: newId(),
        publicId: crypto.randomUUID(),
        confirmationCode: newConfirmationCode(tx),
        locationId,
        experienceId: experience.id,
        experienceVersionId: version.id,
        lifecycle: 'confirmed',
        version: 1,
        source: actor.kind === 'credential' ? 'api' : 'staff',
        businessDate: slot.businessDate,
        startsAt: slot.startsAt,
        endsAt: slot.endsAt,
        partySize: option.partySize,
        guestName: guest.name.trim(),
        guestEmail: guest.email.trim().toLowerCase(),
        guestPhone: guest.phone?.trim() || null,
        bookingMethod: option.paymentOption,
        currency: option.currency,
        subtotalAmount: option.subtotalAmount,
        taxAmount: option.taxAmount,
        totalAmount: option.totalAmount,
        paymentResolvedAt: null,
        confirmedAt: at,
        cancelledAt: null,
        cancelReason: null,
        createdAt: at,
        updatedAt: at,
      })
      .returning()
      .get()
    const view = reservationView(row)
    appendAudit(tx, actor, {
      action: 'reservation.create',
      entityType: 'tables_reservation',
      entityId: row.id,
      metadata: { reservation: view, coversBefore: booked, capacity: slot.capacity },
    })
    appendEvent(tx, actor, { object: 'reservation', action: 'create', aggregateId: row.id, payload: view })
    return view
  })
}

export function getTablesReservationRow(db: Queryable, locationId: string, id: string): TablesReservationRow {
  const row = db
    .select()
    .from(tablesReservations)
    .where(and(eq(tablesReservations.id, id), eq(tablesReservations.locationId, locationId)))
    .get()
  if (!row) throw notFound('reservation', id)
  return row
}

export function getTablesReservation(db: Queryable, locationId: string, id: string): TablesReservationView {
  getLocation(db, locationId)
  return reservationView(getTablesReservationRow(db, locationId, id))
}

export function listTablesReservations(
  db: Queryable,
  locationId: string,
  query: { dateFrom: string; dateTo: string } & PageRequest,
) {
  getLocation(db, locationId)
  if (query.dateFrom > query.dateTo)
    throw invalid('query/dateFrom', `dateFrom ${query.dateFrom} is after dateTo ${query.dateTo}`)
  const where = and(
    eq(tablesReservations.locationId, locationId),
    gte(tablesReservations.businessDate, query.dateFrom),
    lte(tablesReservations.businessDate, query.dateTo),
  )
  const total = db.select({ n: count() }).from(tablesReservations).where(where).get()?.n ?? 0
  const rows = db
    .select()
    .from(tablesReservations)
    .where(where)
    .orderBy(asc(tablesReservations.startsAt), asc(tablesReservations.id))
    .limit(query.limit)
    .offset(offsetOf(query))
    .all()
  return { data: rows.map(reservationView), page: { total, page: query.page, limit: query.limit } }
}

export function cancelTablesReservation(
  db: Db,
  actor: Actor,
  locationId: string,
  id: string,
  input: { expectedVersion: number; reason: string },
): TablesReservationView {
  return inWriteTransaction(db, (tx) => {
    const before = getTablesReservationRow(tx, locationId, id)
    if (before.version !== input.expectedVersion)
      throw new ApiError(
        'precondition_failed',
        `if-match ${input.expectedVersion} does not match the reservation's version ${before.version}`,
        { extensions: { currentVersion: before.version } },
      )
    if (before.lifecycle === 'cancelled')
      throw conflict(`reservation ${id} is already cancelled`, {
        lifecycle: before.lifecycle,
        cancelledAt: before.cancelledAt,
        version: before.version,
      })
    if (paymentRequiredOptions.includes(before.bookingMethod as never) && !before.paymentResolvedAt)
      throw conflict(
        'this reservation took a payment that has not been resolved; refund or settle it in the dashboard first',
        { lifecycle: before.lifecycle, bookingMethod: before.bookingMethod, paymentStatus: 'unresolved' },
      )
    const now = nowIso()
    const row = tx
      .update(tablesReservations)
      .set({
        lifecycle: 'cancelled',
        cancelledAt: now,
        cancelReason: input.reason.trim(),
        version: before.version + 1,
        updatedAt: now,
      })
      .where(and(eq(tablesReservations.id, id), eq(tablesReservations.version, before.version)))
      .returning()
      .get()
    const view = reservationView(row!)
    appendAudit(tx, actor, {
      action: 'reservation.cancel',
      entityType: 'tables_reservation',
      entityId: id,
      metadata: {
        lifecycle: { from: before.lifecycle, to: view.lifecycle },
        version: { from: before.version, to: view.version },
        reason: view.cancelReason,
      },
    })
    appendEvent(tx, actor, { object: 'reservation', action: 'cancel', aggregateId: id, payload: view })
    return view
  })
}
