// Apps, app data and app sync: the vendors pattern (happy path, validation, permission,
// tenant isolation, audit and events).
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import {
  countRows,
  createTestApp,
  runScenarios,
  type ScenarioContext,
  type TestApp,
  type TestResponse,
} from '../../harness'

const createApp = async (
  ctx: ScenarioContext,
  body: Record<string, unknown> = { slug: 'shipcompliant', name: 'ShipCompliant' },
) => {
  const res = await ctx.t.request('POST', '/apps', { body })
  expect(res.status).toBe(201)
  ctx.vars.id = res.body.id
  return res.body
}

const otherTenantApp = async (ctx: ScenarioContext) => {
  const other = await ctx.t.addTenant('other')
  const res = await ctx.t.request('POST', '/apps', {
    tenant: other,
    as: other.owner,
    body: { slug: 'x', name: 'X' },
  })
  ctx.vars.id = res.body.id
}

describe('apps: scenarios', () => {
  runScenarios([
    {
      name: 'create answers 201, active and idle',
      method: 'POST',
      url: '/apps',
      body: { slug: 'shipcompliant', name: 'ShipCompliant', homepageUrl: 'https://ship.example.com' },
      status: 201,
      expectBody: {
        slug: 'shipcompliant',
        name: 'ShipCompliant',
        status: 'active',
        syncStatus: 'idle',
        lastSyncedAt: null,
        description: null,
        homepageUrl: 'https://ship.example.com',
      },
    },
    ...['javascript:alert(1)', 'data:text/html,<b>x</b>', 'ftp://files.example.com/app', '/relative'].map(
      (homepageUrl) => ({
        name: `a homepage URL that is not http(s) is 400 naming it: ${homepageUrl}`,
        method: 'POST' as const,
        url: '/apps',
        body: { slug: 'linky', name: 'Linky', homepageUrl },
        status: 400,
        code: 'validation_failed',
        check: (res: TestResponse) =>
          expect(res.body.errors.map((e: { path: string }) => e.path)).toContain('body/homepageUrl'),
      }),
    ),
    {
      name: 'create without slug is 400',
      method: 'POST',
      url: '/apps',
      body: { name: 'x' },
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'a slug with capitals or spaces is 400',
      method: 'POST',
      url: '/apps',
      body: { slug: 'Ship Compliant', name: 'x' },
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'sync fields cannot be written (400)',
      method: 'POST',
      url: '/apps',
      body: { slug: 'a', name: 'x', syncStatus: 'synced' },
      status: 400,
      code: 'validation_failed',
      check: (_res, ctx) => expect(countRows(ctx.t.tenant.db, 'apps')).toBe(0),
    },
    {
      name: 'a duplicate slug is 409',
      method: 'POST',
      url: '/apps',
      setup: (ctx) => createApp(ctx).then(() => {}),
      body: { slug: 'shipcompliant', name: 'Again' },
      status: 409,
      code: 'conflict',
    },
    {
      name: 'update is partial',
      method: 'PUT',
      url: (ctx) => `/apps/${ctx.vars.id}`,
      setup: (ctx) => createApp(ctx).then(() => {}),
      body: { description: 'Compliance', status: 'inactive' },
      status: 200,
      expectBody: {
        slug: 'shipcompliant',
        description: 'Compliance',
        status: 'inactive',
        syncStatus: 'idle',
      },
    },
    {
      name: 'update to another app’s slug is 409',
      method: 'PUT',
      url: (ctx) => `/apps/${ctx.vars.id}`,
      setup: async (ctx) => {
        await createApp(ctx, { slug: 'taken', name: 'Taken' })
        await createApp(ctx)
      },
      body: { slug: 'taken' },
      status: 409,
      code: 'conflict',
    },
    {
      name: 'delete answers {message}, and takes the app’s data and syncs with it',
      method: 'DELETE',
      url: (ctx) => `/apps/${ctx.vars.id}`,
      setup: async (ctx) => {
        await createApp(ctx)
        await ctx.t.request('PUT', `/apps/${ctx.vars.id}/data`, { body: { data: { a: 1 } } })
        await ctx.t.request('POST', '/app-sync', {
          body: { appId: ctx.vars.id, objectType: 'Order', objectId: 'o-1', status: 'Error', issues: ['x'] },
        })
      },
      status: 200,
      expectBody: { message: 'App "shipcompliant" deleted' },
      check: async (_res, ctx) => {
        expect((await ctx.t.request('GET', `/apps/${ctx.vars.id}`)).status).toBe(404)
        for (const table of ['apps', 'app_data', 'app_syncs', 'app_sync_attempts', 'app_sync_attempt_issues'])
          expect(countRows(ctx.t.tenant.db, table)).toBe(0)
      },
    },
    { name: 'an unknown id is 404', method: 'GET', url: '/apps/nope', status: 404, code: 'not_found' },
    {
      name: 'data of an unknown app is 404',
      method: 'GET',
      url: '/apps/nope/data',
      status: 404,
      code: 'not_found',
    },
    {
      name: 'sync of an unknown app is 404',
      method: 'POST',
      url: '/apps/nope/sync',
      status: 404,
      code: 'not_found',
    },
    {
      name: 'another tenant’s app is 404',
      method: 'GET',
      url: (ctx) => `/apps/${ctx.vars.id}`,
      setup: otherTenantApp,
      status: 404,
      code: 'not_found',
    },
    {
      name: 'another tenant’s app cannot be deleted (404)',
      method: 'DELETE',
      url: (ctx) => `/apps/${ctx.vars.id}`,
      setup: otherTenantApp,
      status: 404,
      code: 'not_found',
    },
    {
      name: 'another tenant’s app data cannot be written (404)',
      method: 'PUT',
      url: (ctx) => `/apps/${ctx.vars.id}/data`,
      setup: otherTenantApp,
      body: { data: {} },
      status: 404,
      code: 'not_found',
    },
    {
      name: 'another tenant’s app cannot be synced (404)',
      method: 'POST',
      url: (ctx) => `/apps/${ctx.vars.id}/sync`,
      setup: otherTenantApp,
      status: 404,
      code: 'not_found',
    },
    {
      name: 'a manager may read apps',
      method: 'GET',
      url: '/apps',
      as: (ctx) => ctx.t.tenant.manager,
      status: 200,
    },
    {
      name: 'a manager may not create apps (403 without apps:write)',
      method: 'POST',
      url: '/apps',
      as: (ctx) => ctx.t.tenant.manager,
      body: { slug: 'a', name: 'A' },
      status: 403,
      code: 'forbidden',
      check: (res, ctx) => {
        expect(res.body.requiredPermission).toBe('apps:write')
        expect(countRows(ctx.t.tenant.db, 'apps')).toBe(0)
      },
    },
    {
      name: 'read_only may not report app sync (403)',
      method: 'POST',
      url: '/app-sync',
      as: (ctx) => ctx.t.tenant.readOnly,
      body: { objectType: 'Order', objectId: 'o-1', status: 'Error' },
      status: 403,
      code: 'forbidden',
    },
    {
      name: 'no token is 401',
      method: 'GET',
      url: '/apps',
      as: () => null,
      status: 401,
      code: 'unauthenticated',
    },
    {
      name: 'limit 101 is 400',
      method: 'GET',
      url: '/apps?limit=101',
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'an unknown status filter is 400',
      method: 'GET',
      url: '/apps?status=gone',
      status: 400,
      code: 'validation_failed',
    },
  ])
})

