// Named queries of customers' tables that other families ask through the front door (index.ts).
import { and, desc, eq, inArray, type SQL, sql } from 'drizzle-orm'
import { searchColumns } from '../../platform/foundation/paging'
import type { Queryable } from '../../platform/tenancy/transaction'
import {
  type AddressRow,
  type CustomerRow,
  customerAddresses,
  customerPaymentMethods,
  customers,
  type PaymentMethodRow,
} from './schema'

/** An address of a customer's, by id; undefined when it is not one of theirs (or none). */
export const findCustomerAddress = (
  db: Queryable,
  customerId: string,
  addressId: string,
): AddressRow | undefined =>
  db
    .select()
    .from(customerAddresses)
    .where(and(eq(customerAddresses.id, addressId), eq(customerAddresses.customerId, customerId)))
    .get()

/** A customer's addresses, the newest first. */
export const addressesOfCustomer = (db: Queryable, customerId: string): AddressRow[] =>
  db
    .select()
    .from(customerAddresses)
    .where(eq(customerAddresses.customerId, customerId))
    .orderBy(desc(customerAddresses.createdAt), desc(customerAddresses.id))
    .all()

/** The ids of the customers holding an externalRef (the id in a system imported from), at most two. */
export const customerIdsByExternalRef = (db: Queryable, externalRef: string): string[] =>
  db
    .select({ id: customers.id })
    .from(customers)
    .where(eq(customers.externalRef, externalRef))
    .limit(2)
    .all()
    .map((c) => c.id)

/** An address by id, whoever's it is. */
export const findAddress = (db: Queryable, addressId: string): AddressRow | undefined =>
  db.select().from(customerAddresses).where(eq(customerAddresses.id, addressId)).get()

/** A stored card of a customer's, by id; undefined when it is not one of theirs (or none). */
export const findCustomerPaymentMethod = (
  db: Queryable,
  customerId: string,
  paymentMethodId: string,
): PaymentMethodRow | undefined =>
  db
    .select()
    .from(customerPaymentMethods)
    .where(
      and(eq(customerPaymentMethods.id, paymentMethodId), eq(customerPaymentMethods.customerId, customerId)),
    )
    .get()

/** The customers of these ids that exist (merged-away ids are not followed). */
export function customersByIds(db: Queryable, ids: readonly string[]): Map<string, CustomerRow> {
  if (ids.length === 0) return new Map()
  return new Map(
    db
      .select()
      .from(customers)
      .where(inArray(customers.id, [...new Set(ids)]))
      .all()
      .map((c) => [c.id, c]),
  )
}

/**
 * SQL for the ids of the customers whose first or last name or email contains `q` (a
 * parenthesised subquery); undefined for no `q`.
 */
export function customerIdsMatching(q: string | undefined): SQL | undefined {
  const match = searchColumns(q, [customers.firstName, customers.lastName, customers.email])
  return match && sql`(SELECT ${customers.id} FROM ${customers} WHERE ${match})`
}

/**
 * orders (their imports): the customers whose externalRef is this one, at most two (more than one
 * is ambiguous for the caller to refuse).
 */
export const customersByExternalRef = (db: Queryable, externalRef: string): CustomerRow[] =>
  db.select().from(customers).where(eq(customers.externalRef, externalRef)).limit(2).all()
