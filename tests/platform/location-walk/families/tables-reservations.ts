import { newId } from '../../../../src/platform/foundation/ids'
import { made, type WalkFamily } from '../family'
import { publishedExperience } from './experiences'

export const tablesReservations: WalkFamily = {
  name: 'tables reservations',
  prefixes: [
    '/tables-api/v1/locations/:locationId/availability',
    '/tables-api/v1/locations/:locationId/reservations',
  ],
  located: true,
  async create(t, tenant, locationId) {
    const experienceId = await publishedExperience(t, tenant, locationId)
    // Five days on is a bookable local date in any time zone.
    const date = new Date(Date.now() + 5 * 86_400_000).toISOString().slice(0, 10)
    const at = `/tables-api/v1/locations/${locationId}`
    const offered = await made(
      t,
      tenant,
      'GET',
      `${at}/availability?date=${date}&partySize=2&experienceId=${experienceId}`,
    )
    const booked = await made(
      t,
      tenant,
      'POST',
      `${at}/reservations`,
      {
        optionToken: offered.data[0].optionToken,
        guest: { name: 'Ada Lovelace', email: 'ada@example.test' },
      },
      { 'idempotency-key': newId() },
    )
    return { reservationId: booked.data.id }
  },
}
