// The operator API (/admin/v1, issue 23): who may call it (operator keys and operator JWTs, never a
// tenant token, and the reverse on tenant routes), tenants created, listed, inspected, suspended,
// resumed, deleted, exported and imported, ephemeral tenants expiring, and the operator audit log.
import { afterAll, describe, expect, test } from 'bun:test'
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { TENANT_EXPIRY_JOB } from '../../../src/modules/tenants/removal'
import { forEachDueTenant } from '../../../src/platform/jobs/tenants'
import { systemOperator } from '../../../src/platform/operator/audit'
import { createOperatorKey, revokeOperatorKey } from '../../../src/platform/operator/keys'
import { tenantDatabasePath } from '../../../src/platform/tenancy/databases'
import {
  changedCounts,
  createTestApp,
  type TenantFixture,
  type TestResponse,
  tableCounter,
} from '../../harness'

const t = await createTestApp({
  config: { authOperatorClaim: { name: 'restaurant_ops_operator', value: null } },
})
afterAll(() => t.close())
const control = t.platform.control.db
const operatorKey = createOperatorKey(control, systemOperator('test'), { name: 'tests' }).token
const operatorJwt = await t.platform.devIssuer!.mint({
  subject: 'ops@example.test',
  claims: { restaurant_ops_operator: true },
})

/** An operator request: no tenant header, the operator key unless `as` says otherwise. */
const admin = (method: string, path: string, options: { as?: string | null; body?: unknown } = {}) =>
  t.request(method, `/admin/v1${path}`, {
    as: options.as === undefined ? operatorKey : options.as,
    tenant: null,
    body: options.body,
  })

let counter = 0
const newSlug = (label: string) => `${label}-${++counter}`

async function createTenant(overrides: Record<string, unknown> = {}) {
  const slug = newSlug('winery')
  const res = await admin('POST', '/tenants', {
    body: {
      slug,
      name: `Winery ${slug}`,
      owner: { subject: `owner-of-${slug}`, email: `o@${slug}.test` },
      ...overrides,
    },
  })
  if (res.status !== 201) throw new Error(`create tenant: ${res.status} ${res.text}`)
  return res.body as {
    tenant: { id: string; slug: string; expiresAt: string | null }
    location: { id: string }
    owner: { id: string }
  }
}

/** The owner's token for a tenant made by createTenant. */
const ownerToken = (slug: string) => t.platform.devIssuer!.mint({ subject: `owner-of-${slug}` })

const asTenantOwner = async (slug: string, method: string, path: string, body?: unknown) =>
  t.request(method, path, {
    as: await ownerToken(slug),
    tenant: null,
    headers: { 'x-tenant-slug': slug },
    body,
  })

const controlVersion = () =>
  (control.$client.query('SELECT version FROM auth_version WHERE id = 1').get() as { version: number })
    .version

const dataFiles = () =>
  readdirSync(t.dataDir).filter((name) => name.includes('.sqlite') || name.endsWith('.importing'))

const operatorRoutes = t.app.routes.filter((route) => route.path.startsWith('/admin/'))

function expectProblem(res: TestResponse, status: number, code: string) {
  expect(res.status).toBe(status)
  expect(res.headers.get('content-type')).toContain('application/problem+json')
  expect(res.body.code).toBe(code)
}

describe('OpenAPI', () => {
  test('every /admin route is documented under the Operator tag with the operatorAuth scheme only', async () => {
    const spec = (await t.request('GET', '/openapi.json', { as: null })).body
    expect(spec.components.securitySchemes.operatorAuth).toMatchObject({ type: 'http', scheme: 'bearer' })
    const adminPaths = Object.entries<Record<string, any>>(spec.paths).filter(([path]) =>
      path.startsWith('/admin/'),
    )
    const operations = adminPaths.flatMap(([path, ops]) =>
      Object.entries(ops).map(([m, op]) => [`${m} ${path}`, op]),
    )
    expect(operations.length).toBe(operatorRoutes.length)
    for (const [name, operation] of operations) {
      expect([name, operation.tags]).toEqual([name, ['Operator']])
      expect([name, operation.security]).toEqual([name, [{ operatorAuth: [] }]])
    }
    // A tenant route takes the document's default security (bearerAuth), stated once at the top.
    expect(spec.security).toEqual([{ bearerAuth: [] }])
    expect(spec.paths['/locations'].get.security).toBeUndefined()
  })
})

