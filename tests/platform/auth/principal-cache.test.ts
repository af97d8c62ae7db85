// The cached principal: a request whose principal is cached runs no SQL to authenticate, and every
// change that alters a principal (staff status, identities, roles, jobs, assignments, locations,
// sessions, credentials) applies from the very next request, in this process and in another.
import { Database } from 'bun:sqlite'
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { authenticate } from '../../../src/platform/auth/authenticate'
import { revokeCredential } from '../../../src/platform/auth/credentials'
import { type RunningServer, sharedDataDir } from '../../e2e/cli'
import { createTestApp, type StaffFixture, type TestApp } from '../../harness'
import { jobFor, ok } from '../../modules/labor/helpers'

// Counting SQLite statements: bun:sqlite gives each statement its own `get`/`all`/`run`/...
// methods, so statements are wrapped as they are made, from before the app opens any database.
let counting = false
let executed = 0
const originals = { query: Database.prototype.query, prepare: Database.prototype.prepare }
function counted<T extends object>(statement: T): T {
  for (const name of ['get', 'all', 'values', 'run', 'iterate'] as const) {
    const method = (statement as Record<string, unknown>)[name]
    if (typeof method !== 'function') continue
    ;(statement as Record<string, unknown>)[name] = (...args: unknown[]) => {
      if (counting) executed++
      return method.apply(statement, args)
    }
  }
  return statement
}
function countStatements() {
  Database.prototype.query = function (this: Database, sql: string) {
    return counted(originals.query.call(this, sql))
  } as typeof Database.prototype.query
  Database.prototype.prepare = function (this: Database, sql: string, params?: never) {
    return counted(originals.prepare.call(this, sql, params))
  } as typeof Database.prototype.prepare
}
function stopCountingStatements() {
  Database.prototype.query = originals.query
  Database.prototype.prepare = originals.prepare
}

/** How many SQLite statements `work` executes. */
async function statementsRun(work: () => Promise<unknown>): Promise<number> {
  executed = 0
  counting = true
  try {
    await work()
  } finally {
    counting = false
  }
  return executed
}

describe('a cached principal', () => {
  let t: TestApp
  beforeEach(async () => {
    countStatements()
    t = await createTestApp()
  })
  afterEach(() => {
    t.close()
    stopCountingStatements()
  })

  const authenticateAs = (bearer: string, path = '/vendor', route = '/vendor', headers = {}) =>
    authenticate(
      t.platform.authDeps,
      new Request(`http://localhost${path}`, {
        headers: { authorization: `Bearer ${bearer}`, 'x-tenant-id': t.tenant.id, ...headers },
      }),
      route,
      { permission: 'reservations:read', credentialScope: 'reservations:read' },
      { params: { locationId: t.tenant.locationId } },
    )

  test('runs no SQL to authenticate a JWT, a passcode session or a credential', async () => {
    const staff = await t.addStaff(t.tenant, { role: 'manager', passcode: '2468' })
    const session = await t.passcodeSession(t.tenant, staff, { passcode: '2468' })
    const credential = t.addCredential(t.tenant)
    const tablesRoute = '/tables-api/v1/locations/:locationId/reservations'
    const tablesPath = `/tables-api/v1/locations/${t.tenant.locationId}/reservations`
    for (const [bearer, path, route] of [
      [t.tenant.owner.token, '/vendor', '/vendor'],
      [session, '/vendor', '/vendor'],
      [credential.token, tablesPath, tablesRoute],
    ] as const) {
      const first = await statementsRun(() => authenticateAs(bearer, path, route))
      expect(first).toBeGreaterThan(0)
      expect(await statementsRun(() => authenticateAs(bearer, path, route))).toBe(0)
    }
  })
})

/** The request as `who` answers this status from now on. */
async function expectStatus(t: TestApp, who: StaffFixture | string, status: number, headers = {}) {
  expect((await t.request('GET', '/vendor', { as: who, headers })).status).toBe(status)
}

