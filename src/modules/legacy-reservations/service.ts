// Legacy reservations (`/reservation`): booked against a reservation type, numbered in order,
// moving Pending -> Confirmed -> Checked In -> Completed, or to Cancelled / No Show.
import { and, asc, count, desc, eq, gte, inArray, lte, max } from 'drizzle-orm'
import { diffFields } from '../../platform/audit/diff'
import { recordWrite } from '../../platform/audit/record-write'
import {
  everyLocation,
  type LocationScope,
  locatedRow,
  scopeCondition,
} from '../../platform/auth/location-scope'
import type { Actor } from '../../platform/foundation/actor'
import { newId } from '../../platform/foundation/ids'
import { offsetOf, type PageRequest } from '../../platform/foundation/paging'
import { ApiError, conflict, invalid, notFound } from '../../platform/foundation/problem'
import type { Db } from '../../platform/tenancy/databases'
import { inWriteTransaction, type Queryable } from '../../platform/tenancy/transaction'
import { resolveCustomerId } from '../customers'
import { findStaffUser, staffNames } from '../staff'
import type {
  CreateLegacyReservationInput,
  LegacyReservationView,
  UpdateLegacyReservationInput,
} from './model'
import { type Booking, checkAgainstType } from './rules'
import {
  type LegacyReservationRow,
  legacyReservations,
  type ReservationStatus,
  reservationTypeOptions,
  reservationTypes,
} from './schema'
import { getReservationTypeRow } from './types'

/** The statuses each status may move to; the last three are final. */
export const statusTransitions: Record<ReservationStatus, readonly ReservationStatus[]> = {
  Pending: ['Confirmed', 'Cancelled', 'No Show'],
  Confirmed: ['Checked In', 'Cancelled', 'No Show'],
  'Checked In': ['Completed'],
  Completed: [],
  Cancelled: [],
  'No Show': [],
}

const paymentTransitions: Record<string, readonly string[]> = {
  unpaid: ['paid'],
  paid: ['refunded'],
  refunded: [],
}

function views(db: Queryable, rows: LegacyReservationRow[]): LegacyReservationView[] {
  if (rows.length === 0) return []
  const typeIds = [...new Set(rows.map((r) => r.reservationTypeId))]
  const types = new Map(
    db
      .select({ id: reservationTypes.id, title: reservationTypes.title, slug: reservationTypes.slug })
      .from(reservationTypes)
      .where(inArray(reservationTypes.id, typeIds))
      .all()
      .map((t) => [t.id, t] as const),
  )
  const staffIds = [...new Set(rows.map((r) => r.reservationStaffId).filter((id): id is string => !!id))]
  const staff = staffNames(db, staffIds)
  return rows.map(({ businessDate: _hidden, ...row }) => ({
    ...row,
    reservationStaff: row.reservationStaffId ? (staff.get(row.reservationStaffId) ?? null) : null,
    reservationType: types.get(row.reservationTypeId)!,
  }))
}

const view = (db: Queryable, row: LegacyReservationRow) => views(db, [row])[0]!

/**
 * Where a reservation is held (routes declare it with `locatedBy`): its reservation location, not
 * its inventory location (a write naming that one is the caller's to reach, like any other).
 */
export const legacyReservationLocated = locatedRow(
  'reservation',
  legacyReservations,
  legacyReservations.id,
  legacyReservations.reservationLocationId,
)

export function getLegacyReservationRow(db: Queryable, id: string): LegacyReservationRow {
  const row = db.select().from(legacyReservations).where(eq(legacyReservations.id, id)).get()
  if (!row) throw notFound('reservation', id)
  return row
}

export const getLegacyReservation = (db: Queryable, id: string) => view(db, getLegacyReservationRow(db, id))

export interface LegacyListQuery extends PageRequest {
  dateFrom?: string
  dateTo?: string
  status?: ReservationStatus
  reservationTypeId?: string
  customerId?: string
  reservationLocationId?: string
  paymentStatus?: 'unpaid' | 'paid' | 'refunded'
}

