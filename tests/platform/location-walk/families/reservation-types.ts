import type { TenantFixture, TestApp } from '../../../harness'
import { made, type WalkFamily } from '../family'

/** A reservation type held at the location only. */
export async function reservationTypeAt(t: TestApp, tenant: TenantFixture, locationId: string) {
  const type = await made(t, tenant, 'POST', '/reservation-type', {
    title: 'Tasting',
    reservationLocationIds: [locationId],
    options: [{ title: 'Flight', price: 2500 }],
  })
  return type.id as string
}

export const reservationTypes: WalkFamily = {
  name: 'reservation types',
  prefixes: ['/reservation-type'],
  located: true,
  async create(t, tenant, locationId) {
    return { id: await reservationTypeAt(t, tenant, locationId) }
  },
}