describe('every change that alters a principal applies from the next request', () => {
  let t: TestApp
  beforeEach(async () => {
    t = await createTestApp()
  })
  afterEach(() => t.close())

  test('deactivating and reactivating a staff user', async () => {
    const staff = await t.addStaff(t.tenant, { role: 'staff' })
    await expectStatus(t, staff, 200)
    await ok(t, 'POST', `/staff-users/${staff.id}/deactivate`, {})
    await expectStatus(t, staff, 403)
    await ok(t, 'POST', `/staff-users/${staff.id}/reactivate`, {})
    await expectStatus(t, staff, 200)
  })

  test('removing and adding a role, tenant-wide and at a location', async () => {
    const staff = await t.addStaff(t.tenant, { role: 'staff' })
    await expectStatus(t, staff, 200)
    const view = (await t.request('GET', `/staff-users/${staff.id}`)).body
    await ok(t, 'DELETE', `/staff-users/${staff.id}/roles/${view.roles[0].id}`)
    await expectStatus(t, staff, 403)
    await ok(t, 'POST', `/staff-users/${staff.id}/roles`, {
      role: 'read_only',
      locationId: t.tenant.locationId,
    })
    await expectStatus(t, staff, 200, { 'x-location-id': t.tenant.locationId })
  })

  test('changing the identity subject a token maps to', async () => {
    const staff = await t.addStaff(t.tenant, { role: 'staff' })
    await expectStatus(t, staff, 200)
    await ok(t, 'PATCH', `/staff-users/${staff.id}`, { subject: null })
    await expectStatus(t, staff, 403)
  })

  test('a job’s access primitives, and its assignment ending', async () => {
    const staff = t.tenant.staff
    const at = { 'x-location-id': t.tenant.locationId }
    const create = () => t.request('POST', '/vendor', { as: staff, headers: at, body: { name: 'Acme' } })
    const { job, assignment } = await jobFor(t, staff, { title: 'Buyer', accessPrimitives: { grants: [] } })
    expect((await create()).status).toBe(403)
    await ok(t, 'PUT', `/labor/jobs/${job.id}`, { accessPrimitives: { grants: ['vendors:write'] } })
    expect((await create()).status).toBe(201)
    await ok(t, 'PUT', `/labor/jobs/${job.id}`, { accessPrimitives: { denies: ['vendors:read'] } })
    await expectStatus(t, staff, 403, at)
    await ok(t, 'PUT', `/labor/job-assignments/${assignment.id}`, {
      startsAt: new Date(Date.now() - 60_000).toISOString(),
      endsAt: new Date(Date.now() - 1000).toISOString(),
    })
    await expectStatus(t, staff, 200, at)
  })

  test('an assignment that starts or ends later changes access when its time comes, with no write', async () => {
    const staff = t.tenant.staff
    const at = { 'x-location-id': t.tenant.locationId }
    const create = () => t.request('POST', '/vendor', { as: staff, headers: at, body: { name: 'Acme' } })
    const startsAt = new Date(Date.now() + 800).toISOString()
    const endsAt = new Date(Date.now() + 1600).toISOString()
    const job = await ok(t, 'POST', '/labor/jobs', {
      title: 'Buyer',
      accessPrimitives: { grants: ['vendors:write'] },
    })
    await ok(t, 'POST', '/labor/job-assignments', {
      staffUserId: staff.id,
      laborJobId: job.id,
      locationId: t.tenant.locationId,
      startsAt,
      endsAt,
    })
    expect((await create()).status).toBe(403)
    await Bun.sleep(Date.parse(startsAt) - Date.now() + 50)
    expect((await create()).status).toBe(201)
    await Bun.sleep(Date.parse(endsAt) - Date.now() + 50)
    expect((await create()).status).toBe(403)
  })

  test('a new location can be named at once', async () => {
    await expectStatus(t, t.tenant.owner, 200)
    const patio = t.addLocation(t.tenant, {
      name: 'Patio',
      timezone: 'UTC',
    })
    await expectStatus(t, t.tenant.owner, 200, { 'x-location-id': patio.id })
  })

  test('signing a passcode session out, and a passcode change ending sessions', async () => {
    const staff = await t.addStaff(t.tenant, { role: 'staff', passcode: '1357' })
    const session = await t.passcodeSession(t.tenant, staff, { passcode: '1357' })
    await expectStatus(t, session, 200)
    expect((await t.request('DELETE', '/auth/passcode-sessions/current', { as: session })).status).toBe(204)
    await expectStatus(t, session, 401)
    const again = await t.passcodeSession(t.tenant, staff, { passcode: '1357' })
    await expectStatus(t, again, 200)
    await ok(t, 'PUT', `/staff-users/${staff.id}/passcode`, { passcode: '97531' })
    await expectStatus(t, again, 401)
  })

  test('revoking a credential', async () => {
    const credential = t.addCredential(t.tenant)
    const path = `/tables-api/v1/locations/${t.tenant.locationId}/reservations?dateFrom=2031-01-01&dateTo=2031-01-02`
    expect((await t.request('GET', path, { as: credential.token, tenant: null })).status).toBe(200)
    revokeCredential(t.platform.control.db, t.platform.pool, credential.id)
    expect((await t.request('GET', path, { as: credential.token, tenant: null })).status).toBe(401)
  })
})