export function listLegacyReservations(db: Queryable, query: LegacyListQuery, locations: LocationScope) {
  if (query.dateFrom && query.dateTo && query.dateFrom > query.dateTo)
    throw invalid('query/dateFrom', `dateFrom ${query.dateFrom} is after dateTo ${query.dateTo}`)
  const where = and(
    scopeCondition(locations, legacyReservations.reservationLocationId),
    query.dateFrom ? gte(legacyReservations.businessDate, query.dateFrom) : undefined,
    query.dateTo ? lte(legacyReservations.businessDate, query.dateTo) : undefined,
    query.status ? eq(legacyReservations.status, query.status) : undefined,
    query.reservationTypeId ? eq(legacyReservations.reservationTypeId, query.reservationTypeId) : undefined,
    query.customerId ? eq(legacyReservations.customerId, query.customerId) : undefined,
    query.reservationLocationId
      ? eq(legacyReservations.reservationLocationId, query.reservationLocationId)
      : undefined,
    query.paymentStatus ? eq(legacyReservations.paymentStatus, query.paymentStatus) : undefined,
  )
  const total = db.select({ n: count() }).from(legacyReservations).where(where).get()?.n ?? 0
  const rows = db
    .select()
    .from(legacyReservations)
    .where(where)
    .orderBy(asc(legacyReservations.reservationDate), desc(legacyReservations.reservationNumber))
    .limit(query.limit)
    .offset(offsetOf(query))
    .all()
  return { reservations: views(db, rows), page: { total, page: query.page, limit: query.limit } }
}

function customerOf(db: Queryable, id: string | null | undefined): string | null {
  if (!id) return null
  try {
    return resolveCustomerId(db, id)
  } catch (error) {
    if (error instanceof ApiError && error.code === 'not_found')
      throw invalid('body/customerId', `no customer ${id}`)
    throw error
  }
}

const optionRow = (db: Queryable, id: string | null) =>
  id
    ? (db.select().from(reservationTypeOptions).where(eq(reservationTypeOptions.id, id)).get() ?? null)
    : null

function assertStaff(db: Queryable, id: string | null | undefined) {
  if (!id) return
  if (findStaffUser(db, id)?.status !== 'active')
    throw invalid('body/reservationStaffId', `no active staff user ${id}`)
}

function priceOf(
  input: { price?: number; isPriceOverride?: boolean },
  optionPrice: number | null,
  guestCount: number,
  current?: number,
): number {
  if (input.price !== undefined && !input.isPriceOverride)
    throw invalid('body/price', 'a price is set only with isPriceOverride true')
  if (input.isPriceOverride) {
    const price = input.price ?? current
    if (price === undefined) throw invalid('body/price', 'isPriceOverride needs a price')
    return price
  }
  return (optionPrice ?? 0) * guestCount
}

export function createLegacyReservation(
  db: Db,
  actor: Actor,
  locations: LocationScope,
  input: CreateLegacyReservationInput,
  now: Date = new Date(),
): LegacyReservationView {
  return inWriteTransaction(db, (tx) => {
    const type = (() => {
      try {
        return getReservationTypeRow(tx, input.reservationTypeId, locations)
      } catch {
        throw invalid('body/reservationTypeId', `no reservation type ${input.reservationTypeId}`)
      }
    })()
    const channel = input.channel ?? 'Admin'
    if (channel === 'Web' && !input.customerId)
      throw invalid('body/customerId', 'a customer is required when the customer books online (channel Web)')
    const customerId = customerOf(tx, input.customerId)
    assertStaff(tx, input.reservationStaffId)
    const booking = {
      reservationDate: new Date(input.reservationDate).toISOString(),
      guestCount: input.guestCount,
      reservationLocationId: input.reservationLocationId,
      inventoryLocationId: input.inventoryLocationId,
      reservationTypeOptionId: input.reservationTypeOptionId ?? null,
      channel,
      isReservationDateOverride: input.isReservationDateOverride ?? false,
      isReservationLocationOverride: input.isReservationLocationOverride ?? false,
      isGuestCountOverride: input.isGuestCountOverride ?? false,
    } satisfies Booking
    const checked = checkAgainstType(tx, type, booking, { now })
    const price = priceOf(input, checked.option?.price ?? null, input.guestCount)
    const number =
      (tx
        .select({ n: max(legacyReservations.reservationNumber) })
        .from(legacyReservations)
        .get()?.n ?? 0) + 1
    const at = now.toISOString()
    const row = tx
      .insert(legacyReservations)
      .values({
        id: newId(),
        reservationNumber: number,
        ...booking,
        businessDate: checked.businessDate,
        externalReservationNumber: input.externalReservationNumber ?? null,
        externalReservationVendor: input.externalReservationVendor ?? null,
        reservationSource: input.reservationSource ?? null,
        customerId,
        reservationCloseOutDate: null,
        lastProcessAttemptDate: null,
        reservationPaidDate: null,
        reminderEmailSendDate: null,
        checkInTime: null,
        closeOutTime: null,
        reservationTypeId: type.id,
        reservationLocationTableId: input.reservationLocationTableId ?? null,
        reservationStaffId: input.reservationStaffId ?? null,
        experienceType: input.experienceType ?? 'default',
        isRequiresAHost: input.isRequiresAHost ?? type.isRequiresAHost,
        status: input.status ?? 'Pending',
        paymentStatus: 'unpaid',
        paymentCharge: type.paymentCharge,
        orderId: null,
        orderNumber: null,
        reminderEmailSendStatus: 'pending',
        sku: checked.option?.sku ?? null,
        price,
        tenderType: input.tenderType ?? null,
        customerCreditCardId: null,
        isPriceOverride: input.isPriceOverride ?? false,
        reservationThirdPartyId: input.reservationThirdPartyId ?? null,
        notes: input.notes ?? null,
        systemNote: null,
        metaData: input.metaData ?? null,
        appData: input.appData ?? null,
        appSync: null,
        flags: input.flags ?? [],
        createdAt: at,
        updatedAt: at,
      })
      .returning()
      .get()
    const result = view(tx, row)
    recordWrite(tx, actor, {
      action: 'legacy_reservation.create',
      entityType: 'legacy_reservation',
      entityId: row.id,
      metadata: { reservation: result },
      events: [{ object: 'reservation', action: 'create', aggregateId: row.id, payload: result }],
    })
    return result
  })
}

