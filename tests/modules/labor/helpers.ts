import { expect } from 'bun:test'
import type { StaffFixture, TestApp } from '../../harness'

export async function ok(t: TestApp, method: string, path: string, body?: unknown, as?: StaffFixture) {
  const res = await t.request(method, path, { body, as })
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`)
  return res.body
}

/** A job (owner-created) and its assignment to a staff user at the tenant's location. */
export async function jobFor(
  t: TestApp,
  staff: StaffFixture,
  job: Record<string, unknown> = {},
  assignment: Record<string, unknown> = {},
) {
  const created = await ok(t, 'POST', '/labor/jobs', { title: 'Server', defaultWageAmount: 1800, ...job })
  const assigned = await ok(t, 'POST', '/labor/job-assignments', {
    staffUserId: staff.id,
    laborJobId: created.id,
    locationId: t.tenant.locationId,
    ...assignment,
  })
  expect(assigned.active).toBe(true)
  return { job: created, assignment: assigned }
}