describe('across processes on one data directory', () => {
  const shared = sharedDataDir()
  const { cli } = shared

  test('a change made through one server, or by the command line, applies at once on another', async () => {
    await cli('tenant', 'create', '--slug', 'napa', '--name', 'Napa')
    const location = await cli('location', 'create', '--tenant', 'napa', '--name', 'Tasting Room')
    await cli(
      'staff',
      'create',
      '--tenant',
      'napa',
      '--email',
      'o@napa.test',
      '--first-name',
      'O',
      '--last-name',
      'Wner',
      '--subject',
      'owner-sub',
      '--role',
      'owner',
    )
    const staff = await cli(
      'staff',
      'create',
      '--tenant',
      'napa',
      '--email',
      's@napa.test',
      '--first-name',
      'S',
      '--last-name',
      'Taff',
      '--subject',
      'staff-sub',
      '--role',
      'staff',
    )
    const owner = (await cli('token', '--tenant', 'napa', '--subject', 'owner-sub')).token
    const member = (await cli('token', '--tenant', 'napa', '--subject', 'staff-sub')).token
    const credential = await cli(
      'credential',
      'create',
      '--tenant',
      'napa',
      '--name',
      'Partner',
      '--scopes',
      'reservations:read',
      '--locations',
      location.id,
    )
    const servers = [await shared.startServer(), await shared.startServer()]
    const [one, two] = servers as [RunningServer, RunningServer]
    const call = (server: typeof one, token: string, path = '/vendor', init: RequestInit = {}) =>
      fetch(`${server.url}${path}`, {
        ...init,
        headers: {
          authorization: `Bearer ${token}`,
          'x-tenant-slug': 'napa',
          'content-type': 'application/json',
        },
      })
    const tablesPath = `/tables-api/v1/locations/${location.id}/reservations?dateFrom=2031-01-01&dateTo=2031-01-02`
    // Both servers have the principals cached.
    for (const server of servers) {
      expect((await call(server, member)).status).toBe(200)
      expect((await call(server, credential.token, tablesPath)).status).toBe(200)
    }
    // Deactivated through server one: server two refuses the next request.
    expect(
      (await call(one, owner, `/staff-users/${staff.id}/deactivate`, { method: 'POST', body: '{}' })).status,
    ).toBe(200)
    expect((await call(two, member)).status).toBe(403)
    expect((await call(one, member)).status).toBe(403)
    // Revoked by the command line (a third process): both servers refuse the next request.
    await cli('credential', 'revoke', '--id', credential.id)
    expect((await call(one, credential.token, tablesPath)).status).toBe(401)
    expect((await call(two, credential.token, tablesPath)).status).toBe(401)
  })
})
