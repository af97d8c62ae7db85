// Tables reservations: booked from an availability option token, read by location and date,
// cancelled under an `if-match` version precondition. The covers of a start time (bookings of
// every version) are counted against the capacity published now, and the booking inserted, in one
// BEGIN IMMEDIATE transaction, so concurrent creates (threads, processes) and republishes can never
// book more covers than the start time holds.
import { and, asc, count, eq, gte, lte, ne, sum } from 'drizzle-orm'
import { recordWrite } from '../../platform/audit/record-write'
import type { Actor } from '../../platform/foundation/actor'
import { newId, nowIso } from '../../platform/foundation/ids'
import { offsetOf, type PageRequest } from '../../platform/foundation/paging'
import { ApiError, conflict, invalid, notFound } from '../../platform/foundation/problem'
import type { Db } from '../../platform/tenancy/databases'
import { inWriteTransaction, type Queryable } from '../../platform/tenancy/transaction'
import {
  currentVersionRow,
  endOf,
  getExperienceRow,
  getVersionRow,
  occurrenceAt,
  paymentRequiredOptions,
} from '../experiences'
import { getLocation } from '../locations'
import type { optionUnavailableReasons } from './model'
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

type UnavailableReason = (typeof optionUnavailableReasons)[number]

/** 409 `option_unavailable`: the option a token names can no longer be booked; ask availability again. */
const unavailable = (
  reason: UnavailableReason,
  detail: string,
  remainingCapacity: number,
  extensions: Record<string, unknown> = {},
) => new ApiError('option_unavailable', detail, { extensions: { reason, remainingCapacity, ...extensions } })

/**
 * Books the option a token names. Joins the caller's transaction (the idempotent request's).
 * The token fixes what the guest accepted (version, price, payment option); whether the start can
 * still take the party is decided by the version published now, so a republish (fewer covers,
 * other start times, other party limits) binds tokens issued before it. The current version is
 * read in the same write transaction as the covers, so a concurrent publish is either wholly
 * before this booking or wholly after it.
 */
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
    const accepted = getVersionRow(tx, option.experienceVersionId)
    if (!accepted || accepted.experienceId !== option.experienceId)
      throw invalid('body/optionToken', 'the option token names an unknown experience version')
    const experience = getExperienceRow(tx, option.experienceId)
    const current = currentVersionRow(tx, experience)
    if (experience.archivedAt || !current)
      throw unavailable('archived', 'this experience has been archived and can no longer be booked', 0, {
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
    const checked = { publishedVersionId: current.id, startsAt: option.startsAt, partySize: option.partySize }
    const slot = occurrenceAt(current, option.startsAt, location.timezone)
    if (!slot)
      throw unavailable(
        'start_not_offered',
        `the published version (${current.versionNumber}) no longer offers this start time`,
        0,
        checked,
      )
    const closesAt = Date.parse(slot.startsAt) - current.cutoffMinutes * 60_000
    if (now.getTime() > closesAt)
      throw unavailable('closed', 'bookings for this start time have closed', 0, {
        ...checked,
        closedAt: new Date(closesAt).toISOString(),
      })
    // Covers of every version count: a start time is one sitting, whatever version booked it.
    const booked = bookedCovers(tx, experience.id, slot.startsAt)
    const remaining = Math.max(slot.capacity - booked, 0)
    if (option.partySize < current.partyMin || option.partySize > current.partyMax)
      throw unavailable(
        'party_size',
        `the published version (${current.versionNumber}) takes parties of ${current.partyMin}..${current.partyMax}`,
        remaining,
        { ...checked, partyMin: current.partyMin, partyMax: current.partyMax },
      )
    if (option.partySize > remaining)
      throw unavailable(
        'capacity',
        `this start time has ${remaining} of its ${slot.capacity} covers left, too few for ${option.partySize}`,
        remaining,
        { ...checked, capacity: slot.capacity },
      )
    const at = now.toISOString()
    const row = tx
      .insert(tablesReservations)
      .values({
        id: newId(),
        publicId: crypto.randomUUID(),
        confirmationCode: newConfirmationCode(tx),
        locationId,
        experienceId: experience.id,
        experienceVersionId: accepted.id,
        lifecycle: 'confirmed',
        version: 1,
        source: actor.kind === 'credential' ? 'api' : 'staff',
        businessDate: slot.businessDate,
        startsAt: slot.startsAt,
        endsAt: endOf(accepted, slot.startsAt),
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
    recordWrite(tx, actor, {
      action: 'reservation.create',
      entityType: 'tables_reservation',
      entityId: row.id,
      metadata: {
        reservation: view,
        coversBefore: booked,
        capacity: slot.capacity,
        capacityVersionId: current.id,
      },
      events: [{ object: 'reservation', action: 'create', aggregateId: row.id, payload: view }],
    })
    return view
  })
}

/**
 * A reservation of the path's location; one of another location is 404, whoever asks. This is the
 * location rule for these routes: the platform has already kept the path's location within the
 * request's scope, so the reservation is too (no `locatedBy` needed).
 */
/** Whether a reservation of the tables dashboard has this id (at any location). */
export const tablesReservationExists = (db: Queryable, id: string): boolean =>
  db
    .select({ id: tablesReservations.id })
    .from(tablesReservations)
    .where(eq(tablesReservations.id, id))
    .get() !== undefined

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
    recordWrite(tx, actor, {
      action: 'reservation.cancel',
      entityType: 'tables_reservation',
      entityId: id,
      metadata: {
        lifecycle: { from: before.lifecycle, to: view.lifecycle },
        version: { from: before.version, to: view.version },
        reason: view.cancelReason,
      },
      events: [{ object: 'reservation', action: 'cancel', aggregateId: id, payload: view }],
    })
    return view
  })
}
