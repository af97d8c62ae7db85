// Reservation types (`/reservation-type`): what can be booked through `/reservation`, with its
// guest limits, lead time, locations, priced options and weekly time slots.
//
// A type names several locations (where it is held, its default, its inventory location), and one
// with an empty `reservationLocationIds` is held at every location (that is how bookings are
// checked). Under the location rule, a caller sees a type held everywhere or naming one of its
// locations (404 otherwise), and changes, deletes or creates only a type every location of which
// it may act at (403 otherwise): changing a type changes what every location it serves offers.
import { and, asc, count, eq, inArray, or, type SQL, sql } from 'drizzle-orm'
import { diffFields } from '../../platform/audit/diff'
import { recordWrite } from '../../platform/audit/record-write'
import { assertReaches, type LocationScope, reaches } from '../../platform/auth/location-scope'
import type { Actor } from '../../platform/foundation/actor'
import { newId, nowIso } from '../../platform/foundation/ids'
import { offsetOf, type PageRequest, searchColumns } from '../../platform/foundation/paging'
import { ApiError, conflict, type FieldError, notFound } from '../../platform/foundation/problem'
import { slugTaken, uniqueSlug } from '../../platform/slug'
import type { Db } from '../../platform/tenancy/databases'
import { inWriteTransaction, type Queryable } from '../../platform/tenancy/transaction'
import { findLocation } from '../locations'
import type {
  CreateReservationTypeInput,
  ReservationTypeView,
  UpdateReservationTypeInput,
} from './model-types'
import {
  daysOfWeek,
  legacyReservations,
  type ReservationTypeRow,
  reservationTypeOptions,
  reservationTypes,
  reservationTypeTimeSlots,
  reservationTypeTimes,
} from './schema'

const slugColumns = { id: reservationTypes.id, slug: reservationTypes.slug }

function typeViews(db: Queryable, rows: ReservationTypeRow[]): ReservationTypeView[] {
  const ids = rows.map((r) => r.id)
  if (ids.length === 0) return []
  const options = db
    .select()
    .from(reservationTypeOptions)
    .where(inArray(reservationTypeOptions.reservationTypeId, ids))
    .orderBy(asc(reservationTypeOptions.sortOrder), asc(reservationTypeOptions.id))
    .all()
  const slots = db
    .select()
    .from(reservationTypeTimeSlots)
    .where(inArray(reservationTypeTimeSlots.reservationTypeId, ids))
    .all()
    .sort((a, b) => daysOfWeek.indexOf(a.dayOfWeek) - daysOfWeek.indexOf(b.dayOfWeek))
  const times =
    slots.length === 0
      ? []
      : db
          .select()
          .from(reservationTypeTimes)
          .where(
            inArray(
              reservationTypeTimes.reservationTypeTimeSlotId,
              slots.map((s) => s.id),
            ),
          )
          .orderBy(asc(reservationTypeTimes.time))
          .all()
  return rows.map((row) => ({
    ...row,
    options: options.filter((o) => o.reservationTypeId === row.id),
    timeSlots: slots
      .filter((s) => s.reservationTypeId === row.id)
      .map((slot) => ({ ...slot, times: times.filter((t) => t.reservationTypeTimeSlotId === slot.id) })),
  }))
}

export const typeView = (db: Queryable, row: ReservationTypeRow) => typeViews(db, [row])[0]!

type TypeLocations = Pick<
  ReservationTypeRow,
  | 'reservationLocationIds'
  | 'isAlwaysOccursInDefaultLocation'
  | 'reservationLocationId'
  | 'defaultReservationLocationId'
  | 'inventoryLocationId'
>

/** No list of locations (and not bound to its default): bookable at every location. */
const heldEverywhere = (type: TypeLocations) =>
  type.reservationLocationIds.length === 0 && !type.isAlwaysOccursInDefaultLocation

/** Every location a type names. */
const namedLocations = (type: TypeLocations): string[] =>
  [
    ...type.reservationLocationIds,
    type.reservationLocationId,
    type.defaultReservationLocationId,
    type.inventoryLocationId,
  ].filter((id): id is string => id !== null)

