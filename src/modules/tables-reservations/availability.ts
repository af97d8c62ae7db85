// Availability: the bookable options of a location on a date for a party size, each with a
// signed option token that create redeems.
import { notFound } from '../../platform/foundation/problem'
import type { Db } from '../../platform/tenancy/databases'
import {
  type Bookable,
  bookableExperiences,
  experienceByPrivateLink,
  occurrencesOn,
  paymentRequiredOptions,
} from '../experiences'
import { getLocation } from '../locations'
import { bookedCovers } from './service'
import { type OptionClaims, signOptionToken } from './tokens'

export interface AvailabilityQuery {
  date: string
  partySize: number
  experienceId?: string
  privateLink?: string
}

export async function availability(
  db: Db,
  locationId: string,
  query: AvailabilityQuery,
  now: Date = new Date(),
) {
  const location = getLocation(db, locationId)
  let candidates: Bookable[]
  if (query.privateLink !== undefined) {
    const experience = experienceByPrivateLink(db, query.privateLink)
    if (experience.locationId !== locationId || (query.experienceId && query.experienceId !== experience.id))
      throw notFound('private link')
    candidates = bookableExperiences(db, { locationId, experienceId: experience.id })
  } else {
    candidates = bookableExperiences(db, { locationId, experienceId: query.experienceId }).filter(
      (c) => c.version.visibility === 'public',
    )
  }

  const options: (OptionClaims & {
    name: string
    endsAt: string
    businessDate: string
    remaining: number
  })[] = []
  for (const { experience, version } of candidates) {
    if (query.partySize < version.partyMin || query.partySize > version.partyMax) continue
    for (const slot of occurrencesOn(version, query.date, location.timezone)) {
      const closesAt = Date.parse(slot.startsAt) - version.cutoffMinutes * 60_000
      if (now.getTime() > closesAt) continue
      const remaining = slot.capacity - bookedCovers(db, experience.id, slot.startsAt)
      if (remaining < query.partySize) continue
      const subtotal = slot.priceAmount * query.partySize
      options.push({
        experienceId: experience.id,
        experienceVersionId: version.id,
        locationId,
        startsAt: slot.startsAt,
        partySize: query.partySize,
        currency: slot.currency,
        subtotalAmount: subtotal,
        taxAmount: 0,
        totalAmount: subtotal,
        paymentOption: slot.paymentOption,
        name: version.publicName,
        endsAt: slot.endsAt,
        businessDate: slot.businessDate,
        remaining,
      })
    }
  }
  options.sort((a, b) => a.startsAt.localeCompare(b.startsAt) || a.name.localeCompare(b.name))

  const data = await Promise.all(
    options.map(async ({ name, endsAt, businessDate, remaining, ...claims }) => {
      const signed = await signOptionToken(db, claims, now)
      return {
        optionToken: signed.token,
        expiresAt: signed.expiresAt,
        experienceId: claims.experienceId,
        experienceVersionId: claims.experienceVersionId,
        name,
        businessDate,
        startsAt: claims.startsAt,
        endsAt,
        partySize: claims.partySize,
        remainingCapacity: remaining,
        paymentOption: claims.paymentOption,
        paymentRequired: paymentRequiredOptions.includes(claims.paymentOption),
        booking: {
          method: claims.paymentOption,
          currency: claims.currency,
          subtotalAmount: claims.subtotalAmount,
          taxAmount: claims.taxAmount,
          totalAmount: claims.totalAmount,
        },
      }
    }),
  )
  return { data, timeZone: location.timezone }
}
