// Club release routes under /club and /clubs: the release lifecycle, validation, permissions,
// other tenants' and other clubs' ids, OpenAPI, audit entries and events.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createTestApp, type TenantFixture, type TestApp } from '../../harness'
import { activeRelease, member, ok, processNow, releaseBody, type Winery, winery } from './setup'

let t: TestApp
let w: Winery
let other: TenantFixture
let otherWinery: Winery

beforeAll(async () => {
  t = await createTestApp()
  w = await winery(t)
  other = await t.addTenant('other-winery')
  otherWinery = await winery(t, other)
})
afterAll(() => t.close())

const rows = (sql: string, ...params: string[]) => t.tenant.db.$client.query(sql).all(...params) as any[]

describe('club releases: lifecycle', () => {
  test('create answers 201 Planning with items resolved, prices and totals; both mounts read it', async () => {
    const res = await t.request('POST', `/club/${w.clubId}/releases`, {
      body: releaseBody(w, { shipDate: '2026-11-05', deliveryMethods: ['Ship'] }),
    })
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({
      clubId: w.clubId,
      title: 'Autumn release',
      status: 'Planning',
      processDate: '2026-11-01',
      shipDate: '2026-11-05',
      deliveryMethods: ['Ship'],
      items: [
        {
          productVariantId: w.pinotId,
          sku: 'PINOT-22',
          title: 'Pinot Noir 2022 750ml',
          quantity: 2,
          price: null,
          unitPrice: 4500,
        },
        { productVariantId: w.chardId, sku: 'CHARD-23', quantity: 1, price: 3200, unitPrice: 3200 },
      ],
      totals: { quantity: 3, subtotal: 12200 },
      summary: { Processed: { count: 0, amount: 0 } },
    })
    for (const prefix of ['/club', '/clubs']) {
      expect((await ok(t, 'GET', `${prefix}/${w.clubId}/releases/${res.body.id}`)).id).toBe(res.body.id)
      const list = await ok(t, 'GET', `${prefix}/${w.clubId}/releases?status=Planning`)
      expect(list.clubReleases.map((r: any) => r.id)).toContain(res.body.id)
      expect(list.total).toBe(list.clubReleases.length)
    }
    expect((await ok(t, 'GET', `/club/${w.clubId}/releases?status=Archived`)).total).toBe(0)
    expect(rows('SELECT action FROM audit_entries WHERE entity_id = ?', res.body.id)).toEqual([
      { action: 'club_release.create' },
    ])
    expect(rows('SELECT object, action FROM outbox_events WHERE aggregate_id = ?', res.body.id)).toEqual([
      { object: 'club_release', action: 'create' },
    ])
  })

  test('update while Planning; activate once (irreversible); archive once; each move audited', async () => {
    const id = (await ok(t, 'POST', `/clubs/${w.clubId}/releases`, releaseBody(w))).id
    const updated = await ok(t, 'PUT', `/clubs/${w.clubId}/releases/${id}`, {
      title: 'Late autumn',
      items: [{ sku: 'PINOT-22', quantity: 3 }],
    })
    expect(updated).toMatchObject({ title: 'Late autumn', totals: { quantity: 3, subtotal: 13500 } })
    const active = await ok(t, 'POST', `/club/${w.clubId}/releases/${id}/activate`)
    expect(active).toMatchObject({ status: 'Active', activatedAt: expect.any(String) })
    for (const [method, path] of [
      ['PUT', `/club/${w.clubId}/releases/${id}`],
      ['POST', `/club/${w.clubId}/releases/${id}/activate`],
    ] as const) {
      const res = await t.request(method, path, { body: method === 'PUT' ? { title: 'x' } : undefined })
      expect(res.status).toBe(409)
      expect(res.body.currentStatus).toBe('Active')
    }
    const archived = await ok(t, 'POST', `/club/${w.clubId}/releases/${id}/archive`)
    expect(archived).toMatchObject({ status: 'Archived', archivedAt: expect.any(String) })
    for (const action of ['archive', 'process', 'retry']) {
      const res = await t.request('POST', `/club/${w.clubId}/releases/${id}/${action}`)
      expect(res.status).toBe(409)
      expect(res.body.currentStatus).toBe('Archived')
    }
    expect(
      rows('SELECT action FROM audit_entries WHERE entity_id = ? ORDER BY seq', id).map((r) => r.action),
    ).toEqual(['club_release.create', 'club_release.update', 'club_release.activate', 'club_release.archive'])
  })

  test('a Planning release cannot be processed (409)', async () => {
    const id = (await ok(t, 'POST', `/club/${w.clubId}/releases`, releaseBody(w))).id
    const res = await t.request('POST', `/club/${w.clubId}/releases/${id}/process`)
    expect(res.status).toBe(409)
    expect(res.body.currentStatus).toBe('Planning')
  })

  test('process answers 202 with the run id; the run and the shipment are audited with events', async () => {
    const { membershipId } = await member(t, w.clubId, { method: 'Pickup' })
    // Processed before its date, on request: the scheduler does not run it as well.
    const id = await activeRelease(t, w, { processDate: '2027-06-01' })
    const res = await t.request('POST', `/clubs/${w.clubId}/releases/${id}/process`)
    expect(res.status).toBe(202)
    expect(res.body).toEqual({ runId: expect.any(String) })
    await t.platform.jobs.runNow('club-releases.process')
    const shipments = await ok(t, 'GET', `/clubs/${w.clubId}/releases/${id}/shipments?status=Processed`)
    const mine = shipments.clubShipments.find((s: any) => s.membershipId === membershipId)
    expect(mine).toMatchObject({ status: 'Processed', attempts: 1 })
    expect(
      rows('SELECT action FROM audit_entries WHERE entity_id = ? ORDER BY seq', mine.id).map((r) => r.action),
    ).toEqual(['club_shipment.create', 'club_shipment.order', 'club_shipment.process'])
    expect(
      rows('SELECT action FROM outbox_events WHERE aggregate_id = ? ORDER BY seq', id).map((r) => r.action),
    ).toEqual(['create', 'activate', 'process', 'run_start', 'run_finish'])
    expect(
      rows(
        'SELECT action FROM audit_entries WHERE entity_id = ? AND action = ?',
        membershipId,
        'club_membership.process',
      ),
    ).toHaveLength(1)
  })
})

