// Media assets once uploaded: list filters, attach, reuse, soft delete and restore; validation,
// permissions, tenant isolation and location scope.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { countRows, createTestApp, runScenarios, type ScenarioContext, type TestApp } from '../../harness'
import { createProduct } from '../products/fixtures'
import { png } from './files'
import { putBytes, readyAsset, startUpload } from './helpers'

let t: TestApp
beforeEach(async () => {
  t = await createTestApp()
})
afterEach(() => t.close())

/** Locations are made by the command line in this service (no route): through the service. */
const addLocation = (name: string) => t.addLocation(t.tenant, { name, timezone: 'America/Los_Angeles' })
const ids = (assets: { id: string }[]) => assets.map((a) => a.id)
const fileOf = (asset: { publicUrl: string }) => t.app.handle(new Request(asset.publicUrl))

describe('attach', () => {
  test('links a ready asset to a product, audited with an event; re-attaching the same is a no-op', async () => {
    const product = await createProduct(t)
    const asset = await readyAsset(t, png(2, 2))
    const attach = { entityType: 'product', entityId: product.id, role: 'primary' }
    const res = await t.request('POST', `/media/assets/${asset.id}/attach`, { body: attach })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({
      linkedEntityType: 'product',
      linkedEntityId: product.id,
      role: 'primary',
    })
    const audits = countRows(t.tenant.db, 'audit_entries')
    const again = await t.request('POST', `/media/assets/${asset.id}/attach`, { body: attach })
    expect(again.body).toEqual(res.body)
    expect(countRows(t.tenant.db, 'audit_entries')).toBe(audits)
    const events = t.tenant.db.$client
      .query(`SELECT action FROM outbox_events WHERE aggregate_id = ? AND action = 'attach'`)
      .all(asset.id)
    expect(events).toHaveLength(1)
  })

  test('moves an asset to another record and role', async () => {
    const asset = await readyAsset(t, png(2, 2))
    await t.request('POST', `/media/assets/${asset.id}/attach`, {
      body: { entityType: 'location', entityId: t.tenant.locationId, role: 'hero' },
    })
    const moved = await t.request('POST', `/media/assets/${asset.id}/attach`, {
      body: { entityType: 'menu', entityId: 'dinner-2025', role: 'cover' },
    })
    expect(moved.body).toMatchObject({
      linkedEntityType: 'menu',
      linkedEntityId: 'dinner-2025',
      role: 'cover',
    })
  })

  test('an unknown record of a known type is 404; a draft is 409', async () => {
    const asset = await readyAsset(t, png(2, 2))
    for (const entityType of ['product', 'location', 'customer', 'collection', 'vendor', 'staff_user']) {
      const res = await t.request('POST', `/media/assets/${asset.id}/attach`, {
        body: { entityType, entityId: 'no-such-record', role: 'primary' },
      })
      expect(res.status).toBe(404)
    }
    const { asset: draft } = await startUpload(t, { kind: 'logo' })
    const res = await t.request('POST', `/media/assets/${draft.id}/attach`, {
      body: { entityType: 'location', entityId: t.tenant.locationId, role: 'logo' },
    })
    expect(res.status).toBe(409)
    expect(res.body.asset).toEqual({ id: draft.id, status: 'draft' })
  })
})

