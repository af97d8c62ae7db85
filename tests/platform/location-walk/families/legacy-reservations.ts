import { made, type WalkFamily } from '../family'
import { reservationTypeAt } from './reservation-types'

export const legacyReservations: WalkFamily = {
  name: 'legacy reservations',
  prefixes: ['/reservation'],
  located: true,
  async create(t, tenant, locationId) {
    const reservation = await made(t, tenant, 'POST', '/reservation', {
      reservationTypeId: await reservationTypeAt(t, tenant, locationId),
      // Staff may book outside the type's time slots: no slot arithmetic per time zone.
      isReservationDateOverride: true,
      reservationDate: new Date(Date.now() + 5 * 86_400_000).toISOString(),
      guestCount: 2,
      reservationLocationId: locationId,
      inventoryLocationId: locationId,
    })
    return { id: reservation.id }
  },
}