describe('app data: scenarios', () => {
  runScenarios([
    {
      name: 'data is {} before the first put',
      method: 'GET',
      url: (ctx) => `/apps/${ctx.vars.id}/data`,
      setup: (ctx) => createApp(ctx).then(() => {}),
      status: 200,
      check: (res, ctx) => expect(res.body).toEqual({ appId: ctx.vars.id, data: {}, updatedAt: null }),
    },
    {
      name: 'put replaces the whole object',
      method: 'PUT',
      url: (ctx) => `/apps/${ctx.vars.id}/data`,
      setup: async (ctx) => {
        await createApp(ctx)
        await ctx.t.request('PUT', `/apps/${ctx.vars.id}/data`, { body: { data: { old: true, keep: 1 } } })
      },
      body: { data: { apiKeyLast4: '1234', nested: { a: [1, 2] } } },
      status: 200,
      check: async (res, ctx) => {
        expect(res.body.data).toEqual({ apiKeyLast4: '1234', nested: { a: [1, 2] } })
        expect(res.body.updatedAt).toBeString()
        expect((await ctx.t.request('GET', `/apps/${ctx.vars.id}/data`)).body).toEqual(res.body)
      },
    },
    {
      name: 'put without data is 400',
      method: 'PUT',
      url: (ctx) => `/apps/${ctx.vars.id}/data`,
      setup: (ctx) => createApp(ctx).then(() => {}),
      body: {},
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'put with an array as data is 400',
      method: 'PUT',
      url: (ctx) => `/apps/${ctx.vars.id}/data`,
      setup: (ctx) => createApp(ctx).then(() => {}),
      body: { data: [1, 2] },
      status: 400,
      code: 'validation_failed',
      check: (_res, ctx) => expect(countRows(ctx.t.tenant.db, 'app_data')).toBe(0),
    },
  ])
})