describe('reuse', () => {
  test('a new ready asset for the same file at another location and record', async () => {
    const otherLocation = addLocation('Tasting room')
    const product = await createProduct(t)
    const source = await readyAsset(t, png(3, 3), { kind: 'product_image', locationId: t.tenant.locationId })
    const res = await t.request('POST', `/media/assets/${source.id}/reuse`, {
      body: {
        locationId: otherLocation.id,
        linkedEntityType: 'product',
        linkedEntityId: product.id,
        role: 'gallery',
      },
    })
    expect(res.status).toBe(201)
    const copy = res.body
    expect(copy.id).not.toBe(source.id)
    expect(copy).toMatchObject({
      status: 'ready',
      locationId: otherLocation.id,
      linkedEntityType: 'product',
      linkedEntityId: product.id,
      role: 'gallery',
      reusedFromAssetId: source.id,
      providerAssetId: source.providerAssetId,
      publicUrl: source.publicUrl,
      checksum: source.checksum,
      width: 3,
      height: 3,
    })
    // Default location: the source's.
    const sameLocation = await t.request('POST', `/media/assets/${source.id}/reuse`, {
      body: { linkedEntityType: 'menu', linkedEntityId: 'brunch', role: 'cover' },
    })
    expect(sameLocation.body.locationId).toBe(t.tenant.locationId)

    const atOther = await t.request('GET', `/media/assets?locationId=${otherLocation.id}`)
    expect(ids(atOther.body)).toEqual([copy.id])

    // Deleting the source leaves the file served for the copies.
    expect((await t.request('DELETE', `/media/assets/${source.id}`)).status).toBe(204)
    expect((await fileOf(copy)).status).toBe(200)
    await t.request('DELETE', `/media/assets/${copy.id}`)
    await t.request('DELETE', `/media/assets/${sameLocation.body.id}`)
    expect((await fileOf(copy)).status).toBe(404)
  })

  test('a draft or deleted asset cannot be reused (409); an unknown location is 404', async () => {
    const body = { linkedEntityType: 'menu', linkedEntityId: 'x', role: 'cover' }
    const { asset: draft } = await startUpload(t, { kind: 'logo' })
    expect((await t.request('POST', `/media/assets/${draft.id}/reuse`, { body })).status).toBe(409)
    const ready = await readyAsset(t, png(1, 1))
    const before = countRows(t.tenant.db, 'media_assets')
    const unknown = await t.request('POST', `/media/assets/${ready.id}/reuse`, {
      body: { ...body, locationId: 'no-such-location' },
    })
    expect(unknown.status).toBe(404)
    expect(countRows(t.tenant.db, 'media_assets')).toBe(before)
    await t.request('DELETE', `/media/assets/${ready.id}`)
    expect((await t.request('POST', `/media/assets/${ready.id}/reuse`, { body })).status).toBe(409)
  })
})

describe('delete and restore', () => {
  test('soft delete hides the asset and its file; restore brings both back', async () => {
    const asset = await readyAsset(t, png(2, 2))
    const del = await t.request('DELETE', `/media/assets/${asset.id}`)
    expect(del.status).toBe(204)
    expect(del.text).toBe('')
    expect(ids((await t.request('GET', '/media/assets')).body)).toEqual([])
    const deleted = await t.request('GET', '/media/assets?status=deleted')
    expect(deleted.body).toMatchObject([{ id: asset.id, status: 'deleted' }])
    expect(deleted.body[0].deletedAt).toBeString()
    expect((await fileOf(asset)).status).toBe(404)

    // Deleting again changes nothing.
    const audits = countRows(t.tenant.db, 'audit_entries')
    expect((await t.request('DELETE', `/media/assets/${asset.id}`)).status).toBe(204)
    expect(countRows(t.tenant.db, 'audit_entries')).toBe(audits)

    const restored = await t.request('POST', `/media/assets/${asset.id}/restore`)
    expect(restored.status).toBe(200)
    expect(restored.body).toMatchObject({ status: 'ready', deletedAt: null, publicUrl: asset.publicUrl })
    expect((await fileOf(asset)).status).toBe(200)
    expect(ids((await t.request('GET', '/media/assets')).body)).toEqual([asset.id])

    const twice = await t.request('POST', `/media/assets/${asset.id}/restore`)
    expect(twice.status).toBe(409)
    expect(twice.body.asset).toEqual({ id: asset.id, status: 'ready' })

    const actions = t.tenant.db.$client
      .query(`SELECT action FROM outbox_events WHERE aggregate_id = ? ORDER BY created_at`)
      .all(asset.id)
      .map((r: any) => r.action)
    expect(actions).toEqual(['create', 'complete', 'delete', 'restore'])
  })

  test('a restored draft is a draft again and can still take its upload', async () => {
    const { asset, uploadUrl } = await startUpload(t, { kind: 'logo' })
    await t.request('DELETE', `/media/assets/${asset.id}`)
    const restored = await t.request('POST', `/media/assets/${asset.id}/restore`)
    expect(restored.body.status).toBe('draft')
    expect((await putBytes(t, uploadUrl, png(1, 1), 'image/png')).status).toBe(200)
    const done = await t.request('POST', `/media/assets/${asset.id}/complete`)
    expect(done.body.status).toBe('ready')
  })

  test('a deleted draft cannot be completed (409)', async () => {
    const { asset, uploadUrl } = await startUpload(t, { kind: 'logo' })
    await putBytes(t, uploadUrl, png(1, 1), 'image/png')
    await t.request('DELETE', `/media/assets/${asset.id}`)
    const done = await t.request('POST', `/media/assets/${asset.id}/complete`)
    expect(done.status).toBe(409)
  })
})

