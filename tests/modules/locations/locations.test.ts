// Locations over HTTP (issue 23): listed by anyone with locations:read (a location-bound caller
// sees only its own), created, changed and removed by owners (locations:manage); a location with
// records is deactivated, never deleted.
import { afterAll, describe, expect, test } from 'bun:test'
import { findTenantById } from '../../../src/platform/tenancy/tenants'
import { boundTo, changedCounts, createTestApp, tableCounter } from '../../harness'

const t = await createTestApp()
afterAll(() => t.close())
const acme = t.tenant
const counts = tableCounter({ acme: acme.db })

const create = async (body: Record<string, unknown>) => {
  const res = await t.request('POST', '/locations', { body })
  if (res.status !== 201) throw new Error(`create location: ${res.status} ${res.text}`)
  return res.body as { id: string; name: string; status: string; timeZone: string }
}

const idsOf = (body: { locations: { id: string }[] }) => body.locations.map((l) => l.id)

describe('creating', () => {
  test('an owner creates a location with its address and tax region', async () => {
    const res = await t.request('POST', '/locations', {
      body: {
        name: 'Healdsburg Tasting Room',
        timeZone: 'America/Los_Angeles',
        address: {
          line1: '1 Plaza St',
          city: 'Healdsburg',
          stateCode: 'CA',
          postalCode: '95448',
          countryCode: 'US',
        },
        phone: '+1 707 555 0100',
        taxRegion: 'US-CA',
      },
    })
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({
      name: 'Healdsburg Tasting Room',
      timeZone: 'America/Los_Angeles',
      status: 'active',
      address: { line1: '1 Plaza St', line2: null, city: 'Healdsburg', countryCode: 'US' },
      taxRegion: 'US-CA',
    })
    const audit = await t.request('GET', `/audit-entries?entityId=${res.body.id}`)
    expect(JSON.stringify(audit.body)).toContain('location.create')
  })

  test('without a time zone it takes the tenant’s; one given is kept', async () => {
    const tenantZone = findTenantById(t.platform.control.db, acme.id)!.timezone
    expect(tenantZone).not.toBe('UTC')
    expect(await create({ name: 'Patio' })).toMatchObject({ name: 'Patio', timeZone: tenantZone })
    expect(await create({ name: 'Paris Bar', timeZone: 'Europe/Paris' })).toMatchObject({
      timeZone: 'Europe/Paris',
    })
  })

  const invalid: [string, Record<string, unknown>][] = [
    ['no name', { timeZone: 'UTC' }],
    ['an empty name', { name: '', timeZone: 'UTC' }],
    ['an unknown time zone', { name: 'X', timeZone: 'Mars/Olympus' }],
    ['a lower-case country', { name: 'X', timeZone: 'UTC', address: { countryCode: 'us' } }],
    ['a malformed tax region', { name: 'X', timeZone: 'UTC', taxRegion: 'california' }],
    ['a status', { name: 'X', timeZone: 'UTC', status: 'inactive' }],
    ['an unknown field', { name: 'X', timeZone: 'UTC', capacity: 40 }],
  ]
  test.each(invalid)('%s is 400, writing nothing', async (_name, body) => {
    const before = counts()
    const res = await t.request('POST', '/locations', { body })
    expect(res.status).toBe(400)
    expect(res.body.code).toBe('validation_failed')
    expect(changedCounts(before, counts())).toEqual([])
  })

  test.each([
    ['a manager', () => acme.manager],
    ['staff', () => acme.staff],
    ['read-only', () => acme.readOnly],
  ])('%s may not create one (locations:manage is the owner’s)', async (_name, as) => {
    const before = counts()
    const res = await t.request('POST', '/locations', { as: as(), body: { name: 'X', timeZone: 'UTC' } })
    expect(res.status).toBe(403)
    expect(res.body.requiredPermission).toBe('locations:manage')
    expect(changedCounts(before, counts())).toEqual([])
  })

  test('no token is 401', async () => {
    expect(
      (await t.request('POST', '/locations', { as: null, body: { name: 'X', timeZone: 'UTC' } })).status,
    ).toBe(401)
    expect((await t.request('GET', '/locations', { as: null })).status).toBe(401)
  })
})