describe('who may call the operator API', () => {
  const revoked = createOperatorKey(control, systemOperator('test'), { name: 'old' })
  revokeOperatorKey(control, systemOperator('test'), revoked.key.id)
  const counts = tableCounter({ control, acme: t.tenant.db }, () => t.platform.dueIndex.flush())

  const refusals: [string, () => Promise<string | null>, number][] = [
    ['no credential', async () => null, 401],
    ['an unknown operator key', async () => 'opk_not-a-key-at-all', 401],
    ['a revoked operator key', async () => revoked.token, 401],
    ['a JWT from another issuer', async () => 'eyJhbGciOiJIUzI1NiJ9.e30.c2lnbmF0dXJl', 401],
    ['the tenant owner’s JWT', async () => t.tenant.owner.token, 403],
    [
      'a JWT whose operator claim is not true',
      () => t.platform.devIssuer!.mint({ subject: 'x', claims: { restaurant_ops_operator: 'yes' } }),
      403,
    ],
    [
      'a passcode session',
      async () => {
        const staff = await t.addStaff(t.tenant, { role: 'owner', passcode: '1357' })
        return t.passcodeSession(t.tenant, staff, { passcode: '1357' })
      },
      403,
    ],
    ['a tables-API credential', async () => t.addCredential(t.tenant).token, 403],
  ]

  test.each(
    refusals,
  )('%s is refused on every /admin route, writing nothing', async (_name, token, status) => {
    const as = await token()
    // The due work of the writes before (stored within 50 ms of them) is not the refusals' doing.
    t.platform.dueIndex.flush()
    const before = counts()
    const failures: string[] = []
    for (const route of operatorRoutes) {
      const path = route.path.replace('/admin/v1', '').replace(/:(\w+)/g, t.tenant.slug)
      const res = await admin(route.method, path, { as, body: route.method === 'GET' ? undefined : {} })
      if (res.status !== status || res.body?.code !== (status === 401 ? 'unauthenticated' : 'forbidden'))
        failures.push(`${route.method} ${route.path}: ${res.status} ${res.text.slice(0, 120)}`)
    }
    expect(failures).toEqual([])
    expect(changedCounts(before, counts())).toEqual([])
    expect(existsSync(tenantDatabasePath(t.dataDir, t.tenant.id))).toBe(true)
  })

  test('an operator key and an operator JWT are accepted', async () => {
    expect((await admin('GET', '/tenants')).status).toBe(200)
    expect((await admin('GET', '/tenants', { as: operatorJwt })).status).toBe(200)
  })

  test('operator credentials open no tenant route', async () => {
    for (const as of [operatorKey, operatorJwt]) {
      const res = await t.request('GET', '/locations', { as })
      expectProblem(res, 403, 'forbidden')
      expect(res.body.detail).toContain('/admin')
    }
  })
})