describe('list', () => {
  test('a bare array filtered by location, kind, linked record and status; paged', async () => {
    const product = await createProduct(t)
    const a = await readyAsset(t, png(1, 1), { kind: 'product_image', locationId: t.tenant.locationId })
    const b = await readyAsset(t, png(1, 1), { kind: 'logo', locationId: null })
    const { asset: c } = await startUpload(t, { kind: 'product_image' })
    await t.request('POST', `/media/assets/${a.id}/attach`, {
      body: { entityType: 'product', entityId: product.id, role: 'primary' },
    })
    const list = async (query: string) => ids((await t.request('GET', `/media/assets${query}`)).body)
    expect(await list('')).toEqual([a.id, b.id, c.id])
    expect(await list(`?locationId=${t.tenant.locationId}`)).toEqual([a.id])
    expect(await list('?kind=product_image')).toEqual([a.id, c.id])
    expect(await list('?linkedEntityType=product')).toEqual([a.id])
    expect(await list(`?linkedEntityType=product&linkedEntityId=${product.id}`)).toEqual([a.id])
    expect(await list('?linkedEntityId=someone-else')).toEqual([])
    expect(await list('?status=draft')).toEqual([c.id])
    expect(await list('?status=ready&kind=logo')).toEqual([b.id])
    expect(await list('?limit=2')).toEqual([a.id, b.id])
    expect(await list('?limit=2&page=2')).toEqual([c.id])
    const bad = await t.request('GET', '/media/assets?status=gone')
    expect(bad.status).toBe(400)
  })

  test('the location of x-location-id is the default of a new upload', async () => {
    const res = await t.request('POST', '/media/uploads/direct', {
      body: { kind: 'logo' },
      headers: { 'x-location-id': t.tenant.locationId },
    })
    expect(res.body.asset.locationId).toBe(t.tenant.locationId)
    const none = await startUpload(t, { kind: 'logo' })
    expect(none.asset.locationId).toBeNull()
  })
})

describe('a customer merge', () => {
  test('moves media attached to the merged customer to the survivor', async () => {
    const make = async (email: string) =>
      (await t.request('POST', '/customers', { body: { firstName: 'A', lastName: 'B', email } })).body
    const [primary, source] = [await make('a@example.test'), await make('b@example.test')]
    const asset = await readyAsset(t, png(1, 1), { kind: 'staff_photo' })
    await t.request('POST', `/media/assets/${asset.id}/attach`, {
      body: { entityType: 'customer', entityId: source.id, role: 'avatar' },
    })
    const merged = await t.request('POST', '/customers/merge', {
      body: { primaryCustomerId: primary.id, sourceCustomerIds: [source.id], confirmation: 'MERGE' },
    })
    expect(merged.status).toBe(200)
    const list = await t.request(
      'GET',
      `/media/assets?linkedEntityType=customer&linkedEntityId=${primary.id}`,
    )
    expect(ids(list.body)).toEqual([asset.id])
  })
})

describe('location-scoped staff', () => {
  test('see and change only their location’s assets (and those at none)', async () => {
    const other = addLocation('Other')
    const here = await readyAsset(t, png(1, 1), { kind: 'logo', locationId: t.tenant.locationId })
    const there = await readyAsset(t, png(1, 1), { kind: 'logo', locationId: other.id })
    const shared = await readyAsset(t, png(1, 1), { kind: 'logo', locationId: null })
    const local = await t.addStaff(t.tenant, { role: 'manager', locationId: t.tenant.locationId })
    const headers = { 'x-location-id': t.tenant.locationId }
    const list = await t.request('GET', '/media/assets', { as: local, headers })
    expect(ids(list.body)).toEqual([here.id, shared.id])
    expect((await t.request('DELETE', `/media/assets/${there.id}`, { as: local, headers })).status).toBe(404)
    const elsewhere = await t.request('POST', '/media/uploads/direct', {
      as: local,
      headers,
      body: { kind: 'logo', locationId: other.id },
    })
    expect(elsewhere.status).toBe(403)
  })
})

