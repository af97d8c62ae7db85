// The shared test harness: each test app gets a fresh data directory, a tenant with a location
// and staff users per built-in role, and tokens minted by the development issuer, so tests go
// through the same authentication path as production requests.
import { expect, test } from 'bun:test'
import { join } from 'node:path'
import { type Config, configFor } from '../src/config'
import type { LocationRow } from '../src/modules/locations/schema'
import { createLocation, type LocationAddress } from '../src/modules/locations/service'
import { signInWithPasscode } from '../src/modules/passcode-sessions/service'
import { createStaffUser } from '../src/modules/staff/service'
import { outboxEvents } from '../src/platform/audit/schema'
import { createCredential, type NewCredential } from '../src/platform/auth/credentials'
import type { RoleName } from '../src/platform/auth/permissions'
import { systemActor } from '../src/platform/foundation/actor'
import { beginRequest } from '../src/platform/foundation/request-context'
import type { Platform } from '../src/platform/platform'
import type { Db } from '../src/platform/tenancy/databases'
import { createTenant, findTenantById } from '../src/platform/tenancy/tenants'
import { type App, createApp } from '../src/server'
import { checkEvents, contractChecked } from './contract'
import { makeTestDir, removeTestDir } from './temp-dirs'

export interface StaffFixture {
  id: string
  subject: string
  token: string
}

export interface TenantFixture {
  id: string
  slug: string
  locationId: string
  db: Db
  /** A staff user per built-in role, tenant-wide. */
  owner: StaffFixture
  manager: StaffFixture
  staff: StaffFixture
  readOnly: StaffFixture
}

export interface RequestOptions {
  /** A bearer token, or a staff fixture whose token to use; null sends no Authorization. */
  as?: StaffFixture | string | null
  /** The tenant to select with x-tenant-id (default: the first tenant). */
  tenant?: TenantFixture | null
  headers?: Record<string, string>
  body?: unknown
}

export interface TestResponse<T = any> {
  status: number
  headers: Headers
  body: T
  text: string
}

export interface TestApp {
  app: App
  platform: Platform
  dataDir: string
  tenant: TenantFixture
  addTenant(slug: string): Promise<TenantFixture>
  addStaff(
    tenant: TenantFixture,
    input?: { role?: RoleName; locationId?: string; passcode?: string; email?: string },
  ): Promise<StaffFixture>
  /** A second location of the tenant, created as the system would (audited). */
  addLocation(
    tenant: TenantFixture,
    input?: { name?: string; timezone?: string; address?: LocationAddress },
  ): LocationRow
  /** Signs a staff user in with their passcode (set with addStaff) and answers the `vps_` token. */
  passcodeSession(
    tenant: TenantFixture,
    staff: StaffFixture,
    input: { passcode: string; locationId?: string },
  ): Promise<string>
  /** Makes a `tpk_live_` credential (defaults: both reservation scopes, the tenant's location). */
  addCredential(
    tenant: TenantFixture,
    input?: Partial<Omit<NewCredential, 'tenantId'>>,
  ): { id: string; token: string }
  request<T = any>(method: string, path: string, options?: RequestOptions): Promise<TestResponse<T>>
  /** Closes the app; rejects when an event the tests made is not what the catalogue says. */
  close(): Promise<void>
}

let counter = 0

/** The events a tenant database holds; none once a test closed the platform itself. */
function eventsOf(db: Db) {
  try {
    return db.select().from(outboxEvents).all()
  } catch (error) {
    if (error instanceof RangeError) return []
    throw error
  }
}

