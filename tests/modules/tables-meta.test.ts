// GET /tables/v1/meta and PATCH /tables/v1/me.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { createStaffUser } from '../../src/modules/staff/service'
import { systemActor } from '../../src/platform/foundation/actor'
import { countRows, createTestApp, type TestApp } from '../harness'

describe('tables meta', () => {
  let t: TestApp
  beforeEach(async () => {
    t = await createTestApp()
  })
  afterEach(() => t.close())

  test('describes the tenant, location, staff user, capabilities, products and dependencies', async () => {
    const res = await t.request('GET', '/tables/v1/meta', {
      headers: { 'x-location-id': t.tenant.locationId },
    })
    expect(res.status).toBe(200)
    const meta = res.body
    expect(meta).toMatchObject({
      apiVersion: 'v1',
      tenantId: t.tenant.id,
      locationId: t.tenant.locationId,
      tenant: { slug: 'acme', name: 'Tenant acme', timezone: 'America/Los_Angeles' },
      location: { id: t.tenant.locationId, name: 'Main', timezone: 'America/Los_Angeles' },
      locations: [{ id: t.tenant.locationId, name: 'Main' }],
      businesses: [
        { tenantSlug: 'acme', tenantName: 'Tenant acme', defaultLocation: { id: t.tenant.locationId } },
      ],
      staffUser: {
        id: t.tenant.owner.id,
        dashboardRole: 'owner',
        roles: [{ role: 'owner', locationId: null }],
      },
      locationRequiredForOperationalCommands: false,
      products: { tablesReservations: { status: 'active', source: 'self_hosted' }, platformPos: true },
      dependencies: {
        postgres: false,
        platformPayments: false,
        platformOrders: true,
        platformCustomers: true,
      },
    })
    expect(meta.databaseSchema).toMatch(/^\d{4}_/)
    expect(meta.dashboardSections).toContain('reservations')
    expect(meta.capabilities).toContain('webhooks:manage')
    expect(meta.capabilities).toEqual([...meta.capabilities].sort())
  })

  test('capabilities and sections follow the role; location required with several locations', async () => {
    t.addLocation(t.tenant, { name: 'Patio', timezone: 'UTC' })
    const res = await t.request('GET', '/tables/v1/meta', { as: t.tenant.staff })
    expect(res.body.staffUser.dashboardRole).toBe('staff')
    expect(res.body.capabilities).not.toContain('audit:read')
    expect(res.body.dashboardSections).not.toContain('audit')
    expect(res.body.location).toBeNull()
    expect(res.body.locations).toHaveLength(2)
    expect(res.body.locationRequiredForOperationalCommands).toBe(true)
  })

  test('businesses lists every tenant where the same subject is an active staff user with a role', async () => {
    const other = await t.addTenant('other')
    const third = await t.addTenant('third')
    createStaffUser(other.db, systemActor(other.id, 'test'), {
      email: 'me@other.test',
      firstName: 'M',
      lastName: 'E',
      subject: t.tenant.manager.subject,
      role: 'read_only',
    })
    createStaffUser(third.db, systemActor(third.id, 'test'), {
      email: 'me@third.test',
      firstName: 'M',
      lastName: 'E',
      subject: t.tenant.manager.subject,
    })
    const res = await t.request('GET', '/tables/v1/meta', { as: t.tenant.manager })
    expect(res.body.businesses.map((b: any) => b.tenantSlug).sort()).toEqual(['acme', 'other'])
    expect(res.body.businesses.find((b: any) => b.tenantSlug === 'other').defaultLocation.id).toBe(
      other.locationId,
    )
  })

  test('a passcode session sees only its location and tenant', async () => {
    t.addLocation(t.tenant, { name: 'Patio', timezone: 'UTC' })
    const host = await t.addStaff(t.tenant, { role: 'staff', passcode: '1234' })
    const token = await t.passcodeSession(t.tenant, host, { passcode: '1234' })
    const res = await t.request('GET', '/tables/v1/meta', { as: token })
    expect(res.body.locationId).toBe(t.tenant.locationId)
    expect(res.body.locations.map((l: any) => l.id)).toEqual([t.tenant.locationId])
    expect(res.body.businesses).toHaveLength(1)
    expect(res.body.locationRequiredForOperationalCommands).toBe(false)
  })

  test('PATCH /tables/v1/me updates the caller when expectedUpdatedAt matches, else 409', async () => {
    const meta = (await t.request('GET', '/tables/v1/meta', { as: t.tenant.staff })).body
    const body = {
      expectedUpdatedAt: meta.staffUser.updatedAt,
      firstName: 'Robin',
      lastName: 'Host',
      phoneNumber: '555 0100',
    }
    const res = await t.request('PATCH', '/tables/v1/me', { as: t.tenant.staff, body })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({
      id: t.tenant.staff.id,
      firstName: 'Robin',
      lastName: 'Host',
      phoneNumber: '555 0100',
    })
    expect(res.body.updatedAt > meta.staffUser.updatedAt).toBe(true)
    expect(Object.keys(res.body).sort()).toEqual(
      [
        'email',
        'firstName',
        'id',
        'lastName',
        'phoneCountryCode',
        'phoneNumber',
        'postalCode',
        'updatedAt',
      ].sort(),
    )

    const audits = countRows(t.tenant.db, 'audit_entries')
    const stale = await t.request('PATCH', '/tables/v1/me', {
      as: t.tenant.staff,
      body: { ...body, firstName: 'Again' },
    })
    expect(stale.status).toBe(409)
    expect(stale.body.updatedAt).toBe(res.body.updatedAt)
    expect(countRows(t.tenant.db, 'audit_entries')).toBe(audits)

    const fresh = await t.request('PATCH', '/tables/v1/me', {
      as: t.tenant.staff,
      body: { ...body, expectedUpdatedAt: res.body.updatedAt, firstName: 'Again' },
    })
    expect(fresh.status).toBe(200)
  })

  test('PATCH /tables/v1/me validates and needs profile:write', async () => {
    const meta = (await t.request('GET', '/tables/v1/meta')).body
    const base = { expectedUpdatedAt: meta.staffUser.updatedAt, firstName: 'A', lastName: 'B' }
    for (const body of [
      { firstName: 'A', lastName: 'B' },
      { ...base, firstName: '' },
      { ...base, email: 'x@y.z' },
      { ...base, expectedUpdatedAt: 'yesterday' },
    ]) {
      expect((await t.request('PATCH', '/tables/v1/me', { body })).status).toBe(400)
    }
    const readOnly = await t.request('PATCH', '/tables/v1/me', { as: t.tenant.readOnly, body: base })
    expect(readOnly.status).toBe(403)
    expect((await t.request('GET', '/tables/v1/meta', { as: null })).status).toBe(401)
  })
})