describe('app sync: scenarios', () => {
  runScenarios([
    {
      name: 'the first report creates the record (201)',
      method: 'POST',
      url: '/app-sync',
      setup: (ctx) => createApp(ctx).then(() => {}),
      body: (ctx: ScenarioContext) => ({
        appId: ctx.vars.id,
        objectType: 'Order',
        objectId: 'order-1',
        status: 'Error',
        issues: ['Missing ship-to state'],
        actions: [{ httpType: 'POST', url: 'https://ship.example.com/retry/order-1', label: 'Retry' }],
      }),
      status: 201,
      check: (res, ctx) => {
        expect(res.body).toMatchObject({
          appId: ctx.vars.id,
          objectType: 'Order',
          objectId: 'order-1',
          status: 'Error',
          issues: ['Missing ship-to state'],
          actions: [{ id: expect.any(String), httpType: 'POST', label: 'Retry' }],
        })
        expect(res.body.lastActivityDate).toBeString()
      },
    },
    {
      name: 'status is required',
      method: 'POST',
      url: '/app-sync',
      body: { objectType: 'Order', objectId: 'o' },
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'an unknown status is 400',
      method: 'POST',
      url: '/app-sync',
      body: { objectType: 'Order', objectId: 'o', status: 'Exploded' },
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'an action with a bad url is 400',
      method: 'POST',
      url: '/app-sync',
      body: {
        objectType: 'Order',
        objectId: 'o',
        status: 'Error',
        actions: [{ httpType: 'GET', url: 'nope', label: 'x' }],
      },
      status: 400,
      code: 'validation_failed',
      check: (_res, ctx) => expect(countRows(ctx.t.tenant.db, 'app_syncs')).toBe(0),
    },
    {
      name: 'an unknown appId is 404 and writes nothing',
      method: 'POST',
      url: '/app-sync',
      body: { appId: 'nope', objectType: 'Order', objectId: 'o', status: 'Error' },
      status: 404,
      code: 'not_found',
      check: (_res, ctx) => expect(countRows(ctx.t.tenant.db, 'app_syncs')).toBe(0),
    },
    {
      name: 'another tenant’s appId is 404',
      method: 'POST',
      url: '/app-sync',
      setup: otherTenantApp,
      body: (ctx: ScenarioContext) => ({
        appId: ctx.vars.id,
        objectType: 'Order',
        objectId: 'o',
        status: 'Error',
      }),
      status: 404,
      code: 'not_found',
    },
    {
      name: 'an object with no records answers an empty list',
      method: 'GET',
      url: '/app-syncs/unknown-object',
      status: 200,
      expectBody: { appSyncs: [] },
    },
    {
      name: 'another tenant’s records are not visible',
      method: 'GET',
      url: '/app-syncs/o-1',
      setup: async (ctx) => {
        const other = await ctx.t.addTenant('other')
        await ctx.t.request('POST', '/app-sync', {
          tenant: other,
          as: other.owner,
          body: { objectType: 'Order', objectId: 'o-1', status: 'Error' },
        })
      },
      status: 200,
      expectBody: { appSyncs: [] },
    },
    {
      name: 'read_only may read sync records',
      method: 'GET',
      url: '/app-syncs/o-1',
      as: (ctx) => ctx.t.tenant.readOnly,
      status: 200,
    },
    {
      name: 'staff (who hold every read but audit, webhooks and analytics) may read sync records',
      method: 'GET',
      url: '/app-syncs/o-1',
      as: (ctx) => ctx.t.tenant.staff,
      status: 200,
    },
  ])
})

