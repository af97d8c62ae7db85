// Tables-API credentials (tpk_live_), proven on a test-only app built from the real auth plugin:
// the `credentialScope` route option, scopes, location allowlist, tables-API-only, rate limit.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { Elysia, t as schema } from 'elysia'
import { appendAudit } from '../../../src/platform/audit/audit'
import { SharedWindowLimiter } from '../../../src/platform/auth/rate-limit'
import { httpConventions } from '../../../src/platform/http/conventions'
import { inWriteTransaction } from '../../../src/platform/tenancy/transaction'
import { countRows, createTestApp, type TestApp } from '../../harness'
import { makeTestDir, removeTestDir } from '../../temp-dirs'

/** Two tables-API routes as the reservations engineers will declare them, plus an unscoped one. */
function tablesApiApp(t: TestApp) {
  return new Elysia()
    .use(httpConventions({ maxBodyBytes: 1 << 20, log: t.platform.log }))
    .use(t.platform.auth)
    .get(
      '/tables-api/v1/locations/:locationId/reservations',
      ({ actor, permissions, locations }) => ({ actor, permissions: [...permissions], locations }),
      {
        permission: 'reservations:read',
        credentialScope: 'reservations:read',
        params: schema.Object({ locationId: schema.String() }),
      },
    )
    .post(
      '/tables-api/v1/locations/:locationId/reservations',
      ({ db, actor, body }) => {
        inWriteTransaction(db, (tx) =>
          appendAudit(tx, actor, {
            action: 'reservation.create',
            entityType: 'reservation',
            entityId: body.name,
          }),
        )
        return { ok: true }
      },
      {
        credentialScope: 'reservations:write',
        permission: 'reservations:write',
        params: schema.Object({ locationId: schema.String() }),
        body: schema.Object({ name: schema.String(), locationId: schema.Optional(schema.String()) }),
      },
    )
    .get('/tables-api/v1/unscoped', () => ({ ok: true }), { permission: 'reservations:read' })
}

