// Staff management over HTTP: CRUD, deactivation, roles, passcodes, and who may manage whom.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { deactivateStaffUser } from '../../../src/modules/staff/management'
import { everyLocation } from '../../../src/platform/auth/location-scope'
import { systemActor } from '../../../src/platform/foundation/actor'
import { boundTo, countRows, createTestApp, runScenarios, type TestApp } from '../../harness'

const newStaff = { email: 'Sam@Example.test', firstName: 'Sam', lastName: 'Server' }

describe('staff: scenarios', () => {
  runScenarios([
    {
      name: 'create answers 201 with roles, subjects and no passcode hash',
      method: 'POST',
      url: '/staff-users',
      body: {
        ...newStaff,
        subject: 'idp|sam',
        roles: [{ role: 'staff' }],
        passcode: '2580',
        phoneCountryCode: '+1',
      },
      status: 201,
      expectBody: {
        email: 'sam@example.test',
        status: 'active',
        passcodeSet: true,
        subjects: ['idp|sam'],
        roles: [{ role: 'staff', locationId: null }],
        phoneCountryCode: '+1',
      },
      check: (res) => {
        expect(res.body.passcodeHash).toBeUndefined()
        expect(res.text).not.toContain('argon2')
      },
    },
    {
      name: 'create with an unknown role is 400',
      method: 'POST',
      url: '/staff-users',
      body: { ...newStaff, roles: [{ role: 'admin' }] },
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'create with a bad email is 400',
      method: 'POST',
      url: '/staff-users',
      body: { ...newStaff, email: 'nope' },
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'create with a short passcode is 400',
      method: 'POST',
      url: '/staff-users',
      body: { ...newStaff, passcode: '12' },
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'create with an unknown field is 400',
      method: 'POST',
      url: '/staff-users',
      body: { ...newStaff, salary: 1 },
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'create with a role at an unknown location is 400',
      method: 'POST',
      url: '/staff-users',
      body: { ...newStaff, roles: [{ role: 'staff', locationId: 'nowhere' }] },
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'create with a taken email is 409',
      method: 'POST',
      url: '/staff-users',
      setup: async ({ t }) => {
        await t.request('POST', '/staff-users', { body: newStaff })
      },
      body: { ...newStaff, email: 'sam@example.TEST' },
      status: 409,
      code: 'conflict',
    },
    {
      name: 'create by a staff-role user is 403',
      method: 'POST',
      url: '/staff-users',
      as: ({ t }) => t.tenant.staff,
      body: newStaff,
      status: 403,
      code: 'forbidden',
    },
    {
      name: 'list by read_only is 200 (staff:read)',
      method: 'GET',
      url: '/staff-users',
      as: ({ t }) => t.tenant.readOnly,
      status: 200,
      check: (res) => expect(res.body.page).toEqual({ total: 4, page: 1, limit: 50 }),
    },
    {
      name: 'list without a token is 401',
      method: 'GET',
      url: '/staff-users',
      as: () => null,
      status: 401,
      code: 'unauthenticated',
    },
    {
      name: 'another tenant’s staff user is 404',
      method: 'GET',
      url: ({ vars }) => `/staff-users/${vars.otherId}`,
      setup: async (ctx) => {
        ctx.vars.otherId = (await ctx.t.addTenant('other')).staff.id
      },
      status: 404,
      code: 'not_found',
    },
    {
      name: 'a bad list limit is 400',
      method: 'GET',
      url: '/staff-users?limit=500',
      status: 400,
      code: 'validation_failed',
    },
  ])
})

