import type { TenantFixture, TestApp } from '../../../harness'
import { made, type WalkFamily } from '../family'

/** A published experience at the location (schedules list published ones only). */
export async function publishedExperience(t: TestApp, tenant: TenantFixture, locationId: string) {
  const experience = await made(t, tenant, 'POST', '/tables/v1/experiences', { name: 'Dinner', locationId })
  await made(t, tenant, 'POST', `/tables/v1/experiences/${experience.data.id}/publish`, {
    publicName: 'Dinner',
    partyMin: 1,
    partyMax: 8,
    cutoffMinutes: 60,
    schedule: [{ daysOfWeek: [0, 1, 2, 3, 4, 5, 6], times: ['18:00'], capacity: 10 }],
  })
  return experience.data.id as string
}

export const experiences: WalkFamily = {
  name: 'experiences',
  prefixes: ['/tables/v1/experiences', '/tables/v1/schedules'],
  located: true,
  async create(t, tenant, locationId) {
    return { id: await publishedExperience(t, tenant, locationId) }
  },
}
