import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { countRows, createTestApp, type TestApp } from '../../harness'
import { book, inDays, options, publishedExperience } from './helpers'

let t: TestApp
beforeEach(async () => {
  t = await createTestApp()
})
afterEach(() => t.close())

const publishBody = { publicName: 'Chef’s table', partyMin: 2, partyMax: 6, cutoffMinutes: 30 }

async function draft(name = 'Chef’s table') {
  const res = await t.request('POST', '/tables/v1/experiences', { body: { name } })
  expect(res.status).toBe(201)
  return res.body.data.id as string
}

describe('experiences', () => {
  test('create is a draft at the tenant’s only location; list, filter by status and search', async () => {
    const id = await draft()
    await publishedExperience(t, { name: 'Brunch' })
    const got = await t.request('GET', `/tables/v1/experiences/${id}`)
    expect(got.body.data).toMatchObject({
      id,
      status: 'draft',
      currentVersion: null,
      locationId: t.tenant.locationId,
    })
    const all = await t.request('GET', '/tables/v1/experiences')
    expect(all.body.data.map((e: { name: string }) => e.name)).toEqual(['Brunch', 'Chef’s table'])
    expect(all.body.page).toEqual({ total: 2, page: 1, limit: 50 })
    const drafts = await t.request('GET', '/tables/v1/experiences?status=draft')
    expect(drafts.body.data.map((e: { id: string }) => e.id)).toEqual([id])
    expect((await t.request('GET', '/tables/v1/experiences?q=brun')).body.data).toHaveLength(1)
  })

  test('create validation: missing name, unknown field, unknown location', async () => {
    expect((await t.request('POST', '/tables/v1/experiences', { body: {} })).status).toBe(400)
    expect(
      (await t.request('POST', '/tables/v1/experiences', { body: { name: 'x', extra: 1 } })).status,
    ).toBe(400)
    const res = await t.request('POST', '/tables/v1/experiences', {
      body: { name: 'x', locationId: crypto.randomUUID() },
    })
    expect(res.status).toBe(400)
    expect(countRows(t.tenant.db, 'experiences')).toBe(0)
  })

  test('each publish makes a new immutable version; reservations keep theirs', async () => {
    const id = await draft()
    expect((await t.request('GET', `/tables/v1/experiences/${id}/published`)).status).toBe(404)
    const v1 = await t.request('POST', `/tables/v1/experiences/${id}/publish`, {
      body: {
        ...publishBody,
        schedule: [{ daysOfWeek: [0, 1, 2, 3, 4, 5, 6], times: ['18:00'], capacity: 10 }],
      },
    })
    expect(v1.status).toBe(201)
    expect(v1.body.data).toMatchObject({
      versionNumber: 1,
      partyMin: 2,
      durationMinutes: 90,
      visibility: 'public',
    })
    const made = (await book(t, { date: inDays(3) })).body.data
    expect(made.experienceVersionId).toBe(v1.body.data.id)

    const v2 = await t.request('POST', `/tables/v1/experiences/${id}/publish`, {
      body: { ...publishBody, publicName: 'Chef’s counter', partyMax: 4 },
    })
    expect(v2.body.data).toMatchObject({ versionNumber: 2, publicName: 'Chef’s counter', partyMax: 4 })
    // The schedule carried over from version 1.
    expect(v2.body.data.schedule).toEqual(v1.body.data.schedule)
    expect((await t.request('GET', `/tables/v1/experiences/${id}/published`)).body.data.id).toBe(
      v2.body.data.id,
    )
    const stored = t.tenant.db.$client
      .query('SELECT public_name AS name FROM experience_versions WHERE id = ?')
      .get(v1.body.data.id) as { name: string }
    expect(stored.name).toBe('Chef’s table')
    const kept = await t.request(
      'GET',
      `/tables-api/v1/locations/${t.tenant.locationId}/reservations/${made.id}`,
    )
    expect(kept.body.data.experienceVersionId).toBe(v1.body.data.id)
    // New options name the new version.
    const offered = await options(t, { date: inDays(3), partySize: 2 })
    expect(offered.body.data[0].experienceVersionId).toBe(v2.body.data.id)
  })

  test('publish validation: partyMin above partyMax, negative cutoff, string numbers, clashing slots, priced free slot', async () => {
    const id = await draft()
    const publish = (body: unknown) => t.request('POST', `/tables/v1/experiences/${id}/publish`, { body })
    const minMax = await publish({ ...publishBody, partyMin: 5, partyMax: 2 })
    expect(minMax.status).toBe(400)
    expect(minMax.body.errors[0].path).toBe('body/partyMin')
    expect((await publish({ ...publishBody, cutoffMinutes: -1 })).status).toBe(400)
    expect((await publish({ ...publishBody, partyMin: '2' })).status).toBe(400)
    expect((await publish({ publicName: 'x', partyMin: 1, partyMax: 2 })).status).toBe(400)
    const clash = await publish({
      ...publishBody,
      schedule: [
        { daysOfWeek: [1, 2], times: ['18:00'], capacity: 4 },
        { daysOfWeek: [2], times: ['18:00', '19:00'], capacity: 4 },
      ],
    })
    expect(clash.status).toBe(400)
    expect(clash.body.errors[0].path).toBe('body/schedule/1/times')
    const priced = await publish({
      ...publishBody,
      schedule: [{ daysOfWeek: [1], times: ['18:00'], capacity: 4, priceAmount: 100 }],
    })
    expect(priced.status).toBe(400)
    expect(
      (await publish({ ...publishBody, schedule: [{ daysOfWeek: [1], times: ['25:00'], capacity: 4 }] }))
        .status,
    ).toBe(400)
    expect(countRows(t.tenant.db, 'experience_versions')).toBe(0)
  })

  test('archive and restore: refused twice, archived is not offered nor publishable', async () => {
    const { id } = await publishedExperience(t)
    const archived = await t.request('POST', `/tables/v1/experiences/${id}/archive`)
    expect(archived.body.data).toMatchObject({ status: 'archived' })
    expect((await t.request('POST', `/tables/v1/experiences/${id}/archive`)).status).toBe(409)
    expect((await options(t, { date: inDays(3), partySize: 2 })).body.data).toEqual([])
    expect(
      (await t.request('POST', `/tables/v1/experiences/${id}/publish`, { body: publishBody })).status,
    ).toBe(409)
    const restored = await t.request('POST', `/tables/v1/experiences/${id}/restore`)
    expect(restored.body.data).toMatchObject({ status: 'published', archivedAt: null })
    expect((await t.request('POST', `/tables/v1/experiences/${id}/restore`)).status).toBe(409)
    expect((await options(t, { date: inDays(3), partySize: 2 })).body.data).toHaveLength(2)
  })

  test('private link: a private experience is offered only through its link; rotation kills the old link', async () => {
    const { id } = await publishedExperience(t, { visibility: 'private' })
    expect((await options(t, { date: inDays(3), partySize: 2 })).body.data).toEqual([])
    const link = (await t.request('GET', `/tables/v1/experiences/${id}/private-link`)).body.data
    expect(link.experienceId).toBe(id)
    expect(link.path).toContain(link.token)
    const via = await options(t, { date: inDays(3), partySize: 2, privateLink: link.token })
    expect(via.body.data).toHaveLength(2)

    const rotated = await t.request('POST', `/tables/v1/experiences/${id}/private-link/rotate`)
    expect(rotated.status).toBe(200)
    expect(rotated.body.data.token).not.toBe(link.token)
    expect(rotated.body.data.rotatedAt).toBeString()
    const old = await options(t, { date: inDays(3), partySize: 2, privateLink: link.token })
    expect(old.status).toBe(404)
    const fresh = await options(t, { date: inDays(3), partySize: 2, privateLink: rotated.body.data.token })
    expect(fresh.body.data).toHaveLength(2)
    const audit = t.tenant.db.$client
      .query("SELECT metadata FROM audit_entries WHERE action = 'experience.private_link.rotate'")
      .get() as { metadata: string }
    expect(audit.metadata).not.toContain(rotated.body.data.token)
  })

  test('schedules list the current version of published, unarchived experiences', async () => {
    const { id, versionId } = await publishedExperience(t, {
      slots: [
        {
          daysOfWeek: [5, 6],
          times: ['17:00', '19:00'],
          capacity: 12,
          priceAmount: 4000,
          paymentOption: 'deposit',
        },
      ],
    })
    await draft('Not yet')
    const res = await t.request('GET', '/tables/v1/schedules')
    expect(res.body.data).toEqual([
      expect.objectContaining({
        experienceId: id,
        experienceVersionId: versionId,
        timeZone: 'America/Los_Angeles',
        slots: [
          {
            daysOfWeek: [5, 6],
            times: ['17:00', '19:00'],
            capacity: 12,
            priceAmount: 4000,
            currency: 'USD',
            paymentOption: 'deposit',
          },
        ],
      }),
    ])
  })

  test('permissions: read-only reads but cannot create, publish, archive or rotate', async () => {
    const { id } = await publishedExperience(t)
    const as = t.tenant.readOnly
    expect((await t.request('GET', '/tables/v1/experiences', { as })).status).toBe(200)
    expect((await t.request('POST', '/tables/v1/experiences', { as, body: { name: 'x' } })).status).toBe(403)
    expect(
      (await t.request('POST', `/tables/v1/experiences/${id}/publish`, { as, body: publishBody })).status,
    ).toBe(403)
    expect((await t.request('POST', `/tables/v1/experiences/${id}/archive`, { as })).status).toBe(403)
    expect((await t.request('POST', `/tables/v1/experiences/${id}/private-link/rotate`, { as })).status).toBe(
      403,
    )
    expect((await t.request('GET', '/tables/v1/experiences', { as: null })).status).toBe(401)
  })

  test('another tenant’s experience is 404 everywhere', async () => {
    const { id } = await publishedExperience(t)
    const other = await t.addTenant('other')
    const as = other.owner
    for (const [method, path] of [
      ['GET', `/tables/v1/experiences/${id}`],
      ['GET', `/tables/v1/experiences/${id}/published`],
      ['GET', `/tables/v1/experiences/${id}/private-link`],
      ['POST', `/tables/v1/experiences/${id}/archive`],
      ['POST', `/tables/v1/experiences/${id}/private-link/rotate`],
    ] as const)
      expect((await t.request(method, path, { as, tenant: other })).status).toBe(404)
    const publish = await t.request('POST', `/tables/v1/experiences/${id}/publish`, {
      as,
      tenant: other,
      body: publishBody,
    })
    expect(publish.status).toBe(404)
  })
})

