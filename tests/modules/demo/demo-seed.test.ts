// The demo tasting room (seed: demo): every list a newcomer looks at shows something, the history
// is audited like real data (the chain verifies), and the embedded default uses it.
import { afterAll, describe, expect, test } from 'bun:test'
import { readdirSync } from 'node:fs'
import {
  DEFAULT_OWNER,
  ensureEmbeddedDefault,
  ensureEmbeddedDefaultInChildProcess,
} from '../../../src/cli/bootstrap'
import { configFor } from '../../../src/config'
import { DEMO_PASSCODE } from '../../../src/modules/demo/data'
import { pageLocations } from '../../../src/modules/locations/service'
import { createTenantWithOwner } from '../../../src/modules/tenants/service'
import { verifyAuditChain } from '../../../src/platform/audit/audit'
import { everyLocation } from '../../../src/platform/auth/location-scope'
import { systemOperator } from '../../../src/platform/operator/audit'
import { listTenants } from '../../../src/platform/tenancy/tenants'
import { createApp } from '../../../src/server'
import { createTestApp, type TestResponse, tableCounter } from '../../harness'
import { makeTestDir, removeTestDir } from '../../temp-dirs'
import { waitFor } from '../webhooks/receiver'

const t = await createTestApp()
afterAll(() => t.close())
const made = createTenantWithOwner(t.platform, systemOperator('test'), {
  slug: 'demo',
  name: 'Demo Winery',
  timeZone: 'America/Los_Angeles',
  owner: { subject: 'demo-owner', email: 'owner@demo.test' },
  seed: 'demo',
})
/** How many rows each table of the demo holds, before the tests below add any. */
const demoRows = [...tableCounter({ demo: t.platform.pool.get(made.tenant.id).db })()].map(([name, n]) => [
  name.replace(/^demo\./, ''),
  n,
])
const owner = await t.platform.devIssuer!.mint({ subject: 'demo-owner' })
const get = (path: string) =>
  t.request('GET', path, { as: owner, tenant: null, headers: { 'x-tenant-id': made.tenant.id } })

/** How many records a list answered, wherever its envelope keeps the count. */
function countOf(res: TestResponse): number {
  const body = res.body
  const total = body?.page?.total ?? body?.total ?? body?.totalResultCount
  if (typeof total === 'number') return total
  const list = Array.isArray(body) ? body : Object.values(body ?? {}).find(Array.isArray)
  return (list as unknown[] | undefined)?.length ?? 0
}

