// How reservations join other families: a customer merge moves legacy reservations to the
// primary, a reservation links its customer to the reservation location (`GET
// /customers?locationId=`), and tags attach to reservations of either kind (legacy `/reservation`
// and tables-API) by id.
import { eq } from 'drizzle-orm'
import { registerCustomerLocationLink, registerCustomerReferenceMover } from '../customers'
import { tablesReservationExists } from '../tables-reservations'
import { registerDynamicSource, registerTaggable } from '../tags'
import { legacyReservations } from './schema'

/** Registers what the family lends the others (its manifest's `hooks`, index.ts). */
export function registerLegacyReservationsHooks(): void {
  registerCustomerReferenceMover(
    'reservations',
    (tx, sourceId, primaryId) =>
      tx
        .update(legacyReservations)
        .set({ customerId: primaryId })
        .where(eq(legacyReservations.customerId, sourceId))
        .returning({ id: legacyReservations.id })
        .all().length,
  )

  registerCustomerLocationLink('reservations', (db, locationId) =>
    db
      .select({ id: legacyReservations.customerId })
      .from(legacyReservations)
      .where(eq(legacyReservations.reservationLocationId, locationId)),
  )

  registerTaggable(
    'reservation',
    (db, objectId) =>
      db
        .select({ id: legacyReservations.id })
        .from(legacyReservations)
        .where(eq(legacyReservations.id, objectId))
        .get() !== undefined || tablesReservationExists(db, objectId),
  )

  // Dynamic reservation tags test legacy reservations (`/reservation`); `locationId` is the
  // reservation location.
  registerDynamicSource('reservation', {
    ids: (db) =>
      db
        .select({ id: legacyReservations.id })
        .from(legacyReservations)
        .all()
        .map((r) => r.id),
    present: (db, id) => {
      const row = db.select().from(legacyReservations).where(eq(legacyReservations.id, id)).get()
      return row && { ...row, locationId: row.reservationLocationId }
    },
    changedBy: (_db, write) =>
      write.entityType === 'legacy_reservation' && write.entityId ? [write.entityId] : [],
  })
}