describe('apps: behaviour', () => {
  let t: TestApp
  beforeEach(async () => {
    t = await createTestApp()
  })
  afterEach(() => t.close())

  test('list filters by q and status and counts all matches', async () => {
    for (const [slug, name, status] of [
      ['avalara', 'Avalara Tax', 'active'],
      ['ship', 'ShipCompliant', 'inactive'],
      ['mailer', 'Mailer', 'active'],
    ])
      expect((await t.request('POST', '/apps', { body: { slug, name, status } })).status).toBe(201)
    const all = (await t.request('GET', '/apps?limit=2')).body
    expect(all.page).toEqual({ total: 3 })
    expect(all.apps.map((a: any) => a.slug)).toEqual(['avalara', 'mailer'])
    expect((await t.request('GET', '/apps?status=inactive')).body.apps.map((a: any) => a.slug)).toEqual([
      'ship',
    ])
    expect((await t.request('GET', '/apps?q=TAX')).body.page.total).toBe(1)
  })

  test('sync sets syncStatus and lastSyncedAt, emits app/sync, and is refused for an inactive app', async () => {
    const app = (await t.request('POST', '/apps', { body: { slug: 'a', name: 'A' } })).body
    const synced = await t.request('POST', `/apps/${app.id}/sync`)
    expect(synced.status).toBe(200)
    expect(synced.body).toMatchObject({ syncStatus: 'synced' })
    expect(Date.parse(synced.body.lastSyncedAt)).toBeGreaterThanOrEqual(Date.parse(app.createdAt))
    expect((await t.request('GET', `/apps/${app.id}`)).body.lastSyncedAt).toBe(synced.body.lastSyncedAt)
    const events = t.tenant.db.$client.query('SELECT object, action FROM outbox_events ORDER BY seq').all()
    expect(events).toEqual([
      { object: 'app', action: 'create' },
      { object: 'app', action: 'sync' },
    ])

    await t.request('PUT', `/apps/${app.id}`, { body: { status: 'inactive' } })
    const refused = await t.request('POST', `/apps/${app.id}/sync`)
    expect(refused.status).toBe(409)
    expect(refused.body).toMatchObject({ code: 'conflict', status: 409 })
    expect(refused.body.detail).toContain('inactive')
    expect((await t.request('GET', `/apps/${app.id}`)).body.lastSyncedAt).toBe(synced.body.lastSyncedAt)
  })

  test('sync only records the request: app data and sync records stay; read_only may not (403); the spec says so', async () => {
    const app = (await t.request('POST', '/apps', { body: { slug: 'a', name: 'A' } })).body
    await t.request('PUT', `/apps/${app.id}/data`, { body: { data: { cursor: 7 } } })
    const forbidden = await t.request('POST', `/apps/${app.id}/sync`, { as: t.tenant.readOnly })
    expect(forbidden.status).toBe(403)
    expect((await t.request('GET', `/apps/${app.id}`)).body.syncStatus).toBe('idle')
    expect((await t.request('POST', `/apps/${app.id}/sync`)).status).toBe(200)
    expect((await t.request('GET', `/apps/${app.id}/data`)).body.data).toEqual({ cursor: 7 })
    expect(countRows(t.tenant.db, 'app_syncs')).toBe(0)
    const spec = (await t.request('GET', '/openapi.json', { as: null })).body
    const route = spec.paths['/apps/{id}/sync'].post
    expect(route.summary).toBe('Request a sync from an app')
    expect(route.description).toContain('this service moves no data itself')
  })

  test('later reports update the record and append attempts with their issues', async () => {
    const app = (await t.request('POST', '/apps', { body: { slug: 'a', name: 'A' } })).body
    const report = (status: string, issues: string[], appId: string | undefined) =>
      t.request('POST', '/app-sync', {
        body: { appId, objectType: 'Order', objectId: 'o-1', status, issues },
      })
    const first = await report('Error', ['No address', 'No state'], app.id)
    expect(first.status).toBe(201)
    const second = await report('Success', [], app.id)
    expect(second.status).toBe(200)
    expect(second.body).toMatchObject({ id: first.body.id, status: 'Success', issues: [] })
    // Another app (none) reporting on the same object has its own record.
    expect((await report('Warning', ['Slow'], undefined)).status).toBe(201)

    const { appSyncs } = (await t.request('GET', '/app-syncs/o-1')).body
    expect(appSyncs).toHaveLength(2)
    const mine = appSyncs.find((s: any) => s.appId === app.id)
    expect(mine.attempts.map((a: any) => a.status)).toEqual(['Success', 'Error'])
    expect(mine.attempts[1].issues.map((i: any) => i.issue)).toEqual(['No address', 'No state'])
    expect(mine.attempts[1].issues[0].appSyncAttemptId).toBe(mine.attempts[1].id)
    expect(mine.attempts[0].issues).toEqual([])
  })

  test('every write appends its audit entry; app writes emit events; refused writes append nothing', async () => {
    const app = (await t.request('POST', '/apps', { body: { slug: 'a', name: 'A' } })).body
    await t.request('PUT', `/apps/${app.id}`, { body: { name: 'B' } })
    await t.request('PUT', `/apps/${app.id}/data`, { body: { data: { token: 'x' } } })
    await t.request('POST', '/app-sync', {
      body: { appId: app.id, objectType: 'Order', objectId: 'o', status: 'Error' },
    })
    await t.request('POST', '/apps', { body: { slug: 'a', name: 'dup' } })
    await t.request('DELETE', `/apps/${app.id}`)
    const audit = t.tenant.db.$client
      .query(
        "SELECT action, metadata FROM audit_entries WHERE entity_type IN ('app', 'app_sync') ORDER BY seq",
      )
      .all() as { action: string; metadata: string }[]
    expect(audit.map((a) => a.action)).toEqual([
      'app.create',
      'app.update',
      'app.data.put',
      'app_sync.create',
      'app.delete',
    ])
    expect(audit[2]!.metadata).not.toContain('"x"')
    const events = t.tenant.db.$client.query('SELECT action FROM outbox_events ORDER BY seq').all()
    expect(events).toEqual([{ action: 'create' }, { action: 'update' }, { action: 'delete' }])
  })
})