const visibleTo = (scope: LocationScope, type: TypeLocations) =>
  scope.all || heldEverywhere(type) || namedLocations(type).some((id) => reaches(scope, id))

/** `visibleTo` as a WHERE condition (undefined: no condition). */
function visibleCondition(scope: LocationScope): SQL | undefined {
  if (scope.all) return undefined
  const ids = [...scope.ids]
  return or(
    and(
      sql`json_array_length(${reservationTypes.reservationLocationIds}) = 0`,
      eq(reservationTypes.isAlwaysOccursInDefaultLocation, false),
    ),
    sql`exists (select 1 from json_each(${reservationTypes.reservationLocationIds}) where value in ${ids})`,
    inArray(reservationTypes.reservationLocationId, ids),
    inArray(reservationTypes.defaultReservationLocationId, ids),
    inArray(reservationTypes.inventoryLocationId, ids),
  )
}

/** 403 unless the request may act at every location the type serves or names. */
function assertMayChange(scope: LocationScope, type: TypeLocations) {
  if (scope.all) return
  if (heldEverywhere(type))
    throw new ApiError(
      'forbidden',
      'A reservation type with no reservationLocationIds is held at every location: only a request that may act at every location may create or change one',
    )
  for (const id of namedLocations(type)) assertReaches(scope, id)
}

/** A type the request may see; 404 for one it may not, as for one that does not exist. */
export function getReservationTypeRow(db: Queryable, id: string, scope: LocationScope): ReservationTypeRow {
  const row = db.select().from(reservationTypes).where(eq(reservationTypes.id, id)).get()
  if (!row || !visibleTo(scope, row)) throw notFound('reservation type', id)
  return row
}

export const getReservationType = (db: Queryable, id: string, scope: LocationScope) =>
  typeView(db, getReservationTypeRow(db, id, scope))

export function listReservationTypes(
  db: Queryable,
  query: { q?: string; status?: string } & PageRequest,
  scope: LocationScope,
) {
  const where = and(
    visibleCondition(scope),
    searchColumns(query.q, [reservationTypes.title, reservationTypes.slug]),
    query.status ? eq(reservationTypes.status, query.status as 'active') : undefined,
  )
  const total = db.select({ n: count() }).from(reservationTypes).where(where).get()?.n ?? 0
  const rows = db
    .select()
    .from(reservationTypes)
    .where(where)
    .orderBy(asc(sql`lower(${reservationTypes.title})`), asc(reservationTypes.id))
    .limit(query.limit)
    .offset(offsetOf(query))
    .all()
  return { reservationTypes: typeViews(db, rows), total }
}

type TypeFields = Omit<ReservationTypeRow, 'id' | 'createdAt' | 'updatedAt'>

/** Whole-record rules: guest limits in order, locations of this tenant, the default among the allowed. */
function typeProblems(db: Queryable, fields: TypeFields, input: UpdateReservationTypeInput): FieldError[] {
  const errors: FieldError[] = []
  if (fields.minGuestCount > fields.maxGuestCount)
    errors.push({
      path: 'body/minGuestCount',
      message: `minGuestCount ${fields.minGuestCount} exceeds maxGuestCount ${fields.maxGuestCount}`,
    })
  const single = ['inventoryLocationId', 'reservationLocationId', 'defaultReservationLocationId'] as const
  for (const key of single) {
    const id = fields[key]
    if (id && !findLocation(db, id))
      errors.push({ path: `body/${key}`, message: `no location ${id} in this tenant` })
  }
  fields.reservationLocationIds.forEach((id, i) => {
    if (!findLocation(db, id))
      errors.push({ path: `body/reservationLocationIds/${i}`, message: `no location ${id} in this tenant` })
  })
  const allowed = fields.reservationLocationIds
  const fallback = fields.defaultReservationLocationId
  if (fallback && allowed.length > 0 && !allowed.includes(fallback))
    errors.push({
      path: 'body/defaultReservationLocationId',
      message: 'must be one of reservationLocationIds',
    })
  if (fields.isAlwaysOccursInDefaultLocation && !fallback)
    errors.push({
      path: 'body/defaultReservationLocationId',
      message: 'required when isAlwaysOccursInDefaultLocation is true',
    })
  const days = new Set<string>()
  input.timeSlots?.forEach((slot, i) => {
    if (days.has(slot.dayOfWeek))
      errors.push({ path: `body/timeSlots/${i}/dayOfWeek`, message: `${slot.dayOfWeek} is listed twice` })
    days.add(slot.dayOfWeek)
    const times = new Set<string>()
    slot.times.forEach((time, j) => {
      if (times.has(time.time))
        errors.push({ path: `body/timeSlots/${i}/times/${j}/time`, message: `${time.time} is listed twice` })
      times.add(time.time)
    })
  })
  return errors
}

