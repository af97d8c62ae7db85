// The customers export (`GET /exports/customers`): one row per customer, with its tags and its
// first address, by creation time. Customers belong to no location: every caller with
// customers:read exports them all.
import { asc, inArray } from 'drizzle-orm'
import {
  type ExportQuery,
  type ExportSource,
  nextCursor,
  pageCondition,
} from '../../platform/http/export-stream'
import type { Queryable } from '../../platform/tenancy/transaction'
import { tagsForMany } from '../tags'
import { type AddressRow, customerAddresses, customers } from './schema'

const columns = [
  'id',
  'externalRef',
  'firstName',
  'lastName',
  'email',
  'phone',
  'status',
  'marketingOptIn',
  'company',
  'jobTitle',
  'birthDate',
  'tags',
  'addressLine1',
  'addressLine2',
  'addressCity',
  'addressRegion',
  'addressPostalCode',
  'addressCountryCode',
  'createdAt',
  'updatedAt',
] as const

function page(db: Queryable, query: ExportQuery) {
  const rows = db
    .select()
    .from(customers)
    .where(pageCondition(query, customers.createdAt, customers.id))
    .orderBy(asc(customers.createdAt), asc(customers.id))
    .limit(query.limit)
    .all()
  const ids = rows.map((row) => row.id)
  const tags = tagsForMany(db, 'customer', ids)
  const firstAddress = new Map<string, AddressRow>()
  if (ids.length > 0)
    for (const address of db
      .select()
      .from(customerAddresses)
      .where(inArray(customerAddresses.customerId, ids))
      .orderBy(asc(customerAddresses.createdAt), asc(customerAddresses.id))
      .all())
      if (!firstAddress.has(address.customerId)) firstAddress.set(address.customerId, address)
  return {
    rows: rows.map((row) => {
      const address = firstAddress.get(row.id)
      return {
        id: row.id,
        externalRef: row.externalRef,
        firstName: row.firstName,
        lastName: row.lastName,
        email: row.email,
        phone: row.phone,
        status: row.status,
        marketingOptIn: row.marketingOptIn,
        company: row.company,
        jobTitle: row.jobTitle,
        birthDate: row.birthDate,
        tags: (tags.get(row.id) ?? []).map((tag) => tag.title).join('; '),
        addressLine1: address?.line1 ?? null,
        addressLine2: address?.line2 ?? null,
        addressCity: address?.city ?? null,
        addressRegion: address?.region ?? null,
        addressPostalCode: address?.postalCode ?? null,
        addressCountryCode: address?.countryCode ?? null,
        createdAt: row.createdAt,
        updatedAt: row.updatedAt,
      }
    }),
    next: nextCursor(rows, query.limit, (row) => row.createdAt),
  }
}

export const customerExport: ExportSource = { columns, page }
