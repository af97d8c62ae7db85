import { addDays } from '../../../src/modules/experiences/clock'
import { todayIn } from '../../../src/platform/foundation/dates'
import type { StaffFixture, TenantFixture, TestApp } from '../../harness'

export const ALL_DAYS = [0, 1, 2, 3, 4, 5, 6]

/** A local date `days` from today at the test location (America/Los_Angeles). */
export const inDays = (days: number) => addDays(todayIn('America/Los_Angeles'), days)

export interface SlotSpec {
  daysOfWeek?: number[]
  times?: string[]
  capacity?: number
  priceAmount?: number
  paymentOption?: string
  currency?: string
}

export interface PublishSpec {
  tenant?: TenantFixture
  name?: string
  slots?: SlotSpec[]
  partyMin?: number
  partyMax?: number
  cutoffMinutes?: number
  visibility?: 'public' | 'private'
  as?: StaffFixture
}

/** Publishes a (new) version of an experience; answers the version id. */
export async function publish(t: TestApp, id: string, options: PublishSpec = {}) {
  const tenant = options.tenant ?? t.tenant
  const slots = (options.slots ?? [{}]).map((s) => ({
    daysOfWeek: s.daysOfWeek ?? ALL_DAYS,
    times: s.times ?? ['18:00', '19:30'],
    capacity: s.capacity ?? 10,
    ...(s.priceAmount !== undefined ? { priceAmount: s.priceAmount } : {}),
    ...(s.paymentOption !== undefined ? { paymentOption: s.paymentOption } : {}),
    ...(s.currency !== undefined ? { currency: s.currency } : {}),
  }))
  const published = await t.request('POST', `/tables/v1/experiences/${id}/publish`, {
    as: options.as ?? tenant.owner,
    tenant,
    body: {
      publicName: options.name ?? 'Dinner',
      partyMin: options.partyMin ?? 1,
      partyMax: options.partyMax ?? 8,
      cutoffMinutes: options.cutoffMinutes ?? 60,
      ...(options.visibility ? { visibility: options.visibility } : {}),
      schedule: slots,
    },
  })
  if (published.status !== 201) throw new Error(`publish failed: ${published.text}`)
  return published.body.data.id as string
}

/** Creates and publishes an experience at the tenant's location; answers its id and version. */
export async function publishedExperience(t: TestApp, options: PublishSpec = {}) {
  const tenant = options.tenant ?? t.tenant
  const created = await t.request('POST', '/tables/v1/experiences', {
    as: options.as ?? tenant.owner,
    tenant,
    body: { name: options.name ?? 'Dinner', locationId: tenant.locationId },
  })
  if (created.status !== 201) throw new Error(`create failed: ${created.text}`)
  const id = created.body.data.id as string
  return { id, versionId: await publish(t, id, options) }
}

export const tablesPath = (locationId: string, rest = '') => `/tables-api/v1/locations/${locationId}${rest}`

/** The availability options of the tenant's location. */
export async function options(
  t: TestApp,
  query: { date: string; partySize: number; experienceId?: string; privateLink?: string },
  as: StaffFixture | string = t.tenant.owner,
  tenant: TenantFixture = t.tenant,
) {
  const params = new URLSearchParams(
    Object.entries(query)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k, String(v)] as [string, string]),
  )
  return t.request('GET', tablesPath(tenant.locationId, `/availability?${params}`), { as, tenant })
}

let keyCounter = 0
export const newKey = () => `test-key-${Date.now()}-${++keyCounter}`

/** Books the first option offered for `partySize` on `date`. */
export async function book(
  t: TestApp,
  input: { date: string; partySize?: number; as?: StaffFixture | string; key?: string; token?: string },
) {
  let token = input.token
  if (!token) {
    const offered = await options(t, { date: input.date, partySize: input.partySize ?? 2 }, input.as)
    if (offered.status !== 200 || offered.body.data.length === 0)
      throw new Error(`no options: ${offered.status} ${offered.text}`)
    token = offered.body.data[0].optionToken as string
  }
  return t.request('POST', tablesPath(t.tenant.locationId, '/reservations'), {
    as: input.as,
    headers: { 'idempotency-key': input.key ?? newKey() },
    body: { optionToken: token, guest: { name: 'Ada Lovelace', email: 'ada@example.test' } },
  })
}
