// /credentials: tables-API credentials made, listed and revoked over HTTP by an owner.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { countRows, createTestApp, type TestApp } from '../../harness'

describe('credentials', () => {
  let t: TestApp
  beforeEach(async () => {
    t = await createTestApp()
  })
  afterEach(() => t.close())

  const create = (body: Record<string, unknown> = {}, as = t.tenant.owner) =>
    t.request('POST', '/credentials', {
      as,
      body: {
        name: 'Booking partner',
        scopes: ['reservations:read'],
        locationIds: [t.tenant.locationId],
        ...body,
      },
    })
  const credentialRows = () => countRows(t.tenant.db, 'api_credentials')
  const availability = (token: string) =>
    t.request(
      'GET',
      `/tables-api/v1/locations/${t.tenant.locationId}/availability?date=2030-01-01&partySize=2`,
      {
        as: token,
      },
    )

  test('create answers the token once; the list never shows it; the token opens the tables API', async () => {
    const created = await create({ rateLimitPerMinute: 30 })
    expect(created.status).toBe(201)
    expect(created.body.token).toStartWith('tpk_live_')
    expect(created.body.credential).toMatchObject({
      name: 'Booking partner',
      scopes: ['reservations:read'],
      locationIds: [t.tenant.locationId],
      rateLimitPerMinute: 30,
      status: 'active',
      revokedAt: null,
      tokenHint: created.body.token.slice(-4),
      tenantId: t.tenant.id,
    })
    const list = await t.request('GET', '/credentials', { as: t.tenant.readOnly })
    expect(list.status).toBe(200)
    expect(list.body.credentials).toEqual([created.body.credential])
    expect(list.text).not.toContain(created.body.token)
    expect((await availability(created.body.token)).status).not.toBe(401)
  })

  test('create and revoke are audited as the caller', async () => {
    const created = await create()
    const id = created.body.credential.id
    await t.request('POST', `/credentials/${id}/revoke`)
    const audit = await t.request('GET', `/audit-entries?entityType=api_credential&entityId=${id}`)
    expect(audit.body.auditEntries.map((e: any) => [e.action, e.staffUserId, e.route])).toEqual([
      ['credential.revoke', t.tenant.owner.id, '/credentials/:id/revoke'],
      ['credential.create', t.tenant.owner.id, '/credentials'],
    ])
  })

  test('a revoked token is 401 on the very next request; revoking twice is 409', async () => {
    const { body } = await create()
    expect((await availability(body.token)).status).not.toBe(401)
    const revoked = await t.request('POST', `/credentials/${body.credential.id}/revoke`)
    expect(revoked.status).toBe(200)
    expect(revoked.body).toMatchObject({ id: body.credential.id, status: 'revoked' })
    expect(revoked.body.revokedAt).toBeString()
    expect((await availability(body.token)).status).toBe(401)
    const again = await t.request('POST', `/credentials/${body.credential.id}/revoke`)
    expect(again.status).toBe(409)
  })

  test.each([
    ['no scopes', { scopes: [] }, 'body/scopes'],
    ['an unknown scope', { scopes: ['orders:write'] }, 'body/scopes/0'],
    ['no locations', { locationIds: [] }, 'body/locationIds'],
    ['an unknown location', { locationIds: ['nowhere'] }, 'locations'],
    ['a blank name', { name: '   ' }, 'name'],
    ['a rate limit of 0', { rateLimitPerMinute: 0 }, 'body/rateLimitPerMinute'],
    ['an unknown field', { token: 'tpk_live_mine' }, 'body/token'],
  ])('%s is 400 and makes nothing', async (_name, body, path) => {
    const res = await create(body)
    expect(res.status).toBe(400)
    expect(res.body.errors.map((e: any) => e.path)).toContain(path)
    expect(credentialRows()).toBe(0)
  })

  test('managers, staff and read-only users may not create or revoke; staff may not list', async () => {
    const { body } = await create()
    for (const as of [t.tenant.manager, t.tenant.staff, t.tenant.readOnly]) {
      expect((await create({}, as)).status).toBe(403)
      expect((await t.request('POST', `/credentials/${body.credential.id}/revoke`, { as })).status).toBe(403)
    }
    expect((await t.request('GET', '/credentials', { as: t.tenant.staff })).status).toBe(403)
    expect((await t.request('GET', '/credentials', { as: null })).status).toBe(401)
    expect(credentialRows()).toBe(1)
  })

  test('a location-bound owner is 403 (credentials are tenant-wide)', async () => {
    const B = t.addLocation(t.tenant, { name: 'B', timezone: 'UTC' }).id
    const boundOwner = await t.addStaff(t.tenant, { role: 'owner', locationId: B })
    expect((await create({ locationIds: [B] }, boundOwner)).status).toBe(403)
    expect((await t.request('GET', '/credentials', { as: boundOwner })).status).toBe(403)
    expect(credentialRows()).toBe(0)
  })

  test("another tenant's credential is 404 and absent from the list; its locations are refused", async () => {
    const other = await t.addTenant('other')
    const theirs = await t.request('POST', '/credentials', {
      as: other.owner,
      tenant: other,
      body: { name: 'Theirs', scopes: ['reservations:read'], locationIds: [other.locationId] },
    })
    expect(theirs.status).toBe(201)
    expect((await t.request('GET', '/credentials')).body.credentials).toEqual([])
    const revoke = await t.request('POST', `/credentials/${theirs.body.credential.id}/revoke`)
    expect(revoke.status).toBe(404)
    expect((await availability(theirs.body.token)).status).not.toBe(401)
    expect((await create({ locationIds: [other.locationId] })).status).toBe(400)
    // Each tenant's credentials live in its own database.
    expect(credentialRows()).toBe(0)
    expect(countRows(other.db, 'api_credentials')).toBe(1)
  })
})
