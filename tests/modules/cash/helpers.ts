// Shared steps of the cash and payments tests.
import type { StaffFixture, TenantFixture, TestApp, TestResponse } from '../../harness'

export async function ok(res: Promise<TestResponse>, status = 200) {
  const r = await res
  if (r.status !== status) throw new Error(`expected ${status}, got ${r.status}: ${r.text}`)
  return r.body
}

export function openDrawer(
  t: TestApp,
  body: Record<string, unknown> = {},
  options: { as?: StaffFixture; tenant?: TenantFixture } = {},
) {
  const tenant = options.tenant ?? t.tenant
  return ok(
    t.request('POST', '/cash-management/drawers', {
      as: options.as ?? tenant.owner,
      tenant,
      body: { locationId: tenant.locationId, label: 'Bar', startingBalance: 10_000, ...body },
    }),
    201,
  )
}

export function addEntry(t: TestApp, drawerId: string, body: Record<string, unknown>, as?: StaffFixture) {
  return t.request('POST', `/cash-management/drawers/${drawerId}/entries`, { body, as })
}

export async function drawer(t: TestApp, id: string) {
  return ok(t.request('GET', `/cash-management/drawers/${id}`))
}
