import { type LocationScope, reaches } from '../../platform/auth/location-scope'
import { ApiError, notFound } from '../../platform/foundation/problem'
import type { Tenant } from '../../platform/tenancy/tenants'
import type { Queryable } from '../../platform/tenancy/transaction'
import { findLocation, type LocationRow, reachableLocationsPage } from '../locations'

const address = (row: LocationRow) => ({
  address1: row.addressLine1,
  address2: row.addressLine2,
  city: row.city,
  stateCode: row.stateCode,
  zipCode: row.postalCode,
  country: row.countryCode,
  phone: row.phone,
})

export const asRestaurant = (tenant: Tenant, row: LocationRow) => ({
  id: row.id,
  restaurantGuid: row.id,
  managementGroupGuid: tenant.id,
  name: row.name,
  restaurantName: tenant.name,
  locationName: row.name,
  timeZone: row.timezone,
  address: address(row),
  createdDate: row.createdAt,
  modifiedDate: row.updatedAt,
})

/** Restaurants the caller may see: every location, or only those a location-bound caller reaches. */
export const listRestaurants = (db: Queryable, tenant: Tenant, scope: LocationScope) =>
  reachableLocationsPage(db, scope).rows.map((row) => asRestaurant(tenant, row))

interface Cursor {
  /** Last location id of the previous page (ids are UUID v7: ordered by creation). */
  after: string
  page: number
}

const encode = (cursor: Cursor) => Buffer.from(JSON.stringify(cursor)).toString('base64url')

function decode(token: string): Cursor {
  try {
    const value = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'))
    if (typeof value?.after === 'string' && Number.isSafeInteger(value?.page) && value.page >= 2) return value
  } catch {}
  throw new ApiError('validation_failed', 'pageToken is not a token this service issued', {
    errors: [{ path: 'pageToken', message: 'unknown or malformed page token' }],
  })
}

/**
 * Keyset pages over locations by id: a location created while a partner pages through is never
 * skipped or repeated. The token is opaque to callers.
 */
export function connectedRestaurants(
  db: Queryable,
  tenant: Tenant,
  scope: LocationScope,
  query: { pageSize?: number; pageToken?: string },
) {
  const pageSize = query.pageSize ?? 100
  const cursor = query.pageToken ? decode(query.pageToken) : null
  const { rows, total } = reachableLocationsPage(db, scope, { after: cursor?.after, limit: pageSize + 1 })
  const more = rows.length > pageSize
  const page = rows.slice(0, pageSize)
  const pageNum = cursor?.page ?? 1
  return {
    results: page.map((row) => asRestaurant(tenant, row)),
    pageSize,
    currentPageNum: pageNum,
    currentPageToken: query.pageToken ?? null,
    nextPageToken: more ? encode({ after: page[page.length - 1]!.id, page: pageNum + 1 }) : null,
    totalResultCount: total,
    lastPage: !more,
  }
}

export function getRestaurant(db: Queryable, tenant: Tenant, scope: LocationScope, id: string) {
  const row = findLocation(db, id)
  if (!row || !reaches(scope, row.id)) throw notFound('restaurant', id)
  return {
    guid: row.id,
    general: {
      name: tenant.name,
      locationName: row.name,
      timeZone: row.timezone,
      managementGroupGuid: tenant.id,
      currencyCode: 'USD',
      closeoutHour: 0,
    },
    location: address(row),
    createdDate: row.createdAt,
    modifiedDate: row.updatedAt,
  }
}
