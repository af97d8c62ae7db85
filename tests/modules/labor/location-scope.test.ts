// Labor under the location rule, for a caller bound to location A (a manager whose only role is
// there, or a `vps_` passcode session there). Jobs at B and assignments at B do not exist for
// them; jobs of every location are seen by all but shaped only tenant-wide; employees who work
// only at B are 404, and the others show only their jobs and open shift at A.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { boundCallers } from '../../bound-callers'
import { countRows, createTestApp, type StaffFixture, type TestApp } from '../../harness'
import { ok } from './helpers'

let t: TestApp
let A: string
let B: string
let jobA: any
let jobB: any
let jobEverywhere: any
let atA: any
let atB: any
let workerA: StaffFixture
let workerB: StaffFixture

beforeEach(async () => {
  t = await createTestApp()
  A = t.tenant.locationId
  B = t.addLocation(t.tenant, { name: 'B', timezone: 'UTC' }).id
  jobA = await ok(t, 'POST', '/labor/jobs', { title: 'Server', locationId: A })
  jobB = await ok(t, 'POST', '/labor/jobs', { title: 'Sommelier', locationId: B })
  jobEverywhere = await ok(t, 'POST', '/labor/jobs', { title: 'Dishwasher' })
  workerA = await t.addStaff(t.tenant, { role: 'staff', locationId: A })
  workerB = await t.addStaff(t.tenant, { role: 'staff', locationId: B })
  const assign = (staff: { id: string }, job: any, locationId: string) =>
    ok(t, 'POST', '/labor/job-assignments', { staffUserId: staff.id, laborJobId: job.id, locationId })
  atA = await assign(workerA, jobA, A)
  atB = await assign(workerB, jobB, B)
  // The tenant-wide staff fixture works at both, and is clocked in at B.
  await assign(t.tenant.staff, jobA, A)
  await assign(t.tenant.staff, jobEverywhere, B)
  await ok(t, 'POST', '/labor/shifts/clock-in', {
    staffUserId: t.tenant.staff.id,
    laborJobId: jobEverywhere.id,
    locationId: B,
  })
})
afterEach(() => t.close())

const tables = ['labor_jobs', 'labor_job_assignments', 'labor_profiles', 'audit_entries', 'outbox_events']
const written = () => tables.map((table) => countRows(t.tenant.db, table))
const ids = (rows: { id: string }[]) => rows.map((r) => r.id).sort()

const callersAtA = boundCallers.map(([name, bind]) => [name, () => bind(t, t.tenant, A)] as const)

/** Each request is answered with `status`, and none of them writes anything. */
async function expectRefused(
  as: StaffFixture | string,
  status: number,
  requests: (readonly [string, string, unknown?])[],
) {
  const before = written()
  for (const [method, path, body] of requests) {
    const res = await t.request(method, path, { as, body })
    expect({ method, path, status: res.status }).toEqual({ method, path, status })
  }
  expect(written()).toEqual(before)
}