describe('creating tenants', () => {
  test('makes the tenant, its first location and its owner, who can work in it at once', async () => {
    const slug = newSlug('napa')
    const res = await admin('POST', '/tenants', {
      as: operatorJwt,
      body: {
        slug,
        name: 'Napa Cellars',
        timeZone: 'America/Los_Angeles',
        currency: 'EUR',
        owner: {
          subject: `owner-of-${slug}`,
          email: 'rosa@napa.test',
          firstName: 'Rosa',
          lastName: 'Alvarez',
        },
      },
    })
    expect(res.status).toBe(201)
    expect(res.body.tenant).toMatchObject({
      slug,
      name: 'Napa Cellars',
      timeZone: 'America/Los_Angeles',
      currency: 'EUR',
      status: 'active',
      ephemeral: false,
      expiresAt: null,
    })
    expect(res.body.location).toMatchObject({
      name: 'Main',
      timeZone: 'America/Los_Angeles',
      status: 'active',
    })
    expect(res.body.owner).toMatchObject({ email: 'rosa@napa.test', firstName: 'Rosa', lastName: 'Alvarez' })
    const locations = await asTenantOwner(slug, 'GET', '/locations')
    expect(locations.status).toBe(200)
    expect(locations.body.locations.map((l: { id: string }) => l.id)).toEqual([res.body.location.id])

    const audit = await admin('GET', `/audit-entries?tenantId=${res.body.tenant.id}`)
    expect(audit.body.auditEntries).toMatchObject([
      { action: 'tenant.create', subject: 'ops@example.test', tenantSlug: slug, metadata: { seed: 'empty' } },
    ])
  })

  const valid = { slug: 'valid-slug', name: 'Valid', owner: { subject: 's', email: 'o@valid.test' } }
  const invalidBodies: [string, Record<string, unknown>, string][] = [
    ['no slug', { ...valid, slug: undefined }, 'slug'],
    ['an upper-case slug', { ...valid, slug: 'Napa' }, 'slug'],
    ['an empty name', { ...valid, name: '' }, 'name'],
    ['no owner', { ...valid, owner: undefined }, 'owner'],
    ['an owner without email', { ...valid, owner: { subject: 's' } }, 'owner'],
    ['a lower-case currency', { ...valid, currency: 'usd' }, 'currency'],
    ['an unknown time zone', { ...valid, timeZone: 'Mars/Olympus' }, 'timezone'],
    ['an unknown seed', { ...valid, seed: 'full' }, 'seed'],
    ['a ttl on a lasting tenant', { ...valid, ttlSeconds: 60 }, 'ttlSeconds'],
    ['a ttl of zero', { ...valid, ephemeral: true, ttlSeconds: 0 }, 'ttlSeconds'],
    ['an unknown field', { ...valid, plan: 'gold' }, 'plan'],
  ]

  test.each(invalidBodies)('%s is 400, leaving nothing behind', async (_name, body, field) => {
    const files = dataFiles()
    const res = await admin('POST', '/tenants', { body })
    expectProblem(res, 400, 'validation_failed')
    expect(JSON.stringify(res.body.errors)).toContain(field)
    expect(dataFiles()).toEqual(files)
    expect((await admin('GET', '/tenants?q=valid-slug')).body.tenants).toEqual([])
  })

  test('a taken slug is 409, leaving nothing behind', async () => {
    const files = dataFiles()
    const res = await admin('POST', '/tenants', { body: { ...valid, slug: t.tenant.slug } })
    expectProblem(res, 409, 'conflict')
    expect(dataFiles()).toEqual(files)
  })
})

describe('listing and inspecting tenants', () => {
  test('lists by slug with q, status and paging', async () => {
    const a = await createTenant()
    await admin('POST', `/tenants/${a.tenant.id}/suspend`)
    const all = await admin('GET', '/tenants?limit=100')
    const slugs = all.body.tenants.map((x: { slug: string }) => x.slug)
    expect(slugs).toEqual([...slugs].sort())
    expect(all.body.page.total).toBe(slugs.length)
    const suspended = await admin('GET', '/tenants?status=suspended')
    expect(suspended.body.tenants.map((x: { slug: string }) => x.slug)).toContain(a.tenant.slug)
    expect(suspended.body.tenants.every((x: { status: string }) => x.status === 'suspended')).toBe(true)
    const found = await admin('GET', `/tenants?q=${a.tenant.slug}`)
    expect(found.body.tenants.map((x: { id: string }) => x.id)).toEqual([a.tenant.id])
    const page = await admin('GET', '/tenants?limit=1&page=2')
    expect(page.body.tenants).toEqual([all.body.tenants[1]])
    expectProblem(await admin('GET', '/tenants?status=gone'), 400, 'validation_failed')
  })

  test('a tenant by id or slug, with its database and backups', async () => {
    const { tenant } = await createTenant()
    for (const key of [tenant.id, tenant.slug]) {
      const res = await admin('GET', `/tenants/${key}`)
      expect(res.status).toBe(200)
      expect(res.body).toMatchObject({
        id: tenant.id,
        status: 'active',
        backup: { snapshots: 0, replication: null },
      })
      expect(res.body.database.sizeBytes).toBeGreaterThan(0)
      expect(res.body.database.pendingMigrations).toBe(0)
      expect(res.body.database.schemaVersion).toMatch(/^\d{4}_/)
      expect(res.body.database.lastWriteAt).not.toBeNull()
    }
    expectProblem(await admin('GET', '/tenants/no-such-tenant'), 404, 'not_found')
  })
})