describe('location mapping', () => {
  const body = {
    tenantLocationCode: 'main',
    publicSlug: 'acme-bistro',
    publicName: 'Acme Bistro',
    isPublic: true,
  }

  test('404 until set; PUT sets and replaces; audited', async () => {
    expect((await t.request('GET', '/tables/v1/settings/location-mapping')).status).toBe(404)
    const put = await t.request('PUT', '/tables/v1/settings/location-mapping', { body })
    expect(put.status).toBe(200)
    expect(put.body.data).toMatchObject({ ...body, locationId: t.tenant.locationId })
    const again = await t.request('PUT', '/tables/v1/settings/location-mapping', {
      body: { ...body, isPublic: false },
    })
    expect(again.body.data.isPublic).toBe(false)
    expect((await t.request('GET', '/tables/v1/settings/location-mapping')).body.data.isPublic).toBe(false)
    const audits = t.tenant.db.$client
      .query("SELECT action FROM audit_entries WHERE action LIKE 'tables.location_mapping.%' ORDER BY rowid")
      .all()
    expect(audits.map((a) => (a as { action: string }).action)).toEqual([
      'tables.location_mapping.create',
      'tables.location_mapping.update',
    ])
  })

  test('validation and permission', async () => {
    const put = (b: unknown, as = t.tenant.owner) =>
      t.request('PUT', '/tables/v1/settings/location-mapping', { as, body: b })
    expect((await put({ ...body, publicSlug: 'Not A Slug' })).status).toBe(400)
    expect((await put({ ...body, isPublic: 'true' })).status).toBe(400)
    expect((await put({ ...body, locationId: crypto.randomUUID() })).status).toBe(400)
    const { isPublic: _omit, ...missing } = body
    expect((await put(missing)).status).toBe(400)
    expect((await put(body, t.tenant.readOnly)).status).toBe(403)
    expect(countRows(t.tenant.db, 'tables_location_mapping')).toBe(0)
  })
})