export async function createTestApp(
  options: { config?: Partial<Config>; trustStaffUserIdHeader?: boolean } = {},
): Promise<TestApp> {
  const dataDir = makeTestDir('data')
  const { app, platform } = await createApp({
    config: configFor({ dataDir, backupDir: join(dataDir, 'backups'), ...options.config }),
    trustStaffUserIdHeader: options.trustStaffUserIdHeader,
  })
  contractChecked(app)

  const addStaff: TestApp['addStaff'] = async (tenant, input = {}) => {
    const subject = `subject-${++counter}`
    const staff = createStaffUser(tenant.db, systemActor(tenant.id, 'test'), {
      email: input.email ?? `${subject}@example.test`,
      firstName: 'Test',
      lastName: input.role ?? 'nobody',
      subject,
      role: input.role,
      locationId: input.locationId,
      passcode: input.passcode,
    })
    return { id: staff.id, subject, token: await platform.devIssuer!.mint({ subject }) }
  }

  const tenantDbs: Db[] = []
  const addTenant = async (slug: string): Promise<TenantFixture> => {
    const row = createTenant(platform.control.db, platform.pool, {
      slug,
      name: `Tenant ${slug}`,
      timezone: 'America/Los_Angeles',
    })
    // Held for the test's life: the fixture keeps using `db`, whatever the pool evicts.
    const { db } = platform.pool.hold(row.id)
    const location = createLocation(db, systemActor(row.id, 'test'), {
      name: 'Main',
      timezone: 'America/Los_Angeles',
    })
    const partial = { id: row.id, slug, locationId: location.id, db } as TenantFixture
    tenantDbs.push(db)
    partial.owner = await addStaff(partial, { role: 'owner' })
    partial.manager = await addStaff(partial, { role: 'manager' })
    partial.staff = await addStaff(partial, { role: 'staff' })
    partial.readOnly = await addStaff(partial, { role: 'read_only' })
    return partial
  }

  const tenant = await addTenant('acme')

  const addLocation: TestApp['addLocation'] = (target, input = {}) => {
    const { name, timezone, ...rest } = input
    return createLocation(target.db, systemActor(target.id, 'test'), {
      name: name ?? 'Second',
      timezone: timezone ?? 'America/Los_Angeles',
      ...rest,
    })
  }

  const passcodeSession: TestApp['passcodeSession'] = async (target, staff, input) => {
    const issued = await signInWithPasscode(
      { pool: platform.pool, ttlSeconds: platform.config.passcodeSessionTtlSeconds },
      findTenantById(platform.control.db, target.id)!,
      { staffUserId: staff.id, passcode: input.passcode, locationId: input.locationId ?? target.locationId },
      {
        info: beginRequest(new Request('http://test/'), null),
        method: 'POST',
        route: '/auth/passcode-sessions',
      },
    )
    return issued.token
  }

  const addCredential: TestApp['addCredential'] = (target, input = {}) => {
    const { credential, token } = createCredential(
      platform.control.db,
      platform.pool,
      platform.authDeps.access,
      {
        name: input.name ?? 'Test partner',
        scopes: input.scopes ?? ['reservations:read', 'reservations:write'],
        locationIds: input.locationIds ?? [target.locationId],
        rateLimitPerMinute: input.rateLimitPerMinute,
        tenantId: target.id,
      },
      systemActor(target.id, 'test'),
    )
    return { id: credential.id, token }
  }

  const request: TestApp['request'] = async (method, path, opts = {}) => {
    const headers = new Headers(opts.headers)
    const as = opts.as === undefined ? tenant.owner : opts.as
    if (as) headers.set('authorization', `Bearer ${typeof as === 'string' ? as : as.token}`)
    const target = opts.tenant === undefined ? tenant : opts.tenant
    if (target && !headers.has('x-tenant-id') && !headers.has('x-tenant-slug'))
      headers.set('x-tenant-id', target.id)
    let body: string | undefined
    if (opts.body !== undefined) {
      body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body)
      if (!headers.has('content-type')) headers.set('content-type', 'application/json')
    }
    const response = await app.handle(new Request(`http://localhost${path}`, { method, headers, body }))
    const text = await response.text()
    let parsed: unknown = text
    try {
      parsed = text ? JSON.parse(text) : undefined
    } catch {}
    return { status: response.status, headers: response.headers, body: parsed as any, text }
  }

  return {
    app,
    platform,
    dataDir,
    tenant,
    addTenant,
    addStaff,
    addLocation,
    passcodeSession,
    addCredential,
    request,
    close() {
      const events = tenantDbs.flatMap((db) => eventsOf(db))
      platform.close()
      removeTestDir(dataDir)
      return checkEvents(app, events)
    },
  }
}

