// Jobs and job assignments: CRUD, validation, permission, isolation, and access primitives that
// really open and close routes for the staff users holding the job.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { countRows, createTestApp, type TestApp } from '../../harness'
import { openDrawer } from '../cash/helpers'
import { jobFor, ok } from './helpers'

let t: TestApp
beforeEach(async () => {
  t = await createTestApp()
})
afterEach(() => t.close())

describe('labor jobs', () => {
  test('create with defaults, get, list, update, archive and restore', async () => {
    const res = await t.request('POST', '/labor/jobs', {
      body: { title: 'Bartender', code: 'BAR', tipped: true, defaultWageAmount: 1650 },
    })
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({
      tenantId: t.tenant.id,
      title: 'Bartender',
      code: 'BAR',
      tipped: true,
      compensationType: 'hourly',
      defaultWageAmount: 1650,
      payCurrency: 'USD',
      locationId: null,
      excludeFromLaborSummary: false,
      accessPrimitives: { grants: [], denies: [] },
      payMetadata: {},
      archivedAt: null,
    })
    const id = res.body.id
    expect((await ok(t, 'GET', `/labor/jobs/${id}`)).title).toBe('Bartender')
    await ok(t, 'POST', '/labor/jobs', { title: 'Host', locationId: t.tenant.locationId })
    const list = await ok(t, 'GET', `/labor/jobs?locationId=${t.tenant.locationId}`)
    expect(list.jobs.map((j: any) => j.title)).toEqual(['Bartender', 'Host'])
    expect(list.page).toEqual({ total: 2 })

    const same = await ok(t, 'PUT', `/labor/jobs/${id}`, {})
    expect(same.updatedAt).toBe(res.body.updatedAt)
    const archived = await ok(t, 'PUT', `/labor/jobs/${id}`, {
      archivedAt: '2020-01-01T00:00:00Z',
      title: 'Bar',
    })
    expect(archived.archivedAt).not.toBeNull()
    expect((await ok(t, 'GET', '/labor/jobs')).jobs.map((j: any) => j.title)).toEqual(['Host'])
    expect((await ok(t, 'GET', '/labor/jobs?includeArchived=true')).page.total).toBe(2)
    expect((await ok(t, 'PUT', `/labor/jobs/${id}`, { archivedAt: null })).archivedAt).toBeNull()
    const audit = t.tenant.db.$client
      .query('SELECT action FROM audit_entries WHERE entity_id = ? ORDER BY rowid')
      .all(id) as { action: string }[]
    expect(audit.map((a) => a.action)).toEqual(['labor.job.create', 'labor.job.update', 'labor.job.update'])
  })

  test('validation: missing title, unknown primitive, string wage, unknown location, duplicate code', async () => {
    for (const body of [
      {},
      { title: 'X', accessPrimitives: { grants: ['vendors:write', 'root:everything'] } },
      { title: 'X', defaultWageAmount: '1800' },
      { title: 'X', defaultWageAmount: 18.5 },
      { title: 'X', compensationType: 'piecework' },
      { title: 'X', locationId: 'nowhere' },
      { title: 'X', extra: 1 },
    ]) {
      const res = await t.request('POST', '/labor/jobs', { body })
      expect(res.status).toBe(400)
      expect(res.body.code).toBe('validation_failed')
    }
    const bad = await t.request('POST', '/labor/jobs', {
      body: { title: 'X', accessPrimitives: { denies: ['nope'] } },
    })
    expect(bad.body.errors).toEqual([
      { path: 'accessPrimitives/denies/0', message: 'unknown primitive "nope"' },
    ])
    expect(countRows(t.tenant.db, 'labor_jobs')).toBe(0)
    await ok(t, 'POST', '/labor/jobs', { title: 'A', code: 'srv' })
    expect((await t.request('POST', '/labor/jobs', { body: { title: 'B', code: 'SRV' } })).status).toBe(409)
  })

  test('permission: staff read but cannot write; a manager cannot hand out what they lack', async () => {
    expect((await t.request('GET', '/labor/jobs', { as: t.tenant.staff })).status).toBe(200)
    expect(
      (await t.request('POST', '/labor/jobs', { as: t.tenant.staff, body: { title: 'X' } })).status,
    ).toBe(403)
    const escalate = await t.request('POST', '/labor/jobs', {
      as: t.tenant.manager,
      body: { title: 'Integrator', accessPrimitives: { grants: ['webhooks:manage'] } },
    })
    expect(escalate.status).toBe(403)
    expect(escalate.body.missingPermissions).toEqual(['webhooks:manage'])
    const fine = await t.request('POST', '/labor/jobs', {
      as: t.tenant.manager,
      body: { title: 'Buyer', accessPrimitives: { grants: ['vendors:write'], denies: ['webhooks:manage'] } },
    })
    expect(fine.status).toBe(201)
  })

  test('what a job lends its holder, or denies them, is not theirs to hand out', async () => {
    const here = t.tenant.locationId
    const handOut = (grants: string[]) =>
      t.request('POST', '/labor/jobs', {
        as: t.tenant.manager,
        body: { title: `Relay ${grants.join(' ')}`, locationId: here, accessPrimitives: { grants } },
      })
    expect((await handOut(['vendors:write'])).status).toBe(201)
    await jobFor(t, t.tenant.manager, {
      title: 'Integrator',
      accessPrimitives: { grants: ['webhooks:manage'] },
    })
    await jobFor(t, t.tenant.manager, { title: 'No buying', accessPrimitives: { denies: ['vendors:write'] } })
    // Lent webhooks:manage here (a grant opens routes: see below), the manager may not pass it
    // on; nor hand out what a job denies them.
    expect((await handOut(['webhooks:manage'])).status).toBe(403)
    expect((await handOut(['vendors:write'])).status).toBe(403)
  })

  test('tenant isolation: another tenant’s job is 404', async () => {
    const other = await t.addTenant('other')
    const job = await ok(t, 'POST', '/labor/jobs', { title: 'Server' })
    expect((await t.request('GET', `/labor/jobs/${job.id}`, { tenant: other, as: other.owner })).status).toBe(
      404,
    )
    const put = await t.request('PUT', `/labor/jobs/${job.id}`, {
      tenant: other,
      as: other.owner,
      body: { title: 'X' },
    })
    expect(put.status).toBe(404)
  })
})