describe('club releases: validation', () => {
  const cases: [string, unknown, string][] = [
    [
      'no title',
      { ...releaseBody({} as Winery), title: undefined, items: [{ sku: 'PINOT-22', quantity: 1 }] },
      'title',
    ],
    [
      'an impossible date',
      { title: 'x', processDate: '2026-02-30', items: [{ sku: 'PINOT-22', quantity: 1 }] },
      'processDate',
    ],
    ['no items', { title: 'x', processDate: '2026-03-01', items: [] }, 'items'],
    [
      'a zero quantity',
      { title: 'x', processDate: '2026-03-01', items: [{ sku: 'PINOT-22', quantity: 0 }] },
      'items',
    ],
    [
      'a negative price',
      { title: 'x', processDate: '2026-03-01', items: [{ sku: 'PINOT-22', quantity: 1, price: -1 }] },
      'items',
    ],
    [
      'an unknown SKU',
      { title: 'x', processDate: '2026-03-01', items: [{ sku: 'NOPE', quantity: 1 }] },
      'body/items/0/sku',
    ],
    [
      'neither variant nor SKU',
      { title: 'x', processDate: '2026-03-01', items: [{ quantity: 1 }] },
      'body/items/0/productVariantId',
    ],
    [
      'an unknown delivery method',
      {
        title: 'x',
        processDate: '2026-03-01',
        items: [{ sku: 'PINOT-22', quantity: 1 }],
        deliveryMethods: ['Drone'],
      },
      'deliveryMethods',
    ],
    [
      'an unknown field',
      { title: 'x', processDate: '2026-03-01', items: [{ sku: 'PINOT-22', quantity: 1 }], colour: 'red' },
      '',
    ],
  ]
  for (const [name, body, path] of cases)
    test(`create refuses ${name} (400)`, async () => {
      const res = await t.request('POST', `/club/${w.clubId}/releases`, { body })
      expect(res.status).toBe(400)
      if (path) expect(JSON.stringify(res.body.errors ?? res.body)).toContain(path)
    })

  test('update and list refuse bad input (400) and write nothing', async () => {
    const id = (await ok(t, 'POST', `/club/${w.clubId}/releases`, releaseBody(w))).id
    expect(
      (
        await t.request('PUT', `/club/${w.clubId}/releases/${id}`, {
          body: { items: [{ sku: 'NOPE', quantity: 1 }] },
        })
      ).status,
    ).toBe(400)
    expect((await t.request('GET', `/club/${w.clubId}/releases?status=Done`)).status).toBe(400)
    expect((await t.request('GET', `/club/${w.clubId}/releases/${id}/shipments?status=Done`)).status).toBe(
      400,
    )
    expect((await ok(t, 'GET', `/club/${w.clubId}/releases/${id}`)).items[0].sku).toBe('PINOT-22')
  })
})