/** Replaces the options and time slots a request sends (each list only when sent). */
function replaceChildren(tx: Queryable, typeId: string, input: UpdateReservationTypeInput, now: string) {
  if (input.options) {
    tx.delete(reservationTypeOptions).where(eq(reservationTypeOptions.reservationTypeId, typeId)).run()
    input.options.forEach((option, i) => {
      tx.insert(reservationTypeOptions)
        .values({
          id: newId(),
          reservationTypeId: typeId,
          title: option.title.trim(),
          sku: option.sku ?? null,
          price: option.price,
          taxCode: option.taxCode ?? null,
          sortOrder: option.sortOrder ?? i,
          createdAt: now,
          updatedAt: now,
        })
        .run()
    })
  }
  if (input.timeSlots) {
    tx.delete(reservationTypeTimeSlots).where(eq(reservationTypeTimeSlots.reservationTypeId, typeId)).run()
    for (const slot of input.timeSlots) {
      const slotId = newId()
      tx.insert(reservationTypeTimeSlots)
        .values({
          id: slotId,
          reservationTypeId: typeId,
          dayOfWeek: slot.dayOfWeek,
          createdAt: now,
          updatedAt: now,
        })
        .run()
      for (const time of slot.times)
        tx.insert(reservationTypeTimes)
          .values({
            id: newId(),
            reservationTypeTimeSlotId: slotId,
            time: time.time,
            allowCustomersToReserveOnline: time.allowCustomersToReserveOnline ?? true,
            createdAt: now,
            updatedAt: now,
          })
          .run()
    }
  }
}

function scalarFields(input: UpdateReservationTypeInput) {
  const { options: _o, timeSlots: _t, ...fields } = input
  return fields
}

function assertValid(db: Queryable, fields: TypeFields, input: UpdateReservationTypeInput) {
  const errors = typeProblems(db, fields, input)
  if (errors.length > 0) throw new ApiError('validation_failed', errors[0]!.message, { errors })
}