describe('job assignments', () => {
  test('assign, list with filters and activeAt, end, primary job is unique', async () => {
    const { job, assignment } = await jobFor(t, t.tenant.staff, {}, { primaryJob: true })
    expect(assignment).toMatchObject({
      staffUserId: t.tenant.staff.id,
      laborJobId: job.id,
      primaryJob: true,
      endsAt: null,
    })
    const second = await jobFor(t, t.tenant.staff, { title: 'Host' }, { primaryJob: true })
    expect((await ok(t, 'GET', `/labor/job-assignments/${assignment.id}`)).primaryJob).toBe(false)
    expect(second.assignment.primaryJob).toBe(true)

    const byJob = await ok(t, 'GET', `/labor/job-assignments?laborJobId=${job.id}`)
    expect(byJob.assignments.map((a: any) => a.id)).toEqual([assignment.id])
    const ended = await ok(t, 'PUT', `/labor/job-assignments/${assignment.id}`, {
      endsAt: new Date(Date.now() + 60_000).toISOString(),
    })
    expect(ended.active).toBe(true)
    const later = new Date(Date.now() + 120_000).toISOString()
    const activeLater = await ok(t, 'GET', `/labor/job-assignments?activeAt=${encodeURIComponent(later)}`)
    expect(activeLater.assignments.map((a: any) => a.id)).toEqual([second.assignment.id])
    const before = await ok(t, 'GET', `/labor/job-assignments?activeAt=2000-01-01T00:00:00Z`)
    expect(before.assignments).toEqual([])
  })

  test('validation and refusals', async () => {
    const job = await ok(t, 'POST', '/labor/jobs', { title: 'Server' })
    const base = { staffUserId: t.tenant.staff.id, laborJobId: job.id, locationId: t.tenant.locationId }
    for (const body of [
      { ...base, staffUserId: 'ghost' },
      { ...base, locationId: 'nowhere' },
      { ...base, startsAt: '2030-01-02T00:00:00Z', endsAt: '2030-01-01T00:00:00Z' },
      { ...base, basePayRateCents: -1 },
      { staffUserId: t.tenant.staff.id, laborJobId: job.id },
    ]) {
      const res = await t.request('POST', '/labor/job-assignments', { body })
      expect(res.status).toBe(400)
    }
    expect(
      (await t.request('POST', '/labor/job-assignments', { body: { ...base, laborJobId: 'ghost' } })).status,
    ).toBe(404)
    expect(countRows(t.tenant.db, 'labor_job_assignments')).toBe(0)
    // A manager cannot assign jobs to an owner (they could not manage the owner's roles).
    const res = await t.request('POST', '/labor/job-assignments', {
      as: t.tenant.manager,
      body: { ...base, staffUserId: t.tenant.owner.id },
    })
    expect(res.status).toBe(403)
    expect(
      (await t.request('POST', '/labor/job-assignments', { as: t.tenant.staff, body: base })).status,
    ).toBe(403)
  })
})

