// Employees: staff users with their employment profile, jobs and open shift; filters and profile writes.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { countRows, createTestApp, type TestApp } from '../../harness'
import { jobFor, ok } from './helpers'

let t: TestApp
beforeEach(async () => {
  t = await createTestApp()
})
afterEach(() => t.close())

describe('labor employees', () => {
  test('every staff user is listed; profile null until set, then partial updates', async () => {
    const all = await ok(t, 'GET', '/labor/employees')
    expect(all.page.total).toBe(4)
    const staff = all.employees.find((e: any) => e.staffUserId === t.tenant.staff.id)
    expect(staff).toMatchObject({
      profile: null,
      jobs: [],
      activeJobs: [],
      primaryJob: null,
      activeShift: null,
      staffStatus: 'active',
    })

    const set = await ok(t, 'PUT', `/labor/employees/${t.tenant.staff.id}/profile`, {
      employeeNumber: 'E-7',
      preferredName: 'Sam',
      hireDate: '2024-02-29',
      basePayRateCents: 1700,
      isTippedEmployee: true,
      primaryLocationId: t.tenant.locationId,
    })
    expect(set.profile).toMatchObject({
      tenantId: t.tenant.id,
      employeeNumber: 'E-7',
      employmentStatus: 'active',
      payType: 'hourly',
      basePayRateCents: 1700,
      overtimeEligible: true,
      isTippedEmployee: true,
      metadata: {},
    })
    expect(set.displayName).toBe('Sam staff')
    const changed = await ok(t, 'PUT', `/labor/employees/${t.tenant.staff.id}/profile`, {
      employmentStatus: 'on_leave',
    })
    expect(changed.profile).toMatchObject({ employmentStatus: 'on_leave', employeeNumber: 'E-7' })

    const search = await ok(t, 'GET', '/labor/employees?search=e-7')
    expect(search.employees.map((e: any) => e.staffUserId)).toEqual([t.tenant.staff.id])
    const onLeave = await ok(t, 'GET', '/labor/employees?employmentStatus=on_leave')
    expect(onLeave.page.total).toBe(1)
    expect((await ok(t, 'GET', '/labor/employees?staffStatus=invited')).page.total).toBe(0)

    await jobFor(t, t.tenant.readOnly, { title: 'Host' })
    const here = await ok(t, 'GET', `/labor/employees?locationId=${t.tenant.locationId}`)
    expect(here.employees.map((e: any) => e.staffUserId).sort()).toEqual(
      [t.tenant.staff.id, t.tenant.readOnly.id].sort(),
    )
  })

  test('validation: impossible hire date, string cents, unknown location, unknown staff', async () => {
    const path = `/labor/employees/${t.tenant.staff.id}/profile`
    for (const body of [
      { hireDate: '2023-02-29' },
      { basePayRateCents: '1700' },
      { primaryLocationId: 'nowhere' },
      { employmentStatus: 'retired' },
      { nickname: 'x' },
    ]) {
      const res = await t.request('PUT', path, { body })
      expect(res.status).toBe(400)
    }
    expect(countRows(t.tenant.db, 'labor_profiles')).toBe(0)
    expect((await t.request('PUT', '/labor/employees/ghost/profile', { body: {} })).status).toBe(404)
    expect((await t.request('GET', '/labor/employees?search=')).status).toBe(400)
  })

  test('permission and isolation', async () => {
    expect((await t.request('GET', '/labor/employees', { as: t.tenant.readOnly })).status).toBe(200)
    const res = await t.request('PUT', `/labor/employees/${t.tenant.staff.id}/profile`, {
      as: t.tenant.staff,
      body: {},
    })
    expect(res.status).toBe(403)
    const managerOnOwner = await t.request('PUT', `/labor/employees/${t.tenant.owner.id}/profile`, {
      as: t.tenant.manager,
      body: { basePayRateCents: 1 },
    })
    expect(managerOnOwner.status).toBe(403)
    const other = await t.addTenant('other')
    expect(
      (await t.request('GET', `/labor/employees/${t.tenant.staff.id}`, { tenant: other, as: other.owner }))
        .status,
    ).toBe(404)
  })
})