describe('suspending and resuming', () => {
  test('a suspended tenant refuses every tenant token at once (403 tenant_suspended); resuming restores it', async () => {
    const { tenant, location } = await createTenant()
    const owner = await ownerToken(tenant.slug)
    const { db } = t.platform.pool.get(tenant.id)
    // Enough of a harness fixture for addStaff, passcodeSession and addCredential.
    const fixture = { id: tenant.id, slug: tenant.slug, db, locationId: location.id } as TenantFixture
    const barStaff = await t.addStaff(fixture, { role: 'staff', passcode: '8642' })
    const session = await t.passcodeSession(fixture, barStaff, { passcode: '8642' })
    const credential = t.addCredential(fixture).token
    const tokens = [owner, barStaff.token, session]
    const get = (as: string) =>
      t.request('GET', '/locations', { as, tenant: null, headers: { 'x-tenant-id': tenant.id } })
    // Cached now: the next requests would run no SQL to authenticate.
    for (const as of tokens) expect((await get(as)).status).toBe(200)
    const tablesPath = `/tables-api/v1/locations/${location.id}/reservations?dateFrom=2031-01-01&dateTo=2031-01-02`
    expect((await t.request('GET', tablesPath, { as: credential, tenant: null })).status).toBe(200)

    const version = controlVersion()
    const suspended = await admin('POST', `/tenants/${tenant.slug}/suspend`)
    expect(suspended.status).toBe(200)
    expect(suspended.body.status).toBe('suspended')
    expect(controlVersion()).toBeGreaterThan(version)
    for (const as of tokens) expectProblem(await get(as), 403, 'tenant_suspended')
    expectProblem(
      await t.request('GET', tablesPath, { as: credential, tenant: null }),
      403,
      'tenant_suspended',
    )
    expectProblem(
      await t.request('GET', '/locations', {
        as: owner,
        tenant: null,
        headers: { 'x-tenant-slug': tenant.slug },
      }),
      403,
      'tenant_suspended',
    )
    expectProblem(await admin('POST', `/tenants/${tenant.slug}/suspend`), 409, 'conflict')
    // Other tenants are untouched.
    expect((await t.request('GET', '/locations')).status).toBe(200)

    expect((await admin('POST', `/tenants/${tenant.slug}/resume`)).body.status).toBe('active')
    for (const as of tokens) expect((await get(as)).status).toBe(200)
    expect((await t.request('GET', tablesPath, { as: credential, tenant: null })).status).toBe(200)
    expectProblem(await admin('POST', `/tenants/${tenant.slug}/resume`), 409, 'conflict')
    const actions = (await admin('GET', `/audit-entries?tenantId=${tenant.id}`)).body.auditEntries.map(
      (e: { action: string }) => e.action,
    )
    expect(actions).toEqual(['tenant.resume', 'tenant.suspend', 'tenant.create'])
  })

  test('the scheduler skips a suspended tenant’s work until it is resumed', async () => {
    const { tenant } = await createTenant()
    await admin('POST', `/tenants/${tenant.id}/suspend`)
    // Work due at every run.
    const everyRun = { job: 'test.every-run', nextWork: () => Date.now() }
    t.platform.dueIndex.register(everyRun)
    const visited = async () => {
      const seen: string[] = []
      await forEachDueTenant(t.platform, new AbortController().signal, everyRun, (row) => {
        seen.push(row.id)
      })
      return seen
    }
    expect(await visited()).not.toContain(tenant.id)
    expect(await visited()).toContain(t.tenant.id)
    await admin('POST', `/tenants/${tenant.id}/resume`)
    expect(await visited()).toContain(tenant.id)
  })
})