describe('listing and reading', () => {
  test('every role reads the list, oldest first, with status and q filters and paging', async () => {
    const closed = await create({ name: 'Closed Shop Sonoma', timeZone: 'UTC' })
    await t.request('PUT', `/locations/${closed.id}`, { body: { status: 'inactive' } })
    for (const as of [acme.owner, acme.manager, acme.staff, acme.readOnly]) {
      const res = await t.request('GET', '/locations?limit=100', { as })
      expect(res.status).toBe(200)
      expect(idsOf(res.body)[0]).toBe(acme.locationId)
      expect(res.body.page.total).toBe(res.body.locations.length)
    }
    const inactive = await t.request('GET', '/locations?status=inactive')
    expect(idsOf(inactive.body)).toEqual([closed.id])
    const found = await t.request('GET', '/locations?q=sonoma')
    expect(idsOf(found.body)).toEqual([closed.id])
    const second = await t.request('GET', '/locations?limit=1&page=2')
    expect(second.body.locations).toHaveLength(1)
    expect((await t.request('GET', '/locations?status=closed')).status).toBe(400)
  })

  test('a location-bound caller lists and reads only its own locations', async () => {
    const elsewhere = await create({ name: 'Elsewhere', timeZone: 'UTC' })
    for (const principal of await boundTo(t, acme, acme.locationId)) {
      const list = await t.request('GET', '/locations', { as: principal.as, headers: principal.headers })
      expect([principal.name, idsOf(list.body), list.body.page.total]).toEqual([
        principal.name,
        [acme.locationId],
        1,
      ])
      const own = await t.request('GET', `/locations/${acme.locationId}`, {
        as: principal.as,
        headers: principal.headers,
      })
      expect(own.status).toBe(200)
      const other = await t.request('GET', `/locations/${elsewhere.id}`, {
        as: principal.as,
        headers: principal.headers,
      })
      expect([principal.name, other.status]).toEqual([principal.name, 404])
    }
  })

  test('an unknown or another tenant’s location is 404', async () => {
    const other = await t.addTenant('other-winery')
    expect((await t.request('GET', `/locations/${other.locationId}`)).status).toBe(404)
    expect((await t.request('GET', '/locations/not-a-location')).status).toBe(404)
  })
})

describe('changing', () => {
  test('an owner changes only the fields sent; null clears one', async () => {
    const made = await create({ name: 'Annex', timeZone: 'UTC', phone: '555', address: { city: 'Napa' } })
    const res = await t.request('PUT', `/locations/${made.id}`, {
      body: { name: 'The Annex', phone: null, address: { line1: '2 Main St' }, timeZone: 'Europe/Paris' },
    })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({
      name: 'The Annex',
      phone: null,
      timeZone: 'Europe/Paris',
      address: { line1: '2 Main St', city: 'Napa' },
    })
    expect(
      (await t.request('PUT', `/locations/${made.id}`, { body: { timeZone: 'Nowhere/City' } })).status,
    ).toBe(400)
    const before = counts()
    const refused = await t.request('PUT', `/locations/${made.id}`, {
      as: acme.manager,
      body: { name: 'Mine' },
    })
    expect(refused.status).toBe(403)
    expect(changedCounts(before, counts())).toEqual([])
  })
})

describe('removing', () => {
  test('a location nothing was recorded at is deleted', async () => {
    const made = await create({ name: 'Pop-up', timeZone: 'UTC' })
    const res = await t.request('DELETE', `/locations/${made.id}`)
    expect(res.status).toBe(200)
    expect(res.body.outcome).toBe('deleted')
    expect((await t.request('GET', `/locations/${made.id}`)).status).toBe(404)
  })

  test('a location with records is deactivated, keeping them; it can be reopened', async () => {
    const made = await create({ name: 'Bar Car', timeZone: 'UTC' })
    const drawer = await t.request('POST', '/cash-management/drawers', {
      body: { locationId: made.id, label: 'Bar', startingBalance: 5000 },
    })
    expect(drawer.status).toBe(201)
    const res = await t.request('DELETE', `/locations/${made.id}`)
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ outcome: 'deactivated', location: { id: made.id, status: 'inactive' } })
    expect((await t.request('GET', `/locations/${made.id}`)).body.status).toBe('inactive')
    expect((await t.request('GET', `/cash-management/drawers/${drawer.body.id}`)).status).toBe(200)
    const reopened = await t.request('PUT', `/locations/${made.id}`, { body: { status: 'active' } })
    expect(reopened.body.status).toBe('active')
  })

  test('a manager may not remove one', async () => {
    const made = await create({ name: 'Kiosk', timeZone: 'UTC' })
    const before = counts()
    expect((await t.request('DELETE', `/locations/${made.id}`, { as: acme.manager })).status).toBe(403)
    expect(changedCounts(before, counts())).toEqual([])
  })
})