describe('club releases: security', () => {
  let planning: string
  let active: string
  let shipmentId: string
  beforeAll(async () => {
    planning = (await ok(t, 'POST', `/club/${w.clubId}/releases`, releaseBody(w))).id
    await member(t, w.clubId, { method: 'Pickup', token: null })
    active = await activeRelease(t, w)
    await processNow(t, w.clubId, active)
    shipmentId = (await ok(t, 'GET', `/club/${w.clubId}/releases/${active}/shipments?status=Declined`))
      .clubShipments[0].id
  })

  const writes = () =>
    [
      ['POST', `/club/${w.clubId}/releases`, releaseBody(w)],
      ['PUT', `/club/${w.clubId}/releases/${planning}`, { title: 'x' }],
      ['POST', `/club/${w.clubId}/releases/${planning}/activate`],
      ['POST', `/club/${w.clubId}/releases/${planning}/archive`],
      ['POST', `/club/${w.clubId}/releases/${active}/process`],
      ['POST', `/club/${w.clubId}/releases/${active}/retry`],
      ['POST', `/club/${w.clubId}/releases/${active}/shipments/${shipmentId}/retry`],
    ] as const

  test('read-only staff may read but not write (403), and a refusal writes nothing', async () => {
    const before = rows('SELECT count(*) AS n FROM audit_entries')[0].n
    for (const [method, path, body] of writes()) {
      const res = await t.request(method, path, { as: t.tenant.readOnly, body })
      expect(res.status, `${method} ${path}`).toBe(403)
    }
    expect(rows('SELECT count(*) AS n FROM audit_entries')[0].n).toBe(before)
    expect(
      (await t.request('GET', `/club/${w.clubId}/releases/${active}`, { as: t.tenant.readOnly })).status,
    ).toBe(200)
    expect(
      (await t.request('GET', `/club/${w.clubId}/releases/${active}/shipments`, { as: t.tenant.readOnly }))
        .status,
    ).toBe(200)
  })

  test('another tenant’s club, release and shipment ids are 404', async () => {
    const reads = [
      ['GET', `/club/${w.clubId}/releases`],
      ['GET', `/club/${w.clubId}/releases/${active}`],
      ['GET', `/club/${w.clubId}/releases/${active}/shipments`],
    ] as const
    for (const [method, path, body] of [...writes(), ...reads]) {
      const res = await t.request(method, path, { as: other.owner, tenant: other, body })
      expect(res.status, `${method} ${path}`).toBe(404)
    }
  })

  test('a release of another club of the tenant, and a shipment of another release, are 404', async () => {
    const otherClub = (await ok(t, 'POST', '/club', { title: 'Second club', slug: 'second-club' })).id
    expect((await t.request('GET', `/club/${otherClub}/releases/${active}`)).status).toBe(404)
    expect((await t.request('POST', `/club/${otherClub}/releases/${active}/process`)).status).toBe(404)
    expect(
      (await t.request('POST', `/club/${w.clubId}/releases/${planning}/shipments/${shipmentId}/retry`))
        .status,
    ).toBe(404)
    expect((await t.request('GET', `/club/${otherWinery.clubId}/releases`)).status).toBe(404)
  })
})

describe('club releases: OpenAPI', () => {
  test('every release route is documented under both mounts, bodies and run answers with examples', async () => {
    const spec = (await t.request('GET', '/openapi.json', { as: null })).body
    for (const prefix of ['/club', '/clubs']) {
      const base = `${prefix}/{id}/releases`
      const ops: [string, string][] = [
        [base, 'get'],
        [base, 'post'],
        [`${base}/{releaseId}`, 'get'],
        [`${base}/{releaseId}`, 'put'],
        [`${base}/{releaseId}/activate`, 'post'],
        [`${base}/{releaseId}/archive`, 'post'],
        [`${base}/{releaseId}/process`, 'post'],
        [`${base}/{releaseId}/retry`, 'post'],
        [`${base}/{releaseId}/shipments`, 'get'],
        [`${base}/{releaseId}/shipments/{shipmentId}/retry`, 'post'],
      ]
      for (const [path, method] of ops) {
        const op = spec.paths[path]?.[method]
        expect(op?.summary, `${method} ${path}`).toBeString()
        expect(op['x-permission']).toMatch(/^clubs:(read|write)$/)
      }
      // Shared schemas are $refs to components: their examples count as the operation's.
      const json = (op: any) => {
        const text = JSON.stringify(op)
        const refs = [...text.matchAll(/#\/components\/schemas\/(\w+)/g)].map(
          (m) => spec.components.schemas[m[1]!],
        )
        return text + JSON.stringify(refs)
      }
      expect(json(spec.paths[base].post.requestBody)).toContain('"examples"')
      expect(json(spec.paths[`${base}/{releaseId}`].put.requestBody)).toContain('"examples"')
      expect(json(spec.paths[`${base}/{releaseId}/process`].post.responses['202'])).toContain('"examples"')
      expect(json(spec.paths[`${base}/{releaseId}`].get.responses['200'])).toContain('"examples"')
      const retry = spec.paths[`${base}/{releaseId}/shipments/{shipmentId}/retry`].post
      expect(json(retry.responses['200'])).toContain('"examples"')
    }
  })
})