describe('staff: behaviour', () => {
  let t: TestApp
  beforeEach(async () => {
    t = await createTestApp()
  })
  afterEach(() => t.close())

  test('list searches, filters by status and pages', async () => {
    await t.request('POST', '/staff-users', { body: { ...newStaff, email: 'a@x.test', lastName: 'Alpha' } })
    const b = await t.request('POST', '/staff-users', {
      body: { ...newStaff, email: 'b@x.test', lastName: 'Beta' },
    })
    await t.request('POST', `/staff-users/${b.body.id}/deactivate`)
    const found = await t.request('GET', '/staff-users?q=alph')
    expect(found.body.staffUsers.map((s: any) => s.lastName)).toEqual(['Alpha'])
    const inactive = await t.request('GET', '/staff-users?status=inactive')
    expect(inactive.body.staffUsers.map((s: any) => s.id)).toEqual([b.body.id])
    const page2 = await t.request('GET', '/staff-users?limit=2&page=2')
    expect(page2.body.page).toEqual({ total: 6, page: 2, limit: 2 })
    expect(page2.body.staffUsers).toHaveLength(2)
  })

  test('update is partial, maps and unmaps the identity subject, and is audited', async () => {
    const created = await t.request('POST', '/staff-users', { body: newStaff })
    const id = created.body.id
    const res = await t.request('PATCH', `/staff-users/${id}`, {
      body: { firstName: 'Samantha', subject: 'idp|samantha', postalCode: '94110' },
    })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ firstName: 'Samantha', lastName: 'Server', subjects: ['idp|samantha'] })
    expect(res.body.updatedAt > created.body.updatedAt).toBe(true)
    // The mapped subject now authenticates.
    const token = await t.platform.devIssuer!.mint({ subject: 'idp|samantha' })
    expect((await t.request('GET', '/tables/v1/meta', { as: token })).status).toBe(403) // no role yet
    const unmapped = await t.request('PATCH', `/staff-users/${id}`, { body: { subject: null } })
    expect(unmapped.body.subjects).toEqual([])
    const entry = t.tenant.db.$client
      .query("SELECT metadata FROM audit_entries WHERE action = 'staff.update' ORDER BY seq LIMIT 1")
      .get() as { metadata: string }
    expect(JSON.parse(entry.metadata).changes).toMatchObject({
      firstName: { from: 'Sam', to: 'Samantha' },
      subjects: { from: [], to: ['idp|samantha'] },
    })
    // Someone else's subject or email is 409.
    const taken = await t.request('PATCH', `/staff-users/${id}`, {
      body: { subject: t.tenant.owner.subject },
    })
    expect(taken.status).toBe(409)
    const email = await t.request('PATCH', `/staff-users/${id}`, {
      body: { email: `${t.tenant.owner.subject}@example.test` },
    })
    expect(email.status).toBe(409)
    expect((await t.request('PATCH', '/staff-users/missing', { body: { firstName: 'x' } })).status).toBe(404)
  })

  test('deactivation refuses yourself, the inactive and the last owner (409 with staffStatus)', async () => {
    const self = await t.request('POST', `/staff-users/${t.tenant.owner.id}/deactivate`)
    expect(self.status).toBe(409)
    expect(self.body.staffStatus).toBe('active')
    expect((await t.request('POST', `/staff-users/${t.tenant.staff.id}/deactivate`)).status).toBe(200)
    const again = await t.request('POST', `/staff-users/${t.tenant.staff.id}/deactivate`)
    expect(again.status).toBe(409)
    expect(again.body.staffStatus).toBe('inactive')
    expect((await t.request('POST', `/staff-users/${t.tenant.manager.id}/reactivate`)).status).toBe(409)
    // The CLI-like system path is not "yourself": the only owner still cannot go.
    const owner2 = await t.addStaff(t.tenant, { role: 'owner' })
    expect(
      (await t.request('POST', `/staff-users/${t.tenant.owner.id}/deactivate`, { as: owner2 })).status,
    ).toBe(200)
    // Only the command line (system actor) could reach the last owner; it is refused too.
    expect(() =>
      deactivateStaffUser(t.tenant.db, systemActor(t.tenant.id, 'test'), everyLocation, owner2.id),
    ).toThrow('at least one active tenant-wide owner')
    expect(countRows(t.tenant.db, 'staff_users')).toBe(5)
  })

  test('a manager cannot make, change or deactivate an owner; owners can', async () => {
    const m = t.tenant.manager
    const before = countRows(t.tenant.db, 'audit_entries')
    const make = await t.request('POST', '/staff-users', {
      as: m,
      body: { ...newStaff, roles: [{ role: 'owner' }] },
    })
    expect(make.status).toBe(403)
    expect(make.body.missingPermissions).toContain('webhooks:manage')
    expect(
      (await t.request('POST', `/staff-users/${t.tenant.staff.id}/roles`, { as: m, body: { role: 'owner' } }))
        .status,
    ).toBe(403)
    expect((await t.request('POST', `/staff-users/${t.tenant.owner.id}/deactivate`, { as: m })).status).toBe(
      403,
    )
    expect(
      (await t.request('PATCH', `/staff-users/${t.tenant.owner.id}`, { as: m, body: { firstName: 'X' } }))
        .status,
    ).toBe(403)
    expect(
      (
        await t.request('PUT', `/staff-users/${t.tenant.owner.id}/passcode`, {
          as: m,
          body: { passcode: '1234' },
        })
      ).status,
    ).toBe(403)
    expect(countRows(t.tenant.db, 'audit_entries')).toBe(before)
    expect(countRows(t.tenant.db, 'staff_users')).toBe(4)
    // But a manager manages staff.
    expect(
      (
        await t.request('POST', `/staff-users/${t.tenant.staff.id}/roles`, {
          as: m,
          body: { role: 'manager' },
        })
      ).status,
    ).toBe(201)
    expect((await t.request('POST', `/staff-users/${t.tenant.staff.id}/deactivate`, { as: m })).status).toBe(
      200,
    )
  })

  test('a location-scoped manager manages roles only at their location', async () => {
    const patio = t.addLocation(t.tenant, {
      name: 'Patio',
      timezone: 'UTC',
    })
    const lead = await t.addStaff(t.tenant, { role: 'manager', locationId: patio.id })
    const at = { 'x-location-id': patio.id }
    const hire = await t.request('POST', '/staff-users', {
      as: lead,
      headers: at,
      body: { ...newStaff, roles: [{ role: 'staff', locationId: patio.id }] },
    })
    expect(hire.status).toBe(201)
    const wide = await t.request('POST', `/staff-users/${hire.body.id}/roles`, {
      as: lead,
      headers: at,
      body: { role: 'staff' },
    })
    expect(wide.status).toBe(403)
    const elsewhere = await t.request('POST', `/staff-users/${hire.body.id}/roles`, {
      as: lead,
      headers: at,
      body: { role: 'staff', locationId: t.tenant.locationId },
    })
    expect(elsewhere.status).toBe(403)
    // A tenant-wide staff member is beyond them.
    expect(
      (await t.request('POST', `/staff-users/${t.tenant.staff.id}/deactivate`, { as: lead, headers: at }))
        .status,
    ).toBe(403)
    // Their list shows staff who work at the patio: tenant-wide roles and patio roles.
    const list = await t.request('GET', '/staff-users?limit=100', { as: lead, headers: at })
    expect(list.body.page.total).toBe(6)
  })

  test('a caller bound to a location does not find staff who work only elsewhere: 404, nothing written', async () => {
    const A = t.tenant.locationId
    const B = t.addLocation(t.tenant, { name: 'B', timezone: 'UTC' }).id
    const atB = await t.addStaff(t.tenant, { role: 'staff', locationId: B, passcode: '1357' })
    const atBoth = await t.addStaff(t.tenant, { role: 'staff', locationId: B })
    const roleAtB = (await t.request('GET', `/staff-users/${atB.id}`)).body.roles[0].id
    await t.request('POST', `/staff-users/${atBoth.id}/roles`, { body: { role: 'staff', locationId: A } })
    const requests: [string, string, unknown?][] = [
      ['GET', `/staff-users/${atB.id}`],
      ['PATCH', `/staff-users/${atB.id}`, { firstName: 'Moved' }],
      ['POST', `/staff-users/${atB.id}/deactivate`],
      ['POST', `/staff-users/${atB.id}/reactivate`],
      ['POST', `/staff-users/${atB.id}/roles`, { role: 'staff', locationId: A }],
      ['DELETE', `/staff-users/${atB.id}/roles/${roleAtB}`],
      ['PUT', `/staff-users/${atB.id}/passcode`, { passcode: '9999' }],
      ['DELETE', `/staff-users/${atB.id}/passcode`],
    ]
    const written = () => ({
      audit: countRows(t.tenant.db, 'audit_entries'),
      roles: countRows(t.tenant.db, 'staff_roles'),
    })
    const callers = await boundTo(t, t.tenant, A)
    const before = written()
    for (const { as, headers } of callers) {
      for (const [method, path, body] of requests) {
        const res = await t.request(method, path, { as, headers, body })
        expect({ method, path, status: res.status }).toEqual({ method, path, status: 404 })
      }
      // Someone who also works at A is theirs to see (changing them still needs B's role: 403).
      expect((await t.request('GET', `/staff-users/${atBoth.id}`, { as, headers })).status).toBe(200)
      const change = await t.request('PATCH', `/staff-users/${atBoth.id}`, {
        as,
        headers,
        body: { firstName: 'X' },
      })
      expect(change.status).toBe(as === t.tenant.owner ? 200 : 403)
    }
    expect(written()).toEqual({ ...before, audit: before.audit + 1 }) // the owner's change of atBoth
    expect((await t.request('GET', `/staff-users/${atB.id}`)).body).toMatchObject({
      status: 'active',
      passcodeSet: true,
    })
  })

  test('roles: assign, duplicate 409, remove, last owner protected, unknown 404', async () => {
    const patio = t.addLocation(t.tenant, {
      name: 'Patio',
      timezone: 'UTC',
    })
    const id = t.tenant.staff.id
    const added = await t.request('POST', `/staff-users/${id}/roles`, {
      body: { role: 'manager', locationId: patio.id },
    })
    expect(added.status).toBe(201)
    expect(added.body).toMatchObject({ role: 'manager', locationId: patio.id })
    expect(
      (
        await t.request('POST', `/staff-users/${id}/roles`, {
          body: { role: 'manager', locationId: patio.id },
        })
      ).status,
    ).toBe(409)
    expect(
      (await t.request('POST', `/staff-users/${id}/roles`, { body: { role: 'manager', locationId: 'x' } }))
        .status,
    ).toBe(400)
    expect((await t.request('POST', `/staff-users/${id}/roles`, { body: { role: 'boss' } })).status).toBe(400)
    // The new role works at once.
    const atPatio = { as: t.tenant.staff, headers: { 'x-location-id': patio.id }, body: { name: 'V' } }
    expect((await t.request('POST', '/vendor', atPatio)).status).toBe(201)
    const removed = await t.request('DELETE', `/staff-users/${id}/roles/${added.body.id}`)
    expect(removed.status).toBe(200)
    expect((await t.request('POST', '/vendor', atPatio)).status).toBe(403)
    expect((await t.request('DELETE', `/staff-users/${id}/roles/${added.body.id}`)).status).toBe(404)

    const ownerRole = (await t.request('GET', `/staff-users/${t.tenant.owner.id}`)).body.roles[0]
    const last = await t.request('DELETE', `/staff-users/${t.tenant.owner.id}/roles/${ownerRole.id}`)
    expect(last.status).toBe(409)
    const actions = t.tenant.db.$client
      .query("SELECT action FROM audit_entries WHERE action LIKE 'staff.role%' ORDER BY seq")
      .all()
      .map((r: any) => r.action)
    expect(actions).toEqual(['staff.role_assign', 'staff.role_remove'])
  })

  test('passcodes: set and clear; never shown or audited in clear', async () => {
    const id = t.tenant.staff.id
    const set = await t.request('PUT', `/staff-users/${id}/passcode`, { body: { passcode: '864200' } })
    expect(set.status).toBe(200)
    expect(set.body.passcodeSet).toBe(true)
    const trail = JSON.stringify(t.tenant.db.$client.query('SELECT * FROM audit_entries').all())
    expect(trail).not.toContain('864200')
    expect(
      (await t.request('PUT', `/staff-users/${id}/passcode`, { body: { passcode: 'abcd' } })).status,
    ).toBe(400)
    const cleared = await t.request('DELETE', `/staff-users/${id}/passcode`)
    expect(cleared.body.passcodeSet).toBe(false)
    expect((await t.request('DELETE', `/staff-users/${id}/passcode`)).status).toBe(404)
  })
})
