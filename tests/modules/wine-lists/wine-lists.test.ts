// The seeded wine reference lists: present in every tenant with the same ids, read-only, filtered.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createTestApp, type TestApp } from '../../harness'

describe('wine reference lists', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await createTestApp()
  })
  afterAll(() => t.close())

  const all = async (path: string, key: string) => {
    const rows: Record<string, string>[] = []
    for (let page = 1; ; page++) {
      const res = await t.request('GET', `${path}${path.includes('?') ? '&' : '?'}limit=100&page=${page}`)
      expect(res.status).toBe(200)
      rows.push(...res.body[key])
      if (rows.length >= res.body.total) return rows
    }
  }

  test('appellations cover the major wine countries with their best-known appellations', async () => {
    const rows = await all('/wine-appellation', 'wineAppellations')
    expect(rows.length).toBeGreaterThan(300)
    const countries = new Set(rows.map((r) => r.countryCode))
    for (const cc of ['US', 'FR', 'IT', 'ES', 'AU', 'NZ', 'AR', 'CL', 'DE', 'PT', 'ZA'])
      expect(countries).toContain(cc)
    const has = (cc: string, region: string, appellation: string) =>
      expect(rows).toContainEqual(expect.objectContaining({ countryCode: cc, region, appellation }))
    has('US', 'California', 'Napa Valley')
    has('US', 'Oregon', 'Willamette Valley')
    has('FR', 'Bordeaux', 'Pauillac')
    has('FR', 'Burgundy', 'Meursault')
    has('FR', 'Champagne', 'Champagne')
    has('IT', 'Piedmont', 'Barolo')
    has('IT', 'Tuscany', 'Brunello di Montalcino')
    has('ES', 'La Rioja', 'Rioja')
    has('AU', 'South Australia', 'Barossa Valley')
    has('NZ', 'Marlborough', 'Marlborough')
    has('AR', 'Mendoza', 'Luján de Cuyo')
    has('CL', 'Central Valley', 'Colchagua Valley')
    has('DE', 'Rheinland-Pfalz', 'Mosel')
    has('PT', 'Douro', 'Porto')
    has('ZA', 'Coastal Region', 'Stellenbosch')
    expect(new Set(rows.map((r) => r.id)).size).toBe(rows.length)
  })

  test('varietals cover red, white, rosé and sparkling', async () => {
    const rows = await all('/wine-varietal', 'wineVarietals')
    expect(rows.length).toBeGreaterThan(90)
    const of = (type: string) => rows.filter((r) => r.type === type).map((r) => r.varietal)
    expect(of('Red')).toEqual(
      expect.arrayContaining(['Cabernet Sauvignon', 'Pinot Noir', 'Tempranillo', 'Nebbiolo']),
    )
    expect(of('White')).toEqual(
      expect.arrayContaining(['Chardonnay', 'Sauvignon Blanc', 'Riesling', 'Albariño']),
    )
    expect(of('Rosé')).toEqual(expect.arrayContaining(['Rosé of Pinot Noir', 'Rosé Blend']))
    expect(of('Sparkling')).toEqual(expect.arrayContaining(['Blanc de Blancs', 'Glera']))
  })

  test('countryCode (any case) and q filter appellations; total counts matches', async () => {
    const nz = await t.request('GET', '/wine-appellation?countryCode=nz&limit=100')
    expect(nz.body.total).toBe(nz.body.wineAppellations.length)
    expect(nz.body.wineAppellations.every((r: { countryCode: string }) => r.countryCode === 'NZ')).toBe(true)
    const valley = await t.request('GET', '/wine-appellation?countryCode=US&q=VALLEY&limit=2')
    expect(valley.body.wineAppellations).toHaveLength(2)
    expect(valley.body.total).toBeGreaterThan(10)
    const byRegion = await t.request('GET', '/wine-appellation?q=piedmont&limit=100')
    expect(byRegion.body.wineAppellations.map((r: { appellation: string }) => r.appellation)).toContain(
      'Barolo',
    )
    expect((await t.request('GET', '/wine-appellation?q=nowhere-at-all')).body).toEqual({
      wineAppellations: [],
      total: 0,
    })
  })

  test('type and q filter varietals', async () => {
    const pinot = await t.request('GET', '/wine-varietal?q=pinot&type=White')
    expect(pinot.body.wineVarietals.map((r: { varietal: string }) => r.varietal)).toEqual([
      'Pinot Blanc',
      'Pinot Grigio',
      'Pinot Gris',
    ])
    expect(pinot.body.total).toBe(3)
  })

  test('bad filters are 400', async () => {
    for (const url of [
      '/wine-appellation?countryCode=USA',
      '/wine-appellation?countryCode=1',
      '/wine-appellation?limit=101',
      '/wine-varietal?type=Orange',
      '/wine-varietal?page=0',
    ]) {
      const res = await t.request('GET', url)
      expect(res.status, url).toBe(400)
      expect(res.body.code).toBe('validation_failed')
    }
  })

  test('get by id; unknown ids are 404', async () => {
    const first = (await t.request('GET', '/wine-varietal?limit=1')).body.wineVarietals[0]
    expect((await t.request('GET', `/wine-varietal/${first.id}`)).body).toEqual(first)
    const app = (await t.request('GET', '/wine-appellation?limit=1')).body.wineAppellations[0]
    expect((await t.request('GET', `/wine-appellation/${app.id}`)).body).toEqual(app)
    expect((await t.request('GET', '/wine-varietal/nope')).status).toBe(404)
    expect((await t.request('GET', '/wine-appellation/nope')).status).toBe(404)
  })

  test('read-only: no write routes, and reading needs products:read', async () => {
    for (const method of ['POST', 'PUT', 'DELETE']) {
      const res = await t.request(method, method === 'POST' ? '/wine-varietal' : '/wine-varietal/x', {
        body: {},
      })
      // The paths exist for reading only: 405, with GET (and HEAD) the only methods allowed.
      expect(res.status).toBe(405)
      expect(res.headers.get('allow')).toBe('GET, HEAD')
    }
    expect((await t.request('GET', '/wine-varietal', { as: t.tenant.readOnly })).status).toBe(200)
    const nobody = await t.addStaff(t.tenant)
    const res = await t.request('GET', '/wine-appellation', { as: nobody })
    expect(res.status).toBe(403)
    expect(res.body.requiredPermission).toBe('products:read')
    expect((await t.request('GET', '/wine-appellation', { as: null })).status).toBe(401)
  })

  test('every tenant has the same lists with the same ids', async () => {
    const other = await t.addTenant('other')
    const mine = await t.request('GET', '/wine-appellation?countryCode=FR&limit=100')
    const theirs = await t.request('GET', '/wine-appellation?countryCode=FR&limit=100', {
      as: other.owner,
      tenant: other,
    })
    expect(theirs.body).toEqual(mine.body)
  })
})