describe('deleting', () => {
  test('takes a final snapshot, then removes the database, its WAL and control rows; the slug is free', async () => {
    const { tenant } = await createTenant()
    const owner = await ownerToken(tenant.slug)
    expect((await asTenantOwner(tenant.slug, 'POST', '/vendor', { name: 'Glass Co' })).status).toBe(201)
    const path = tenantDatabasePath(t.dataDir, tenant.id)
    expect(existsSync(path)).toBe(true)
    const version = controlVersion()

    const res = await admin('DELETE', `/tenants/${tenant.id}`)
    expect(res.status).toBe(200)
    expect(controlVersion()).toBeGreaterThan(version)
    expect(res.body.finalSnapshot).toContain(join('backups', 'deleted-tenants'))
    expect(existsSync(res.body.finalSnapshot)).toBe(true)
    for (const suffix of ['', '-wal', '-shm']) expect(existsSync(`${path}${suffix}`)).toBe(false)
    expect(readdirSync(t.dataDir).filter((name) => name.includes(tenant.id))).toEqual([])
    expectProblem(await admin('GET', `/tenants/${tenant.id}`), 404, 'not_found')
    const refused = await t.request('GET', '/locations', {
      as: owner,
      tenant: null,
      headers: { 'x-tenant-id': tenant.id },
    })
    expectProblem(refused, 404, 'tenant_not_found')

    const again = await admin('POST', '/tenants', {
      body: { slug: tenant.slug, name: 'Reborn', owner: { subject: 'new-owner', email: 'n@x.test' } },
    })
    expect(again.status).toBe(201)
    expect(again.body.tenant.id).not.toBe(tenant.id)
  })

  test('purgeSnapshots=true takes no final snapshot and removes the tenant’s snapshots', async () => {
    const { tenant } = await createTenant()
    const first = await admin('DELETE', `/tenants/${tenant.id}`)
    expect(existsSync(first.body.finalSnapshot)).toBe(true)
    const { tenant: second } = await createTenant()
    const res = await admin('DELETE', `/tenants/${second.slug}?purgeSnapshots=true`)
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ finalSnapshot: null, snapshotsPurged: 0 })
    const deletedDir = join(t.platform.config.backupDir, 'deleted-tenants')
    expect(readdirSync(deletedDir).filter((name) => name.includes(second.id))).toEqual([])
    expect(existsSync(tenantDatabasePath(t.dataDir, second.id))).toBe(false)
    expectProblem(
      await admin('DELETE', `/tenants/${second.id}?purgeSnapshots=maybe`),
      400,
      'validation_failed',
    )
  })

  test('an unknown tenant is 404', async () => {
    expectProblem(await admin('DELETE', '/tenants/no-such-tenant'), 404, 'not_found')
  })
})

describe('ephemeral tenants', () => {
  test('the scheduler deletes one once its TTL has passed, and not before', async () => {
    const short = await createTenant({ ephemeral: true, ttlSeconds: 1 })
    const lasting = await createTenant({ ephemeral: true })
    expect(Date.parse(lasting.tenant.expiresAt as string) - Date.now()).toBeGreaterThan(3500_000)
    await t.platform.jobs.runNow(TENANT_EXPIRY_JOB)
    expect((await admin('GET', `/tenants/${short.tenant.id}`)).status).toBe(200)

    await Bun.sleep(1100)
    await t.platform.jobs.runNow(TENANT_EXPIRY_JOB)
    expectProblem(await admin('GET', `/tenants/${short.tenant.id}`), 404, 'not_found')
    expect(existsSync(tenantDatabasePath(t.dataDir, short.tenant.id))).toBe(false)
    expect((await admin('GET', `/tenants/${lasting.tenant.id}`)).status).toBe(200)
    const audit = await admin('GET', `/audit-entries?tenantId=${short.tenant.id}&action=tenant.expire`)
    expect(audit.body.auditEntries).toMatchObject([
      { subject: `system:${TENANT_EXPIRY_JOB}`, metadata: { finalSnapshot: null } },
    ])
  })
})