/** Timestamps a status change sets. */
function statusEffects(to: ReservationStatus, at: string): Partial<LegacyReservationRow> {
  if (to === 'Checked In') return { checkInTime: at }
  if (to === 'Completed') return { closeOutTime: at, reservationCloseOutDate: at }
  return {}
}

const rebookingFields = [
  'reservationDate',
  'guestCount',
  'reservationLocationId',
  'inventoryLocationId',
  'reservationTypeOptionId',
  'isReservationDateOverride',
  'isReservationLocationOverride',
  'isGuestCountOverride',
] as const

export function updateLegacyReservation(
  db: Db,
  actor: Actor,
  id: string,
  input: UpdateLegacyReservationInput,
  now: Date = new Date(),
): LegacyReservationView {
  return inWriteTransaction(db, (tx) => {
    const before = getLegacyReservationRow(tx, id)
    const at = now.toISOString()
    const { price: _price, ...rest } = input
    const patch: Partial<LegacyReservationRow> = Object.fromEntries(
      Object.entries(rest).filter(([, v]) => v !== undefined),
    )
    if (input.reservationDate) patch.reservationDate = new Date(input.reservationDate).toISOString()
    if (input.customerId !== undefined) patch.customerId = customerOf(tx, input.customerId)
    if (input.reservationStaffId) assertStaff(tx, input.reservationStaffId)

    if (input.status && input.status !== before.status) {
      if (!statusTransitions[before.status].includes(input.status))
        throw conflict(`a ${before.status} reservation cannot become ${input.status}`, {
          currentStatus: before.status,
          allowed: statusTransitions[before.status],
        })
      Object.assign(patch, statusEffects(input.status, at))
    }
    if (input.paymentStatus && input.paymentStatus !== before.paymentStatus) {
      if (!paymentTransitions[before.paymentStatus]!.includes(input.paymentStatus))
        throw conflict(`paymentStatus ${before.paymentStatus} cannot become ${input.paymentStatus}`, {
          paymentStatus: before.paymentStatus,
        })
      if (input.paymentStatus === 'paid') patch.reservationPaidDate = at
    }

    const rebooking = rebookingFields.some(
      (field) => patch[field] !== undefined && JSON.stringify(patch[field]) !== JSON.stringify(before[field]),
    )
    const merged = { ...before, ...patch }
    if (rebooking || input.price !== undefined || input.isPriceOverride !== undefined) {
      if (statusTransitions[before.status].length === 0 && rebooking)
        throw conflict(`a ${before.status} reservation cannot be rebooked`, { currentStatus: before.status })
      // The reservation's own type, wherever else it is held.
      const type = getReservationTypeRow(tx, before.reservationTypeId, everyLocation)
      const checked = rebooking ? checkAgainstType(tx, type, merged, { now, exceptId: id }) : null
      if (checked) patch.businessDate = checked.businessDate
      const option = checked ? checked.option : optionRow(tx, merged.reservationTypeOptionId)
      patch.price = priceOf(
        { price: input.price, isPriceOverride: merged.isPriceOverride },
        option?.price ?? null,
        merged.guestCount,
        before.price,
      )
      if (checked) patch.sku = option?.sku ?? null
    }

    const changes = diffFields(before, patch)
    if (Object.keys(changes).length === 0) return view(tx, before)
    const row = tx
      .update(legacyReservations)
      .set({ ...patch, updatedAt: at })
      .where(eq(legacyReservations.id, id))
      .returning()
      .get()
    const result = view(tx, row)
    const action = changes.status?.to === 'Cancelled' ? 'cancel' : 'update'
    recordWrite(tx, actor, {
      action: changes.status ? `legacy_reservation.status` : 'legacy_reservation.update',
      entityType: 'legacy_reservation',
      entityId: id,
      metadata: { changes },
      events: [{ object: 'reservation', action, aggregateId: id, payload: result }],
    })
    return result
  })
}