const setupReady = async (ctx: ScenarioContext) => {
  ctx.vars.asset = await readyAsset(ctx.t, png(1, 1))
}
const setupOtherTenant = async (ctx: ScenarioContext) => {
  ctx.vars.other = await ctx.t.addTenant('other')
  ctx.vars.asset = await readyAsset(ctx.t, png(1, 1), { kind: 'logo' }, 'image/png', ctx.vars.other)
}
const assetUrl = (suffix: string) => (ctx: ScenarioContext) => `/media/assets/${ctx.vars.asset.id}${suffix}`
const attachBody = (ctx: ScenarioContext) => ({
  entityType: 'location',
  entityId: ctx.t.tenant.locationId,
  role: 'logo',
})
const reuseBody = { linkedEntityType: 'menu', linkedEntityId: 'm1', role: 'cover' }

describe('validation', () => {
  runScenarios([
    {
      name: 'direct: kind is required',
      method: 'POST',
      url: '/media/uploads/direct',
      body: {},
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'direct: an unknown kind is 400',
      method: 'POST',
      url: '/media/uploads/direct',
      body: { kind: 'video' },
      status: 400,
    },
    {
      name: 'direct: an unsupported mimeType is 400',
      method: 'POST',
      url: '/media/uploads/direct',
      body: { kind: 'logo', mimeType: 'image/svg+xml' },
      status: 400,
    },
    {
      name: 'direct: sizeBytes as a string is 400',
      method: 'POST',
      url: '/media/uploads/direct',
      body: { kind: 'logo', sizeBytes: '10' },
      status: 400,
    },
    {
      name: 'direct: unknown fields are 400',
      method: 'POST',
      url: '/media/uploads/direct',
      body: { kind: 'logo', owner: 'x' },
      status: 400,
    },
    {
      name: 'direct: a file name with a slash is 400',
      method: 'POST',
      url: '/media/uploads/direct',
      body: { kind: 'logo', filename: '../x.png' },
      status: 400,
    },
    {
      name: 'direct: an unknown location is 404',
      method: 'POST',
      url: '/media/uploads/direct',
      body: { kind: 'logo', locationId: 'nowhere' },
      status: 404,
      check: (_r, ctx) => expect(countRows(ctx.t.tenant.db, 'media_assets')).toBe(0),
    },
    {
      name: 'attach: role is required',
      method: 'POST',
      setup: setupReady,
      url: assetUrl('/attach'),
      body: { entityType: 'product', entityId: 'x' },
      status: 400,
    },
    {
      name: 'attach: an entity type must be a lower-case token',
      method: 'POST',
      setup: setupReady,
      url: assetUrl('/attach'),
      body: { entityType: 'Product Page', entityId: 'x', role: 'primary' },
      status: 400,
    },
    {
      name: 'reuse: linkedEntityId is required',
      method: 'POST',
      setup: setupReady,
      url: assetUrl('/reuse'),
      body: { linkedEntityType: 'menu', role: 'cover' },
      status: 400,
    },
    {
      name: 'complete: a malformed checksum is 400',
      method: 'POST',
      setup: setupReady,
      url: assetUrl('/complete'),
      body: { checksum: 'abc' },
      status: 400,
    },
    { name: 'an unknown asset is 404', method: 'POST', url: '/media/assets/nope/restore', status: 404 },
  ])
})