describe('export and import', () => {
  test('exports a consistent SQLite file that imports as a new tenant, raw or multipart', async () => {
    const { tenant } = await createTenant()
    await asTenantOwner(tenant.slug, 'POST', '/vendor', { name: 'Cork Supply' })
    const location = (await asTenantOwner(tenant.slug, 'GET', '/locations')).body.locations[0].id
    const partner = await asTenantOwner(tenant.slug, 'POST', '/credentials', {
      name: 'Partner',
      scopes: ['reservations:read'],
      locationIds: [location],
    })
    expect(partner.status).toBe(201)
    const exported = await t.app.handle(
      new Request(`http://localhost/admin/v1/tenants/${tenant.id}/export`, {
        headers: { authorization: `Bearer ${operatorKey}` },
      }),
    )
    expect(exported.status).toBe(200)
    expect(exported.headers.get('content-type')).toBe('application/vnd.sqlite3')
    const bytes = new Uint8Array(await exported.arrayBuffer())
    expect(new TextDecoder().decode(bytes.slice(0, 15))).toBe('SQLite format 3')

    const importAs = (slug: string, body: Uint8Array | FormData, contentType?: string) =>
      t.app.handle(
        new Request(`http://localhost/admin/v1/tenants/import?slug=${slug}&name=Copy`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${operatorKey}`,
            ...(contentType ? { 'content-type': contentType } : {}),
          },
          body,
        }),
      )
    const raw = await importAs(newSlug('copy'), bytes, 'application/vnd.sqlite3')
    expect(raw.status).toBe(201)
    const imported = (await raw.json()) as { tenant: { id: string; slug: string }; auditEntries: number }
    expect(imported.auditEntries).toBeGreaterThan(0)
    expect(imported.tenant.id).not.toBe(tenant.id)
    const vendors = await t.request('GET', '/vendor', {
      as: await ownerToken(tenant.slug),
      tenant: null,
      headers: { 'x-tenant-slug': imported.tenant.slug },
    })
    expect(vendors.status).toBe(200)
    expect(vendors.text).toContain('Cork Supply')
    // The copy is a new tenant: the source's credentials (bearer secrets naming it) stay behind.
    const copied = await t.request('GET', '/credentials', {
      as: await ownerToken(tenant.slug),
      tenant: null,
      headers: { 'x-tenant-slug': imported.tenant.slug },
    })
    expect(copied.body.credentials).toEqual([])

    const form = new FormData()
    form.set('file', new Blob([bytes]), 'export.sqlite')
    const multipart = await importAs(newSlug('copy'), form)
    expect([multipart.status, await multipart.text()]).toEqual([201, expect.any(String)])

    const imports = (await admin('GET', '/audit-entries?action=tenant.import')).body.auditEntries
    expect(imports.map((e: { tenantId: string }) => e.tenantId)).toContain(imported.tenant.id)
  })

  test('a file that is not a tenant database is 400, leaving nothing behind', async () => {
    const files = dataFiles()
    const res = await t.app.handle(
      new Request('http://localhost/admin/v1/tenants/import?slug=junk&name=Junk', {
        method: 'POST',
        headers: { authorization: `Bearer ${operatorKey}`, 'content-type': 'application/octet-stream' },
        body: 'this is not a database',
      }),
    )
    expect(res.status).toBe(400)
    expect(dataFiles()).toEqual(files)
    expect((await admin('GET', '/tenants?q=junk')).body.tenants).toEqual([])
    const noSlug = await t.app.handle(
      new Request('http://localhost/admin/v1/tenants/import?name=Junk', {
        method: 'POST',
        headers: { authorization: `Bearer ${operatorKey}`, 'content-type': 'application/octet-stream' },
        body: 'x',
      }),
    )
    expect(noSlug.status).toBe(400)
  })
})

describe('the operator audit log', () => {
  test('records who did what, newest first, and the database refuses to change it', async () => {
    const { tenant } = await createTenant()
    await admin('POST', `/tenants/${tenant.id}/suspend`)
    const res = await admin('GET', `/audit-entries?tenantId=${tenant.id}`)
    expect(res.body.auditEntries).toMatchObject([
      { action: 'tenant.suspend', subject: expect.stringMatching(/^operator-key:/), tenantSlug: tenant.slug },
      { action: 'tenant.create' },
    ])
    expect(res.body.auditEntries[0].requestId).toBeTruthy()
    expect(() => control.$client.run('UPDATE operator_audit_entries SET action = ?', ['x'])).toThrow(
      /append-only/,
    )
    expect(() => control.$client.run('DELETE FROM operator_audit_entries')).toThrow(/append-only/)
    expectProblem(await admin('GET', '/audit-entries?limit=0'), 400, 'validation_failed')
  })
})