describe('tables-API credentials', () => {
  let t: TestApp
  let app: ReturnType<typeof tablesApiApp>
  beforeEach(async () => {
    t = await createTestApp()
    app = tablesApiApp(t)
  })
  afterEach(() => t.close())

  const call = async (
    method: string,
    path: string,
    token: string,
    init: { body?: unknown; headers?: Record<string, string> } = {},
  ) => {
    const headers = new Headers({ authorization: `Bearer ${token}`, ...init.headers })
    if (init.body !== undefined) headers.set('content-type', 'application/json')
    const res = await app.handle(
      new Request(`http://localhost${path}`, {
        method,
        headers,
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
      }),
    )
    const text = await res.text()
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined }
  }
  const reservations = (locationId: string) => `/tables-api/v1/locations/${locationId}/reservations`

  test('the route table carries the scope beside the permission, in either order', () => {
    const details = Object.fromEntries(
      app.routes.map((r) => [
        `${r.method} ${r.path}`,
        (r.hooks as { detail?: Record<string, unknown> }).detail,
      ]),
    )
    expect(details[`GET ${reservations(':locationId')}`]).toMatchObject({
      'x-permission': 'reservations:read',
      'x-credential-scope': 'reservations:read',
    })
    expect(details[`POST ${reservations(':locationId')}`]).toMatchObject({
      'x-permission': 'reservations:write',
      'x-credential-scope': 'reservations:write',
    })
    expect(details['GET /tables-api/v1/unscoped']?.['x-credential-scope']).toBeUndefined()
  })

  test('a credential reads its allowlisted location; it acts as itself with its scopes', async () => {
    const { id, token } = t.addCredential(t.tenant, { scopes: ['reservations:read'] })
    expect(token).toStartWith(`tpk_live_${t.tenant.id}.`)
    expect(token.slice(`tpk_live_${t.tenant.id}.`.length)).toMatch(/^[A-Za-z0-9_-]{43}$/)
    const res = await call('GET', reservations(t.tenant.locationId), token)
    expect(res.status).toBe(200)
    expect(res.body.actor).toMatchObject({
      kind: 'credential',
      subject: `credential:${id}`,
      staffUserId: null,
      tenantId: t.tenant.id,
      locationId: t.tenant.locationId,
    })
    expect(res.body.permissions).toEqual(['reservations:read'])
    expect(res.body.locations).toEqual({ all: false, ids: [t.tenant.locationId] })
    expect(res.headers.get('ratelimit-limit')).toBe('120')
    expect(res.headers.get('ratelimit-remaining')).toBe('119')
  })

  test('audit entries of its writes name the credential as their subject', async () => {
    const { id, token } = t.addCredential(t.tenant, { scopes: ['reservations:write'] })
    const res = await call('POST', reservations(t.tenant.locationId), token, { body: { name: 'r1' } })
    expect(res.status).toBe(200)
    const entry = t.tenant.db.$client
      .query(
        "SELECT subject, staff_user_id, location_id FROM audit_entries WHERE action = 'reservation.create'",
      )
      .get()
    expect(entry).toEqual({
      subject: `credential:${id}`,
      staff_user_id: null,
      location_id: t.tenant.locationId,
    })
  })

  test('staff users still reach the same routes by permission', async () => {
    const headers = { 'x-tenant-id': t.tenant.id }
    const read = await call('GET', reservations(t.tenant.locationId), t.tenant.readOnly.token, { headers })
    expect(read.status).toBe(200)
    expect(read.body.actor).toMatchObject({ kind: 'jwt', staffUserId: t.tenant.readOnly.id })
    const noStaff = await call('POST', reservations(t.tenant.locationId), t.tenant.readOnly.token, {
      body: { name: 'x' },
      headers,
    })
    expect(noStaff.status).toBe(403)
  })

  test('refusals: scope, location, non-tables routes, revoked, forged and cross-tenant; none writes', async () => {
    const other = await t.addTenant('other')
    const readOnly = t.addCredential(t.tenant, { scopes: ['reservations:read'] })
    const writer = t.addCredential(t.tenant, { scopes: ['reservations:write'] })
    const otherTenant = t.addCredential(other, { scopes: ['reservations:read', 'reservations:write'] })
    const revoked = t.addCredential(t.tenant)
    const revokedAt = new Date().toISOString()
    t.tenant.db.$client
      .query('UPDATE api_credentials SET revoked_at = ? WHERE id = ?')
      .run(revokedAt, revoked.id)
    const before = countRows(t.tenant.db, 'audit_entries')

    const cases: [string, Promise<{ status: number; body: any }>, number, string][] = [
      [
        'missing scope',
        call('POST', reservations(t.tenant.locationId), readOnly.token, { body: { name: 'x' } }),
        403,
        'forbidden',
      ],
      [
        'location not allowlisted (path)',
        call('GET', reservations(other.locationId), readOnly.token),
        403,
        'forbidden',
      ],
      [
        'location not allowlisted (header)',
        call('GET', reservations(t.tenant.locationId), readOnly.token, {
          headers: { 'x-location-id': 'elsewhere' },
        }),
        403,
        'forbidden',
      ],
      [
        'location not allowlisted (body)',
        call('POST', reservations(t.tenant.locationId), writer.token, {
          body: { name: 'x', locationId: 'elsewhere' },
        }),
        403,
        'forbidden',
      ],
      [
        'route without a credential scope',
        call('GET', '/tables-api/v1/unscoped', readOnly.token),
        403,
        'forbidden',
      ],
      ['revoked', call('GET', reservations(t.tenant.locationId), revoked.token), 401, 'unauthenticated'],
      [
        'forged',
        call('GET', reservations(t.tenant.locationId), `tpk_live_${'x'.repeat(43)}`),
        401,
        'unauthenticated',
      ],
      [
        'another tenant selected',
        call('GET', reservations(t.tenant.locationId), otherTenant.token, {
          headers: { 'x-tenant-id': t.tenant.id },
        }),
        403,
        'forbidden',
      ],
      [
        'another tenant’s location',
        call('GET', reservations(t.tenant.locationId), otherTenant.token),
        403,
        'forbidden',
      ],
    ]
    for (const [name, pending, status, code] of cases) {
      const res = await pending
      expect({ name, status: res.status, code: res.body.code }).toEqual({ name, status, code })
    }
    expect(countRows(t.tenant.db, 'audit_entries')).toBe(before)
  })

  test('credentials work only on /tables-api/v1: every other route is 403', async () => {
    const { token } = t.addCredential(t.tenant, {
      scopes: ['reservations:read', 'reservations:write', 'webhooks:manage'],
    })
    for (const path of ['/vendor', '/audit-entries', '/staff-users', '/tables/v1/meta']) {
      const res = await t.request('GET', path, { as: token })
      expect({ path, status: res.status }).toEqual({ path, status: 403 })
      expect(res.body.detail).toContain('/tables-api/v1/')
    }
    const write = await t.request('POST', '/vendor', { as: token, body: { name: 'x' } })
    expect(write.status).toBe(403)
    expect(countRows(t.tenant.db, 'vendors')).toBe(0)
  })

  test('beyond its rate: 429 rate_limited with Retry-After and RateLimit-* headers; others unaffected', async () => {
    const limited = t.addCredential(t.tenant, { scopes: ['reservations:read'], rateLimitPerMinute: 3 })
    const other = t.addCredential(t.tenant, { scopes: ['reservations:read'], rateLimitPerMinute: 3 })
    const path = reservations(t.tenant.locationId)
    const remaining: (string | null)[] = []
    for (let i = 0; i < 3; i++) {
      const res = await call('GET', path, limited.token)
      expect(res.status).toBe(200)
      remaining.push(res.headers.get('ratelimit-remaining'))
    }
    expect(remaining).toEqual(['2', '1', '0'])
    const refused = await call('GET', path, limited.token)
    expect(refused.status).toBe(429)
    expect(refused.body.code).toBe('rate_limited')
    const retryAfter = Number(refused.headers.get('retry-after'))
    expect(retryAfter).toBeGreaterThanOrEqual(1)
    expect(retryAfter).toBeLessThanOrEqual(60)
    expect(refused.headers.get('ratelimit-limit')).toBe('3')
    expect(refused.headers.get('ratelimit-remaining')).toBe('0')
    expect(refused.headers.get('ratelimit-reset')).toBe(String(retryAfter))
    expect(refused.headers.get('ratelimit-policy')).toBe('3;w=60')
    expect(refused.headers.get('ratelimit')).toMatch(/^limit=3, remaining=0, reset=\d+$/)
    expect((await call('GET', path, other.token)).status).toBe(200)
  })

  test('concurrent requests never exceed the limit', async () => {
    const { token } = t.addCredential(t.tenant, { scopes: ['reservations:read'], rateLimitPerMinute: 5 })
    const results = await Promise.all(
      Array.from({ length: 12 }, () => call('GET', reservations(t.tenant.locationId), token)),
    )
    expect(results.filter((r) => r.status === 200)).toHaveLength(5)
    expect(results.filter((r) => r.status === 429)).toHaveLength(7)
  })
})

