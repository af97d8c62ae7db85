// What a legacy reservation must satisfy against its reservation type: guest limits, the type's
// locations, a weekly time slot (open online when the customer books), lead time, the option,
// and the number of groups one start time takes. Overrides lift a rule for staff bookings.
import { and, count, eq, ne, notInArray } from 'drizzle-orm'
import { ApiError, conflict, type FieldError } from '../../platform/foundation/problem'
import type { Queryable } from '../../platform/tenancy/transaction'
import { findLocation } from '../locations'
import {
  type daysOfWeek,
  legacyReservations,
  type ReservationTypeOptionRow,
  type ReservationTypeRow,
  reservationTypeOptions,
  reservationTypeTimeSlots,
  reservationTypeTimes,
} from './schema'

export interface Booking {
  reservationDate: string
  guestCount: number
  reservationLocationId: string
  inventoryLocationId: string
  reservationTypeOptionId: string | null
  channel: string
  isReservationDateOverride: boolean
  isReservationLocationOverride: boolean
  isGuestCountOverride: boolean
}

/** Local date, weekday and `HH:MM` of an instant in a time zone. */
export function localParts(instant: Date, timeZone: string) {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    weekday: 'long',
  }).formatToParts(instant)
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? ''
  return {
    date: `${part('year')}-${part('month')}-${part('day')}`,
    dayOfWeek: part('weekday') as (typeof daysOfWeek)[number],
    time: `${part('hour')}:${part('minute')}`,
    onTheMinute: part('second') === '00' && instant.getUTCMilliseconds() === 0,
  }
}

export interface Checked {
  businessDate: string
  option: ReservationTypeOptionRow | null
}

/**
 * Checks a booking against its type; every field problem at once (400), then the group limit
 * (409). `exceptId` leaves the reservation being changed out of the group count.
 */
export function checkAgainstType(
  db: Queryable,
  type: ReservationTypeRow,
  booking: Booking,
  options: { now: Date; exceptId?: string },
): Checked {
  const errors: FieldError[] = []
  const online = booking.channel === 'Web'
  if (online) {
    for (const flag of [
      'isReservationDateOverride',
      'isReservationLocationOverride',
      'isGuestCountOverride',
    ] as const)
      if (booking[flag])
        errors.push({ path: `body/${flag}`, message: 'overrides are for staff bookings, not channel Web' })
  }
  if (type.status !== 'active')
    errors.push({ path: 'body/reservationTypeId', message: `reservation type ${type.title} is inactive` })

  if (
    !booking.isGuestCountOverride &&
    (booking.guestCount < type.minGuestCount || booking.guestCount > type.maxGuestCount)
  )
    errors.push({
      path: 'body/guestCount',
      message: `${type.title} takes ${type.minGuestCount}..${type.maxGuestCount} guests`,
    })

  const location = findLocation(db, booking.reservationLocationId)
  if (!location)
    errors.push({
      path: 'body/reservationLocationId',
      message: `no location ${booking.reservationLocationId} in this tenant`,
    })
  else if (!booking.isReservationLocationOverride) {
    if (
      type.isAlwaysOccursInDefaultLocation &&
      booking.reservationLocationId !== type.defaultReservationLocationId
    )
      errors.push({
        path: 'body/reservationLocationId',
        message: `${type.title} always occurs in its default location`,
      })
    else if (
      type.reservationLocationIds.length > 0 &&
      !type.reservationLocationIds.includes(booking.reservationLocationId)
    )
      errors.push({
        path: 'body/reservationLocationId',
        message: `${type.title} is not held at this location`,
      })
  }
  if (!findLocation(db, booking.inventoryLocationId))
    errors.push({
      path: 'body/inventoryLocationId',
      message: `no location ${booking.inventoryLocationId} in this tenant`,
    })

  let option: ReservationTypeOptionRow | null = null
  if (booking.reservationTypeOptionId) {
    option =
      db
        .select()
        .from(reservationTypeOptions)
        .where(
          and(
            eq(reservationTypeOptions.id, booking.reservationTypeOptionId),
            eq(reservationTypeOptions.reservationTypeId, type.id),
          ),
        )
        .get() ?? null
    if (!option)
      errors.push({
        path: 'body/reservationTypeOptionId',
        message: `not an option of reservation type ${type.title}`,
      })
  }

  const start = new Date(booking.reservationDate)
  const timeZone = location?.timezone ?? 'UTC'
  const local = localParts(start, timeZone)
  if (!booking.isReservationDateOverride) {
    const slot = db
      .select({ allowOnline: reservationTypeTimes.allowCustomersToReserveOnline })
      .from(reservationTypeTimes)
      .innerJoin(
        reservationTypeTimeSlots,
        eq(reservationTypeTimeSlots.id, reservationTypeTimes.reservationTypeTimeSlotId),
      )
      .where(
        and(
          eq(reservationTypeTimeSlots.reservationTypeId, type.id),
          eq(reservationTypeTimeSlots.dayOfWeek, local.dayOfWeek),
          eq(reservationTypeTimes.time, local.time),
        ),
      )
      .get()
    if (!slot || !local.onTheMinute)
      errors.push({
        path: 'body/reservationDate',
        message: `${type.title} has no time slot on ${local.dayOfWeek} at ${local.time} (${timeZone})`,
      })
    else if (online && !slot.allowOnline)
      errors.push({
        path: 'body/reservationDate',
        message: `the ${local.dayOfWeek} ${local.time} slot of ${type.title} is not open for online booking`,
      })
    const earliest = options.now.getTime() + type.leadTimeInHours * 3_600_000
    if (start.getTime() < earliest)
      errors.push({
        path: 'body/reservationDate',
        message:
          type.leadTimeInHours > 0
            ? `${type.title} must be booked at least ${type.leadTimeInHours} hour(s) ahead`
            : 'the reservation date has passed',
      })
  }
  if (errors.length > 0) throw new ApiError('validation_failed', errors[0]!.message, { errors })

  if (type.maxGroupCount !== null) {
    const groups =
      db
        .select({ n: count() })
        .from(legacyReservations)
        .where(
          and(
            eq(legacyReservations.reservationTypeId, type.id),
            eq(legacyReservations.reservationDate, start.toISOString()),
            notInArray(legacyReservations.status, ['Cancelled', 'No Show']),
            options.exceptId ? ne(legacyReservations.id, options.exceptId) : undefined,
          ),
        )
        .get()?.n ?? 0
    if (groups >= type.maxGroupCount)
      throw conflict(
        `${type.title} at ${local.time} on ${local.date} is full (${type.maxGroupCount} group(s))`,
        {
          maxGroupCount: type.maxGroupCount,
        },
      )
  }
  return { businessDate: local.date, option }
}