describe('the demo tenant', () => {
  test('has two locations, the owner asked for, and staff in every role', async () => {
    expect(countOf(await get('/locations'))).toBe(2)
    expect(made.owner).toMatchObject({ email: 'owner@demo.test' })
    const staff = (await get('/staff-users?limit=100')).body
    const roles = new Set(
      JSON.stringify(staff)
        .match(/"role":"(\w+)"/g)
        ?.map((m) => m.slice(8, -1)),
    )
    for (const role of ['owner', 'manager', 'staff', 'read_only'])
      expect([role, roles.has(role)]).toEqual([role, true])
  })

  test.each([
    '/product',
    '/club',
    '/club-membership',
    '/customer',
    '/order',
    '/cash-management/drawers',
    '/gift-card',
    '/web-hook',
    '/vendor',
    '/audit-entries',
  ])('%s lists something', async (path) => {
    const res = await get(path)
    expect(res.status).toBe(200)
    expect(countOf(res)).toBeGreaterThan(0)
  })

  test('the club has a release being planned, after today, and its members are next processed by it', async () => {
    const [club] = (await get('/club')).body.clubs
    const releases = (await get(`/club/${club.id}/releases`)).body.clubReleases
    expect(releases).toHaveLength(1)
    expect(releases[0]).toMatchObject({ title: 'Spring Release', status: 'Planning' })
    expect(releases[0].processDate > new Date().toISOString().slice(0, 10)).toBe(true)
    const members = (await get(`/club-membership?clubId=${club.id}`)).body.clubMemberships
    expect(members.length).toBeGreaterThan(0)
    for (const m of members) expect(m.nextProcessDate).toBe(releases[0].processDate)
  })

  test('staff sign in at the POS with the demo passcode', async () => {
    const users = (await get('/staff-users?limit=100')).body.staffUsers
    const barista = users.find((u: any) => u.firstName === 'Priya')
    const res = await t.request('POST', '/auth/passcode-sessions', {
      as: null,
      tenant: null,
      headers: { 'x-tenant-id': made.tenant.id },
      body: { staffUserId: barista.id, locationId: made.location.id, passcode: DEMO_PASSCODE },
    })
    expect(res.status).toBe(201)
    expect(res.body.token).toStartWith('vps_')
  })

  test('orders span weeks, and its audit chain verifies', async () => {
    const orders = (await get('/order?limit=100')).body
    const days = new Set(JSON.stringify(orders).match(/"createdAt":"(\d{4}-\d{2}-\d{2})/g))
    expect(days.size).toBeGreaterThan(7)
    expect(verifyAuditChain(t.platform.pool.get(made.tenant.id).db).ok).toBe(true)
  })

  test('webhook subscriptions are made disabled, so a demo calls no one', async () => {
    const hooks = JSON.stringify((await get('/web-hook')).body)
    expect(hooks).not.toContain('"enabled":true')
  })
})

describe('the embedded default', () => {
  test.each([
    ['demo', ['Estate Tasting Room', 'Downtown Wine Bar']],
    ['empty', ['Main']],
  ] as const)('DEFAULT_TENANT_SEED=%s on an empty data directory, made once', async (seed, names) => {
    const dataDir = makeTestDir('data')
    const { platform } = await createApp({ config: configFor({ dataDir, defaultTenantSeed: seed }) })
    try {
      expect(ensureEmbeddedDefault(platform)).toEqual({ created: true })
      expect(ensureEmbeddedDefault(platform)).toEqual({ created: false })
      const [tenant] = listTenants(platform.control.db)
      const { db } = platform.pool.get(tenant!.id)
      expect(pageLocations(db, everyLocation, { page: 1, limit: 10 }).locations.map((l) => l.name)).toEqual([
        ...names,
      ])
      expect(platform.authDeps.access.staffIdBySubject(db, DEFAULT_OWNER.subject)).toBeString()
    } finally {
      platform.close()
      removeTestDir(dataDir)
    }
  })

  test('made by a child process (as `serve` makes the demo), it holds what this process makes', async () => {
    const dataDir = makeTestDir('data')
    const { platform } = await createApp({ config: configFor({ dataDir, defaultTenantSeed: 'demo' }) })
    try {
      expect(await ensureEmbeddedDefaultInChildProcess(platform)).toEqual({ created: true })
      expect(await ensureEmbeddedDefaultInChildProcess(platform)).toEqual({ created: false })
      const [tenant] = listTenants(platform.control.db)
      const { db } = platform.pool.get(tenant!.id)
      // Table by table, as many rows as the demo made in this process: the modules' hooks ran there too.
      expect([...tableCounter({ demo: db })()].map(([name, n]) => [name.replace(/^demo\./, ''), n])).toEqual(
        demoRows,
      )
      expect(verifyAuditChain(db).ok).toBe(true)
      expect(platform.authDeps.access.staffIdBySubject(db, DEFAULT_OWNER.subject)).toBeString()
    } finally {
      platform.close()
      removeTestDir(dataDir)
    }
  })

  test('stopped while the child process fills it, nothing is left behind', async () => {
    const dataDir = makeTestDir('data')
    const { platform } = await createApp({ config: configFor({ dataDir, defaultTenantSeed: 'demo' }) })
    try {
      const tenantFiles = () =>
        readdirSync(dataDir).filter((name) => !name.startsWith('control.') && name.includes('.sqlite'))
      const stop = new AbortController()
      const making = ensureEmbeddedDefaultInChildProcess(platform, stop.signal)
      await waitFor(() => tenantFiles().length > 0, 'the child making the database file')
      stop.abort(new Error('stopped'))
      await expect(making).rejects.toThrow('stopped')
      expect(listTenants(platform.control.db)).toEqual([])
      expect(tenantFiles()).toEqual([])
    } finally {
      platform.close()
      removeTestDir(dataDir)
    }
  })
})
