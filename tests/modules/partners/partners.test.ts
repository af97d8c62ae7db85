// Partner routes: restaurants as a bare array, connectedRestaurants keyset paging with an opaque
// token, a restaurant's general settings; permission and tenant isolation.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { createTestApp, type TestApp } from '../../harness'

let t: TestApp
beforeEach(async () => {
  t = await createTestApp()
})
afterEach(() => t.close())

const addLocations = (n: number) =>
  Array.from({ length: n }, (_, i) =>
    t.addLocation(t.tenant, {
      name: `Branch ${i + 1}`,
      timezone: 'America/New_York',
      address: {
        addressLine1: `${i + 1} Main St`,
        city: 'Springfield',
        stateCode: 'IL',
        postalCode: '62701',
        countryCode: 'US',
      },
    }),
  )

describe('partner restaurants', () => {
  test('a bare array of the tenant’s locations with time zone and address', async () => {
    addLocations(1)
    const res = await t.request('GET', '/partners/v1/restaurants')
    expect(res.status).toBe(200)
    expect(Array.isArray(res.body)).toBe(true)
    expect(res.body).toHaveLength(2)
    expect(res.body[0]).toMatchObject({
      id: t.tenant.locationId,
      restaurantGuid: t.tenant.locationId,
      managementGroupGuid: t.tenant.id,
      name: 'Main',
      restaurantName: 'Tenant acme',
      timeZone: 'America/Los_Angeles',
      address: { address1: null, city: null },
    })
    expect(res.body[1]).toMatchObject({
      name: 'Branch 1',
      timeZone: 'America/New_York',
      address: {
        address1: '1 Main St',
        address2: null,
        city: 'Springfield',
        stateCode: 'IL',
        zipCode: '62701',
        country: 'US',
      },
    })
  })

  test('connectedRestaurants pages through every location exactly once', async () => {
    addLocations(6)
    const seen: string[] = []
    let token: string | null = null
    let pages = 0
    do {
      const query: string = `pageSize=3${token ? `&pageToken=${encodeURIComponent(token)}` : ''}`
      const res = await t.request('GET', `/partners/v1/connectedRestaurants?${query}`)
      expect(res.status).toBe(200)
      pages++
      expect(res.body).toMatchObject({
        pageSize: 3,
        totalResultCount: pages === 1 ? 7 : 8,
        currentPageNum: pages,
      })
      expect(res.body.lastPage).toBe(res.body.nextPageToken === null)
      seen.push(...res.body.results.map((r: any) => r.id))
      token = res.body.nextPageToken
      // A location created mid-way is picked up at the end, never repeated.
      if (pages === 1) addLocations(1)
    } while (token)
    expect(pages).toBe(3)
    expect(seen).toHaveLength(8)
    expect(new Set(seen).size).toBe(8)
    const all = await t.request('GET', '/partners/v1/connectedRestaurants')
    expect(all.body).toMatchObject({
      pageSize: 100,
      lastPage: true,
      nextPageToken: null,
      totalResultCount: 8,
    })
  })

  test('pageSize outside 1..200 and foreign tokens are 400', async () => {
    for (const q of [
      'pageSize=0',
      'pageSize=201',
      'pageSize=abc',
      'pageToken=garbage',
      `pageToken=${Buffer.from('{"after":1}').toString('base64url')}`,
    ]) {
      const res = await t.request('GET', `/partners/v1/connectedRestaurants?${q}`)
      expect(res.status).toBe(400)
      expect(res.body.code).toBe('validation_failed')
    }
    expect((await t.request('GET', '/partners/v1/connectedRestaurants?pageSize=200')).status).toBe(200)
  })

  test('a restaurant’s general settings and address; unknown and foreign ids are 404', async () => {
    const [branch] = addLocations(1)
    const res = await t.request('GET', `/restaurants/v1/restaurants/${branch!.id}`)
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({
      guid: branch!.id,
      general: {
        name: 'Tenant acme',
        locationName: 'Branch 1',
        timeZone: 'America/New_York',
        currencyCode: 'USD',
      },
      location: { address1: '1 Main St', zipCode: '62701' },
    })
    expect((await t.request('GET', '/restaurants/v1/restaurants/nowhere')).status).toBe(404)
    const other = await t.addTenant('other')
    const foreign = await t.request('GET', `/restaurants/v1/restaurants/${branch!.id}`, {
      tenant: other,
      as: other.owner,
    })
    expect(foreign.status).toBe(404)
    const theirs = await t.request('GET', '/partners/v1/restaurants', { tenant: other, as: other.owner })
    expect(theirs.body.map((r: any) => r.id)).toEqual([other.locationId])
  })

  test('partners:read is required; a location-bound caller sees only its location', async () => {
    expect((await t.request('GET', '/partners/v1/restaurants', { as: null })).status).toBe(401)
    // Every built-in role reads; a job that denies partners:read closes it.
    const job = await t.request('POST', '/labor/jobs', {
      body: { title: 'Kitchen', accessPrimitives: { denies: ['partners:read'] } },
    })
    await t.request('POST', '/labor/job-assignments', {
      body: { staffUserId: t.tenant.staff.id, laborJobId: job.body.id, locationId: t.tenant.locationId },
    })
    expect((await t.request('GET', '/partners/v1/restaurants', { as: t.tenant.staff })).status).toBe(403)
    expect((await t.request('GET', '/partners/v1/connectedRestaurants', { as: t.tenant.staff })).status).toBe(
      403,
    )

    addLocations(2)
    const scoped = await t.addStaff(t.tenant, { role: 'staff', passcode: '2468' })
    const token = await t.passcodeSession(t.tenant, scoped, { passcode: '2468' })
    const mine = await t.request('GET', '/partners/v1/restaurants', { as: token })
    expect(mine.body.map((r: any) => r.id)).toEqual([t.tenant.locationId])
    const paged = await t.request('GET', '/partners/v1/connectedRestaurants', { as: token })
    expect(paged.body).toMatchObject({ totalResultCount: 1, lastPage: true })
  })
})