/** A table-driven API scenario, in the manner of PocketBase's ApiScenario. */
export interface Scenario {
  name: string
  method: string
  /** A path, or a function of the test app (for ids created in `setup`). */
  url: string | ((ctx: ScenarioContext) => string)
  as?: (ctx: ScenarioContext) => StaffFixture | string | null
  tenant?: (ctx: ScenarioContext) => TenantFixture | null
  headers?: Record<string, string>
  body?: unknown | ((ctx: ScenarioContext) => unknown)
  setup?: (ctx: ScenarioContext) => Promise<void> | void
  status: number
  /** Problem `code` expected for error responses. */
  code?: string
  /** Subset the response body must match. */
  expectBody?: unknown
  check?: (response: TestResponse, ctx: ScenarioContext) => void | Promise<void>
}

export interface ScenarioContext {
  t: TestApp
  vars: Record<string, any>
}

export function runScenarios(scenarios: Scenario[], options: Parameters<typeof createTestApp>[0] = {}) {
  for (const scenario of scenarios) {
    test(scenario.name, async () => {
      const t = await createTestApp(options)
      try {
        const ctx: ScenarioContext = { t, vars: {} }
        await scenario.setup?.(ctx)
        const url = typeof scenario.url === 'function' ? scenario.url(ctx) : scenario.url
        const body = typeof scenario.body === 'function' ? scenario.body(ctx) : scenario.body
        const response = await t.request(scenario.method, url, {
          as: scenario.as ? scenario.as(ctx) : undefined,
          tenant: scenario.tenant ? scenario.tenant(ctx) : undefined,
          headers: scenario.headers,
          body,
        })
        expect({ status: response.status, body: response.body }).toMatchObject({ status: scenario.status })
        if (scenario.code) {
          expect(response.headers.get('content-type')).toContain('application/problem+json')
          expect(response.body.code).toBe(scenario.code)
        }
        if (scenario.expectBody !== undefined)
          expect(response.body).toMatchObject(scenario.expectBody as object)
        await scenario.check?.(response, ctx)
      } finally {
        t.close()
      }
    })
  }
}

/** Counts rows of a table in a tenant database: for "nothing was written" assertions. */
export function countRows(db: Db, table: string): number {
  return (db.$client.query(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n
}

/**
 * Row counts of every table of the given databases (one statement each), as `name.table` ->
 * count: take one before a request and one after to prove it wrote nothing. `settle` runs before
 * each reading: counting the control database, pass the due index's flush, or the answers it
 * stores a second after earlier writes (platform/jobs/due-index.ts) land inside some request.
 */
export function tableCounter(databases: Record<string, Db>, settle?: () => void): () => Map<string, number> {
  const counters = Object.entries(databases).map(([label, db]) => {
    const names = db.$client
      .query(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '__drizzle%'",
      )
      .all()
      .map((row) => (row as { name: string }).name)
    const statement = db.$client.query(
      `SELECT ${names.map((n, i) => `(SELECT count(*) FROM "${n}") AS c${i}`).join(', ')}`,
    )
    return () => {
      const row = statement.get() as Record<string, number>
      return names.map((name, i) => [`${label}.${name}`, row[`c${i}`]!] as const)
    }
  })
  return () => {
    settle?.()
    return new Map(counters.flatMap((count) => count()))
  }
}

/** The tables whose counts differ between two `tableCounter` readings, as `table before→after`. */
export function changedCounts(before: Map<string, number>, after: Map<string, number>): string[] {
  return [...after].flatMap(([name, count]) =>
    count === before.get(name) ? [] : [`${name} ${before.get(name)}→${count}`],
  )
}

export interface BoundPrincipal {
  name: string
  as: StaffFixture | string
  headers: Record<string, string>
}

/**
 * Callers whose requests act at `locationId` only: a manager whose only role is there, a passcode
 * session of theirs, and the tenant's owner naming the location in x-location-id.
 */
export async function boundTo(
  t: TestApp,
  tenant: TenantFixture,
  locationId: string,
): Promise<BoundPrincipal[]> {
  const manager = await t.addStaff(tenant, { role: 'manager', locationId, passcode: '2468' })
  const session = await t.passcodeSession(tenant, manager, { passcode: '2468', locationId })
  return [
    { name: 'manager at the location only', as: manager, headers: {} },
    { name: 'passcode session there', as: session, headers: {} },
    { name: 'owner naming the location', as: tenant.owner, headers: { 'x-location-id': locationId } },
  ]
}
