// How other families join in on customers without the customers module knowing them:
//
// - Reference movers: a merge moves every record that points at a source customer to the
//   primary. Each family that stores a customer id registers one mover, a synchronous function
//   `(tx, sourceId, primaryId) => count` run inside the merge transaction; the counts go into the
//   merge's audit entry. Tables referencing `customers.id` should declare the foreign key without
//   ON DELETE CASCADE, so a family that forgot to register makes the merge fail (409) rather than
//   lose rows when the source customer is deleted.
// - Reference counts: a family whose table cannot carry that foreign key (it predates the
//   customers table, or rebuilding it would drop its triggers) registers a counter of its rows
//   pointing at a customer instead. Deleting a customer that any counter finds is refused (409
//   naming the kinds and counts), and a merge checks after the movers ran that nothing counted
//   still points at a source, so a counter without a mover fails the merge the same way.
// - Payment-method uses: a stored card that something live still charges (an active club
//   membership) cannot be removed. Each family that references cards registers a counter.
// - Location links: `GET /customers?locationId=` returns customers created at the location plus
//   those any family links to it (memberships, orders, reservations). Each family registers a
//   subquery selecting customer ids for a location.
import type { SQLWrapper } from 'drizzle-orm'
import type { Queryable } from '../../platform/tenancy/transaction'

export type CustomerReferenceMover = (tx: Queryable, sourceId: string, primaryId: string) => number

export type CustomerLocationLink = (db: Queryable, locationId: string) => SQLWrapper

const movers = new Map<string, CustomerReferenceMover>()
const locationLinks = new Map<string, CustomerLocationLink>()

/** Registers (or replaces) the mover for one kind of record, e.g. `clubMemberships`; answers its removal. */
export function registerCustomerReferenceMover(kind: string, mover: CustomerReferenceMover): () => void {
  movers.set(kind, mover)
  return () => {
    if (movers.get(kind) === mover) movers.delete(kind)
  }
}

export function customerReferenceMovers(): ReadonlyMap<string, CustomerReferenceMover> {
  return movers
}

/** Registers (or replaces) a subquery of customer ids associated with a location. */
export function registerCustomerLocationLink(kind: string, link: CustomerLocationLink): void {
  locationLinks.set(kind, link)
}

export function customerLocationLinks(): ReadonlyMap<string, CustomerLocationLink> {
  return locationLinks
}

export type PaymentMethodUse = (db: Queryable, paymentMethodId: string) => number

const paymentMethodUses = new Map<string, PaymentMethodUse>()

/** Registers (or replaces) a counter of live records that charge a stored card. */
export function registerPaymentMethodUse(kind: string, use: PaymentMethodUse): void {
  paymentMethodUses.set(kind, use)
}

/** `{kind: count}` of the live uses of a stored card; empty when nothing uses it. */
export function paymentMethodUsesOf(db: Queryable, paymentMethodId: string): Record<string, number> {
  const uses: Record<string, number> = {}
  for (const [kind, use] of paymentMethodUses) {
    const n = use(db, paymentMethodId)
    if (n > 0) uses[kind] = n
  }
  return uses
}

export type CustomerReferenceCount = (db: Queryable, customerId: string) => number

const referenceCounts = new Map<string, CustomerReferenceCount>()

/** Registers (or replaces) a counter of one kind of record pointing at a customer, e.g. `notes`; answers its removal. */
export function registerCustomerReferenceCount(kind: string, counter: CustomerReferenceCount): () => void {
  referenceCounts.set(kind, counter)
  return () => {
    if (referenceCounts.get(kind) === counter) referenceCounts.delete(kind)
  }
}

/** `{kind: count}` of the registered records still pointing at a customer; empty when none do. */
export function customerReferencesOf(db: Queryable, customerId: string): Record<string, number> {
  const found: Record<string, number> = {}
  for (const [kind, counter] of referenceCounts) {
    const n = counter(db, customerId)
    if (n > 0) found[kind] = n
  }
  return found
}