describe.each(callersAtA)('%s', (_name, callerAtA) => {
  test('jobs: A’s and every location’s are seen and A’s changed; B’s is 404', async () => {
    const as = await callerAtA()
    const list = await t.request('GET', '/labor/jobs', { as })
    expect(ids(list.body.jobs)).toEqual(ids([jobA, jobEverywhere]))
    expect(list.body.page.total).toBe(2)
    expect((await t.request('GET', `/labor/jobs/${jobEverywhere.id}`, { as })).status).toBe(200)
    const renamed = await t.request('PUT', `/labor/jobs/${jobA.id}`, { as, body: { title: 'Runner' } })
    expect(renamed.body.title).toBe('Runner')
    const created = await t.request('POST', '/labor/jobs', { as, body: { title: 'Host', locationId: A } })
    expect(created.status).toBe(201)
    await expectRefused(as, 404, [
      ['GET', `/labor/jobs/${jobB.id}`],
      ['PUT', `/labor/jobs/${jobB.id}`, { title: 'Mine now' }],
    ])
  })

  test('jobs: naming B, or shaping a job of every location, is 403 and writes nothing', async () => {
    const as = await callerAtA()
    await expectRefused(as, 403, [
      ['POST', '/labor/jobs', { title: 'Barback', locationId: B }],
      ['POST', '/labor/jobs', { title: 'Barback' }],
      ['PUT', `/labor/jobs/${jobA.id}`, { locationId: B }],
      ['PUT', `/labor/jobs/${jobA.id}`, { locationId: null }],
      ['PUT', `/labor/jobs/${jobEverywhere.id}`, { defaultWageAmount: 1 }],
      ['GET', `/labor/jobs?locationId=${B}`],
    ])
  })

  test('job assignments: A’s are listed, counted and changed; B’s is 404; assigning at B is refused', async () => {
    const as = await callerAtA()
    const list = await t.request('GET', '/labor/job-assignments', { as })
    expect(list.body.assignments.every((a: any) => a.locationId === A)).toBe(true)
    expect(list.body.page.total).toBe(2)
    expect(list.body.assignments.map((a: any) => a.id)).toContain(atA.id)
    const ended = await t.request('PUT', `/labor/job-assignments/${atA.id}`, {
      as,
      body: { basePayRateCents: 2000 },
    })
    expect(ended.body.basePayRateCents).toBe(2000)
    // A job of every location, with no location named, is assigned where the request acts: A.
    const here = await t.request('POST', '/labor/job-assignments', {
      as,
      body: { staffUserId: workerA.id, laborJobId: jobEverywhere.id },
    })
    expect(here.status).toBe(201)
    expect(here.body.locationId).toBe(A)
    await expectRefused(as, 404, [
      ['GET', `/labor/job-assignments/${atB.id}`],
      ['PUT', `/labor/job-assignments/${atB.id}`, { endsAt: new Date(Date.now() + 60_000).toISOString() }],
      ['POST', '/labor/job-assignments', { staffUserId: workerA.id, laborJobId: jobB.id }],
    ])
    await expectRefused(as, 403, [
      [
        'POST',
        '/labor/job-assignments',
        { staffUserId: workerA.id, laborJobId: jobEverywhere.id, locationId: B },
      ],
      ['GET', `/labor/job-assignments?locationId=${B}`],
    ])
  })

  test('employees: who works only at B is 404 and unlisted; the others show only A’s jobs and shift', async () => {
    const as = await callerAtA()
    const everyone = await ok(t, 'GET', '/labor/employees?limit=100')
    const seen = await t.request('GET', '/labor/employees?limit=100', { as })
    const seenIds = seen.body.employees.map((e: any) => e.staffUserId)
    expect(seenIds).toContain(workerA.id)
    expect(seenIds).not.toContain(workerB.id)
    expect(seen.body.page.total).toBe(everyone.page.total - 1)
    expect(seen.body.employees).toHaveLength(seen.body.page.total)

    const full = await ok(t, 'GET', `/labor/employees/${t.tenant.staff.id}`)
    expect(full.jobs.map((j: any) => j.locationId).sort()).toEqual([A, B].sort())
    expect(full.activeShift.locationId).toBe(B)
    const fromA = await t.request('GET', `/labor/employees/${t.tenant.staff.id}`, { as })
    expect(fromA.body.jobs.map((j: any) => j.locationId)).toEqual([A])
    expect(fromA.body.activeShift).toBeNull()

    const profiled = await t.request('PUT', `/labor/employees/${workerA.id}/profile`, {
      as,
      body: { employeeNumber: 'A-1', primaryLocationId: A },
    })
    expect(profiled.status).toBe(200)
    expect(profiled.body.jobs.map((j: any) => j.id)).toEqual([atA.id])
    await expectRefused(as, 404, [
      ['GET', `/labor/employees/${workerB.id}`],
      ['PUT', `/labor/employees/${workerB.id}/profile`, { employeeNumber: 'B-1' }],
    ])
    await expectRefused(as, 403, [
      ['PUT', `/labor/employees/${workerA.id}/profile`, { primaryLocationId: B }],
      ['GET', `/labor/employees?locationId=${B}`],
    ])
  })
})

test('an employee whose primary location is A is seen from A, even with no role or job there', async () => {
  const managerA = await t.addStaff(t.tenant, { role: 'manager', locationId: A })
  expect((await t.request('GET', `/labor/employees/${workerB.id}`, { as: managerA })).status).toBe(404)
  await ok(t, 'PUT', `/labor/employees/${workerB.id}/profile`, { primaryLocationId: A })
  const seen = await t.request('GET', `/labor/employees/${workerB.id}`, { as: managerA })
  expect(seen.status).toBe(200)
  expect(seen.body.jobs).toEqual([])
})