export function createReservationType(
  db: Db,
  actor: Actor,
  scope: LocationScope,
  input: CreateReservationTypeInput,
): ReservationTypeView {
  return inWriteTransaction(db, (tx) => {
    if (input.slug && slugTaken(tx, reservationTypes, slugColumns, input.slug))
      throw conflict(`slug "${input.slug}" is already in use`)
    const fields: TypeFields = {
      title: input.title.trim(),
      slug: input.slug ?? uniqueSlug(tx, reservationTypes, slugColumns, input.title, 'reservation-type'),
      status: input.status ?? 'active',
      type: input.type ?? null,
      tourType: input.tourType ?? null,
      inventoryLocationId: input.inventoryLocationId ?? null,
      reservationLocationId: input.reservationLocationId ?? null,
      defaultReservationLocationId: input.defaultReservationLocationId ?? null,
      reservationLocationIds: input.reservationLocationIds ?? [],
      paymentCharge: input.paymentCharge ?? 'none',
      minGuestCount: input.minGuestCount ?? 1,
      maxGuestCount: input.maxGuestCount ?? 8,
      maxGroupCount: input.maxGroupCount ?? null,
      minutesAllotted: input.minutesAllotted ?? 60,
      minutesBeforeLocationInUse: input.minutesBeforeLocationInUse ?? 0,
      leadTimeInHours: input.leadTimeInHours ?? 0,
      isRequiresAHost: input.isRequiresAHost ?? false,
      isAlwaysOccursInDefaultLocation: input.isAlwaysOccursInDefaultLocation ?? false,
      allowOnlineCancel: input.allowOnlineCancel ?? false,
      onlineCancelDeadlineInHours: input.onlineCancelDeadlineInHours ?? null,
      emailInstructions: input.emailInstructions ?? null,
      content: input.content ?? null,
      image: input.image ?? null,
      seoTitle: input.seoTitle ?? null,
      seoDescription: input.seoDescription ?? null,
      metaData: input.metaData ?? null,
      security: input.security ?? null,
    }
    assertMayChange(scope, fields)
    assertValid(tx, fields, input)
    const now = nowIso()
    const row = tx
      .insert(reservationTypes)
      .values({ id: newId(), ...fields, createdAt: now, updatedAt: now })
      .returning()
      .get()
    replaceChildren(tx, row.id, input, now)
    const view = typeView(tx, row)
    recordWrite(tx, actor, {
      action: 'reservation_type.create',
      entityType: 'reservation_type',
      entityId: row.id,
      metadata: { reservationType: view },
    })
    return view
  })
}

export function updateReservationType(
  db: Db,
  actor: Actor,
  scope: LocationScope,
  id: string,
  input: UpdateReservationTypeInput,
): ReservationTypeView {
  return inWriteTransaction(db, (tx) => {
    const before = getReservationTypeRow(tx, id, scope)
    assertMayChange(scope, before)
    if (input.slug && slugTaken(tx, reservationTypes, slugColumns, input.slug, id))
      throw conflict(`slug "${input.slug}" is already in use`)
    const patch = scalarFields(input)
    const merged = {
      ...before,
      ...Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)),
    }
    assertMayChange(scope, merged)
    assertValid(tx, merged as TypeFields, input)
    const changes = diffFields(before, patch)
    const beforeView = typeView(tx, before)
    const now = nowIso()
    if (Object.keys(changes).length > 0)
      tx.update(reservationTypes)
        .set({ ...patch, updatedAt: now })
        .where(eq(reservationTypes.id, id))
        .run()
    replaceChildren(tx, id, input, now)
    if (input.options) changes.options = { from: beforeView.options, to: input.options }
    if (input.timeSlots) changes.timeSlots = { from: beforeView.timeSlots, to: input.timeSlots }
    if (Object.keys(changes).length === 0) return beforeView
    if (input.options || input.timeSlots)
      tx.update(reservationTypes).set({ updatedAt: now }).where(eq(reservationTypes.id, id)).run()
    recordWrite(tx, actor, {
      action: 'reservation_type.update',
      entityType: 'reservation_type',
      entityId: id,
      metadata: { changes },
    })
    return getReservationType(tx, id, scope)
  })
}

export function deleteReservationType(
  db: Db,
  actor: Actor,
  scope: LocationScope,
  id: string,
): ReservationTypeView {
  return inWriteTransaction(db, (tx) => {
    const before = getReservationTypeRow(tx, id, scope)
    assertMayChange(scope, before)
    const view = typeView(tx, before)
    const used =
      tx
        .select({ n: count() })
        .from(legacyReservations)
        .where(eq(legacyReservations.reservationTypeId, id))
        .get()?.n ?? 0
    if (used > 0)
      throw conflict(`reservation type ${id} has ${used} reservation(s); set it inactive instead`, {
        reservations: used,
      })
    tx.delete(reservationTypes).where(eq(reservationTypes.id, id)).run()
    recordWrite(tx, actor, {
      action: 'reservation_type.delete',
      entityType: 'reservation_type',
      entityId: id,
      metadata: { reservationType: view },
    })
    return view
  })
}
