// How club memberships join the customers family: merges move them, they link customers to the
// location they signed up at, tags attach to them, and a card an active membership charges cannot be removed. Also
// recomputes next process dates when a club's cadence changes, and names a customer's clubs to
// orders, for coupons available to a club (lent: club-memberships reaches orders through
// club-releases, so orders cannot import it).
import { and, count, eq, ne } from 'drizzle-orm'
import type { WriteRecord } from '../../platform/audit/record-write'
import { onClubCadenceChange } from '../clubs'
import {
  registerCustomerLocationLink,
  registerCustomerReferenceMover,
  registerPaymentMethodUse,
} from '../customers'
import { lendToOrders } from '../orders'
import { registerDynamicSource, registerTaggable } from '../tags'
import { clubMemberships } from './schema'
import { clubIdsOfCustomer, rescheduleMemberships } from './service'

/** Registers what the family lends the others (its manifest's `hooks`, index.ts). */
export function registerClubMembershipsHooks(): void {
  registerCustomerReferenceMover(
    'clubMemberships',
    (tx, sourceId, primaryId) =>
      tx
        .update(clubMemberships)
        .set({ customerId: primaryId })
        .where(eq(clubMemberships.customerId, sourceId))
        .returning({ id: clubMemberships.id })
        .all().length,
  )

  // Club-membership tags attach through the tags family's service to memberships of this tenant.
  registerTaggable(
    'club-membership',
    (db, id) =>
      db.select({ id: clubMemberships.id }).from(clubMemberships).where(eq(clubMemberships.id, id)).get() !==
      undefined,
  )

  /** The memberships a write changed: its own record, or those its events name (a club's reschedule). */
  const membershipWritten = (write: WriteRecord): string[] => [
    ...(write.entityType === 'club_membership' && write.entityId ? [write.entityId] : []),
    ...(write.events ?? []).flatMap((e) =>
      e.object === 'club_membership' && e.aggregateId ? [e.aggregateId] : [],
    ),
  ]

  // Dynamic club-membership tags test the membership's fields.
  registerDynamicSource('club-membership', {
    ids: (db) =>
      db
        .select({ id: clubMemberships.id })
        .from(clubMemberships)
        .all()
        .map((r) => r.id),
    present: (db, id) => db.select().from(clubMemberships).where(eq(clubMemberships.id, id)).get(),
    changedBy: (_db, write) => membershipWritten(write),
  })

  // Dynamic customer tags may test how many memberships (not cancelled) a customer holds.
  registerDynamicSource('customer', {
    present: (db, customerId) => ({
      clubMembershipCount:
        db
          .select({ n: count() })
          .from(clubMemberships)
          .where(and(eq(clubMemberships.customerId, customerId), ne(clubMemberships.status, 'Cancelled')))
          .get()?.n ?? 0,
    }),
    changedBy: (db, write) =>
      membershipWritten(write).flatMap(
        (id) =>
          db
            .select({ customerId: clubMemberships.customerId })
            .from(clubMemberships)
            .where(eq(clubMemberships.id, id))
            .get()?.customerId ?? [],
      ),
  })

  registerCustomerLocationLink('clubMemberships', (db, locationId) =>
    db
      .select({ id: clubMemberships.customerId })
      .from(clubMemberships)
      .where(eq(clubMemberships.locationId, locationId)),
  )

  registerPaymentMethodUse(
    'clubMemberships',
    (db, paymentMethodId) =>
      db
        .select({ n: count() })
        .from(clubMemberships)
        .where(
          and(
            eq(clubMemberships.customerCreditCardId, paymentMethodId),
            ne(clubMemberships.status, 'Cancelled'),
          ),
        )
        .get()?.n ?? 0,
  )

  onClubCadenceChange('clubMemberships', (tx, actor, clubId) =>
    rescheduleMemberships(tx, actor, clubId, 'cadence'),
  )

  lendToOrders({ customerClubIds: clubIdsOfCustomer })
}