describe('job access primitives change what the holder may do', () => {
  const at = () => ({ 'x-location-id': t.tenant.locationId })

  test('a grant opens a route at the assignment’s location only, and ends with the assignment', async () => {
    const staff = t.tenant.staff
    const create = () => t.request('POST', '/vendor', { as: staff, headers: at(), body: { name: 'Acme' } })
    expect((await create()).status).toBe(403)
    const { assignment } = await jobFor(t, staff, {
      title: 'Buyer',
      accessPrimitives: { grants: ['vendors:write'] },
    })
    expect((await create()).status).toBe(201)
    // Naming no location, it acts where the grant holds; never at another location.
    expect((await t.request('POST', '/vendor', { as: staff, body: { name: 'B' } })).status).toBe(201)
    const second = t.addLocation(t.tenant, {
      name: 'Second',
      timezone: 'America/New_York',
    })
    const there = await t.request('POST', '/vendor', {
      as: staff,
      headers: { 'x-location-id': second.id },
      body: { name: 'C' },
    })
    expect(there.status).toBe(403)
    await ok(t, 'PUT', `/labor/job-assignments/${assignment.id}`, {
      endsAt: new Date(Date.now() - 1000).toISOString(),
      startsAt: new Date(Date.now() - 60_000).toISOString(),
    })
    expect((await create()).status).toBe(403)
  })

  test('a deny closes a route the role grants, at the location and when no location is named', async () => {
    const staff = t.tenant.staff
    expect((await t.request('GET', '/vendor', { as: staff, headers: at() })).status).toBe(200)
    const { job } = await jobFor(t, staff, {
      title: 'Dishwasher',
      accessPrimitives: { denies: ['vendors:read'] },
    })
    const denied = await t.request('GET', '/vendor', { as: staff, headers: at() })
    expect(denied.status).toBe(403)
    expect(denied.body.requiredPermission).toBe('vendors:read')
    expect((await t.request('GET', '/vendor', { as: staff })).status).toBe(403)
    // Archiving the job lifts the deny.
    await ok(t, 'PUT', `/labor/jobs/${job.id}`, { archivedAt: new Date().toISOString() })
    expect((await t.request('GET', '/vendor', { as: staff, headers: at() })).status).toBe(200)
  })

  test('a job counts where a staff user is named, not only where they call: approvals, drawers, passcode sign-in, the tables dashboard', async () => {
    // A manager whose job denies cash:approve can no longer approve a drawer's closeout.
    const d = await openDrawer(t, { startingBalance: 1_000 })
    const closeout = {
      actualBalance: 3_500,
      confirmWarning: true,
      managerApprovedByStaffUserId: t.tenant.manager.id,
    }
    await jobFor(t, t.tenant.manager, { title: 'Floor lead', accessPrimitives: { denies: ['cash:approve'] } })
    const close = () =>
      t.request('POST', `/cash-management/drawers/${d.id}/close`, { as: t.tenant.staff, body: closeout })
    expect((await close()).status).toBe(403)

    // A staff user with a role at the first location only, and a job at a second one.
    const patio = t.addLocation(t.tenant, { name: 'Patio' })
    const runner = await t.addStaff(t.tenant, {
      role: 'staff',
      locationId: t.tenant.locationId,
      passcode: '2468',
    })
    const signIn = () =>
      t.request('POST', '/auth/passcode-sessions', {
        as: null,
        body: { staffUserId: runner.id, locationId: patio.id, passcode: '2468' },
      })
    const dashboardPlaces = async () =>
      (await t.request('GET', '/tables/v1/meta', { as: runner })).body.locations.map((l: any) => l.id)
    expect((await signIn()).status).toBe(403)
    expect(await dashboardPlaces()).toEqual([t.tenant.locationId])
    await jobFor(
      t,
      runner,
      { title: 'Patio runner', accessPrimitives: { grants: ['vendors:read'] } },
      { locationId: patio.id },
    )
    expect((await signIn()).status).toBe(201)
    expect((await dashboardPlaces()).sort()).toEqual([t.tenant.locationId, patio.id].sort())
  })

  test('a passcode session at the location gets the job’s grants too', async () => {
    const staff = await t.addStaff(t.tenant, { role: 'staff', passcode: '4321' })
    await jobFor(t, staff, { title: 'Buyer', accessPrimitives: { grants: ['vendors:write'] } })
    const token = await t.passcodeSession(t.tenant, staff, { passcode: '4321' })
    expect((await t.request('POST', '/vendor', { as: token, body: { name: 'Acme' } })).status).toBe(201)
  })
})