describe('fixed-window limiter', () => {
  test('counts per key, resets after the window, reports time to reset', () => {
    let now = 1_000_000
    const limiter = new SharedWindowLimiter(null, 60_000, () => now)
    expect(limiter.take('a', 2)).toEqual({ allowed: true, limit: 2, remaining: 1, resetSeconds: 60 })
    now += 10_500
    expect(limiter.take('a', 2)).toEqual({ allowed: true, limit: 2, remaining: 0, resetSeconds: 50 })
    expect(limiter.take('a', 2)).toMatchObject({ allowed: false, remaining: 0, resetSeconds: 50 })
    expect(limiter.take('b', 2).allowed).toBe(true)
    now += 49_500
    expect(limiter.take('a', 2)).toEqual({ allowed: true, limit: 2, remaining: 1, resetSeconds: 60 })
  })

  test('two limiters on one data directory count one window, as the workers of one serve do', () => {
    let now = 5_000_000
    const dir = makeTestDir('limits')
    try {
      const first = new SharedWindowLimiter(dir, 60_000, () => now)
      const second = new SharedWindowLimiter(dir, 60_000, () => now)
      const allowed = Array.from({ length: 10 }, (_, i) => (i % 2 ? first : second).take('key', 6).allowed)
      expect(allowed.filter(Boolean)).toHaveLength(6)
      expect(first.take('other', 6).remaining).toBe(5)
      now += 60_000
      expect(second.take('key', 6)).toMatchObject({ allowed: true, remaining: 5 })
    } finally {
      removeTestDir(dir)
    }
  })

  test('a flood saturates the count instead of wrapping it back under the limit', () => {
    const limiter = new SharedWindowLimiter(null, 60_000, () => 1000)
    for (let i = 0; i < 1_100_000; i++) limiter.take('flood', 10)
    expect(limiter.take('flood', 10).allowed).toBe(false)
  })
})

describe('staff on location routes', () => {
  test('a location-scoped role counts at the path location; x-location-id may not contradict it', async () => {
    const t = await createTestApp()
    try {
      const app = tablesApiApp(t)
      const patio = t.addLocation(t.tenant, {
        name: 'Patio',
        timezone: 'UTC',
      })
      const host = await t.addStaff(t.tenant, { role: 'staff', locationId: patio.id })
      const get = (locationId: string, headers: Record<string, string> = {}) =>
        app.handle(
          new Request(`http://localhost/tables-api/v1/locations/${locationId}/reservations`, {
            headers: { authorization: `Bearer ${host.token}`, 'x-tenant-id': t.tenant.id, ...headers },
          }),
        )
      expect((await get(patio.id)).status).toBe(200)
      expect((await get(t.tenant.locationId)).status).toBe(403)
      expect((await get(t.tenant.locationId, { 'x-location-id': patio.id })).status).toBe(400)
      expect((await get('missing')).status).toBe(404)
    } finally {
      t.close()
    }
  })
})