describe('permissions', () => {
  runScenarios([
    { name: 'no bearer is 401', method: 'GET', url: '/media/assets', as: () => null, status: 401 },
    {
      name: 'read-only may list',
      method: 'GET',
      url: '/media/assets',
      as: (c) => c.t.tenant.readOnly,
      status: 200,
    },
    {
      name: 'read-only may not upload',
      method: 'POST',
      url: '/media/uploads/direct',
      as: (c) => c.t.tenant.readOnly,
      body: { kind: 'logo' },
      status: 403,
      check: (_r, ctx) => expect(countRows(ctx.t.tenant.db, 'media_assets')).toBe(0),
    },
    {
      name: 'staff may upload',
      method: 'POST',
      url: '/media/uploads/direct',
      as: (c) => c.t.tenant.staff,
      body: { kind: 'logo' },
      status: 201,
    },
    {
      name: 'read-only may not complete',
      method: 'POST',
      setup: setupReady,
      url: assetUrl('/complete'),
      as: (c) => c.t.tenant.readOnly,
      status: 403,
    },
    {
      name: 'read-only may not attach',
      method: 'POST',
      setup: setupReady,
      url: assetUrl('/attach'),
      as: (c) => c.t.tenant.readOnly,
      body: attachBody,
      status: 403,
    },
    {
      name: 'read-only may not reuse',
      method: 'POST',
      setup: setupReady,
      url: assetUrl('/reuse'),
      as: (c) => c.t.tenant.readOnly,
      body: reuseBody,
      status: 403,
    },
    {
      name: 'read-only may not delete',
      method: 'DELETE',
      setup: setupReady,
      url: assetUrl(''),
      as: (c) => c.t.tenant.readOnly,
      status: 403,
    },
    {
      name: 'read-only may not restore',
      method: 'POST',
      setup: setupReady,
      url: assetUrl('/restore'),
      as: (c) => c.t.tenant.readOnly,
      status: 403,
    },
  ])
})

describe('tenant isolation', () => {
  runScenarios([
    {
      name: 'complete of another tenant’s asset is 404',
      method: 'POST',
      setup: setupOtherTenant,
      url: assetUrl('/complete'),
      status: 404,
    },
    {
      name: 'attach of another tenant’s asset is 404',
      method: 'POST',
      setup: setupOtherTenant,
      url: assetUrl('/attach'),
      body: attachBody,
      status: 404,
    },
    {
      name: 'reuse of another tenant’s asset is 404',
      method: 'POST',
      setup: setupOtherTenant,
      url: assetUrl('/reuse'),
      body: reuseBody,
      status: 404,
    },
    {
      name: 'delete of another tenant’s asset is 404',
      method: 'DELETE',
      setup: setupOtherTenant,
      url: assetUrl(''),
      status: 404,
      check: async (_r, ctx) => {
        const list = await ctx.t.request('GET', '/media/assets', {
          tenant: ctx.vars.other,
          as: ctx.vars.other.owner,
        })
        expect(list.body.map((a: any) => a.status)).toEqual(['ready'])
      },
    },
    {
      name: 'restore of another tenant’s asset is 404',
      method: 'POST',
      setup: setupOtherTenant,
      url: assetUrl('/restore'),
      status: 404,
    },
    {
      name: 'the list shows only this tenant’s assets',
      method: 'GET',
      setup: setupOtherTenant,
      url: '/media/assets',
      status: 200,
      expectBody: [],
    },
    {
      name: 'attaching to another tenant’s product is 404',
      method: 'POST',
      url: assetUrl('/attach'),
      setup: async (ctx) => {
        await setupReady(ctx)
        const other = await ctx.t.addTenant('other')
        ctx.vars.product = await createProduct(ctx.t, undefined, { tenant: other, as: other.owner })
      },
      body: (ctx: ScenarioContext) => ({
        entityType: 'product',
        entityId: ctx.vars.product.id,
        role: 'primary',
      }),
      status: 404,
    },
  ])

  test('an upload URL and a public file path cannot cross tenants', async () => {
    const other = await t.addTenant('other')
    const { asset, uploadUrl } = await startUpload(t, { kind: 'logo' })
    const crossed = uploadUrl.replace(`/uploads/${t.tenant.id}/`, `/uploads/${other.id}/`)
    expect((await putBytes(t, crossed, png(1, 1), 'image/png')).status).toBe(403)
    expect((await putBytes(t, uploadUrl, png(1, 1), 'image/png')).status).toBe(200)
    const done = await t.request('POST', `/media/assets/${asset.id}/complete`)
    const wrongTenant = done.body.publicUrl.replace(`/files/${t.tenant.id}/`, `/files/${other.id}/`)
    expect((await t.app.handle(new Request(wrongTenant))).status).toBe(404)
  })
})
