// Authentication core: JWT verification, tenant selection, staff resolution, location header,
// location-scoped roles and the test-only identity headers. Every refusal writes nothing.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { exportJWK, generateKeyPair, importJWK, SignJWT } from 'jose'
import { createStaffUser } from '../../src/modules/staff/service'
import { systemActor } from '../../src/platform/foundation/actor'
import { countRows, createTestApp, type TestApp } from '../harness'

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')

describe('bearer JWT verification', () => {
  let t: TestApp
  beforeEach(async () => {
    t = await createTestApp()
  })
  afterEach(() => t.close())

  /** Signs exactly these claims with the development issuer's own key (read from DATA_DIR). */
  const mint = async (overrides: Record<string, unknown> = {}, opts: { subject?: string } = {}) => {
    const keys = JSON.parse(readFileSync(join(t.dataDir, 'dev-issuer.json'), 'utf8'))
    const claims: Record<string, unknown> = {
      sub: opts.subject ?? t.tenant.owner.subject,
      iss: t.platform.config.authIssuer,
      aud: t.platform.config.authAudience,
      exp: Math.floor(Date.now() / 1000) + 600,
      ...overrides,
    }
    for (const [k, v] of Object.entries(claims)) if (v === undefined) delete claims[k]
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'ES256', kid: keys.kid })
      .sign(await importJWK(keys.privateJwk, 'ES256'))
  }

  test('a valid token reads', async () => {
    expect((await t.request('GET', '/vendor', { as: await mint() })).status).toBe(200)
  })

  const refused: [string, () => Promise<string>][] = [
    ['an expired token', () => mint({ exp: Math.floor(Date.now() / 1000) - 60 })],
    ['a token for another audience', () => mint({ aud: 'someone-else' })],
    ['a token from another issuer', () => mint({ iss: 'https://evil.test' })],
    [
      'a token signed by an unknown key with the same kid',
      async () => {
        const { privateKey } = await generateKeyPair('ES256')
        const kid = t.platform.devIssuer!.jwks.keys[0]!.kid!
        return new SignJWT({})
          .setProtectedHeader({ alg: 'ES256', kid })
          .setSubject(t.tenant.owner.subject)
          .setIssuer(t.platform.config.authIssuer)
          .setAudience(t.platform.config.authAudience)
          .setExpirationTime('1h')
          .sign(privateKey)
      },
    ],
    [
      'an alg:none token',
      async () =>
        `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url({
          sub: t.tenant.owner.subject,
          iss: t.platform.config.authIssuer,
          aud: t.platform.config.authAudience,
          exp: Math.floor(Date.now() / 1000) + 600,
        })}.`,
    ],
    [
      'an HS256 token signed with the public key as secret',
      async () => {
        const pub = await exportJWK((await generateKeyPair('ES256')).publicKey)
        return new SignJWT({})
          .setProtectedHeader({ alg: 'HS256' })
          .setSubject(t.tenant.owner.subject)
          .setIssuer(t.platform.config.authIssuer)
          .setAudience(t.platform.config.authAudience)
          .setExpirationTime('1h')
          .sign(new TextEncoder().encode(JSON.stringify(pub)))
      },
    ],
    [
      'a token with a tampered payload',
      async () => {
        const [h, , s] = (await mint()).split('.')
        return `${h}.${b64url({ sub: t.tenant.owner.subject, exp: 9999999999 })}.${s}`
      },
    ],
    ['garbage', async () => 'not-a-jwt'],
    ['a token without exp', () => mint({ exp: undefined })],
  ]
  for (const [name, token] of refused) {
    test(`${name} is 401 and writes nothing`, async () => {
      const res = await t.request('POST', '/vendor', { as: await token(), body: { name: 'x' } })
      expect(res.status).toBe(401)
      expect(res.body.code).toBe('unauthenticated')
      expect(res.headers.get('www-authenticate')).toContain('Bearer')
      expect(countRows(t.tenant.db, 'vendors')).toBe(0)
      expect(countRows(t.tenant.db, 'audit_entries')).toBeGreaterThan(0) // fixtures only
    })
  }

  test('a malformed Authorization header is 401', async () => {
    const res = await t.request('GET', '/vendor', { as: null, headers: { authorization: 'Basic abc' } })
    expect(res.status).toBe(401)
  })

  test('a valid token whose subject maps to no staff user is 403', async () => {
    const res = await t.request('GET', '/vendor', { as: await mint({}, { subject: 'stranger' }) })
    expect(res.status).toBe(403)
    expect(res.body.code).toBe('forbidden')
  })

  test('an inactive staff user is 403 at once', async () => {
    t.tenant.db.$client
      .query("UPDATE staff_users SET status = 'inactive' WHERE id = ?")
      .run(t.tenant.owner.id)
    expect((await t.request('GET', '/vendor')).status).toBe(403)
  })
})

describe('tenant and location selection', () => {
  let t: TestApp
  beforeEach(async () => {
    t = await createTestApp()
  })
  afterEach(() => t.close())

  test('x-tenant-slug selects a tenant; x-tenant-id wins over it', async () => {
    await t.request('POST', '/vendor', { body: { name: 'In acme' } })
    const bySlug = await t.request('GET', '/vendor', { tenant: null, headers: { 'x-tenant-slug': 'acme' } })
    expect(bySlug.body.page.total).toBe(1)
    const other = await t.addTenant('other')
    const both = await t.request('GET', '/vendor', {
      as: other.owner,
      tenant: null,
      headers: { 'x-tenant-id': other.id, 'x-tenant-slug': 'acme' },
    })
    expect(both.body.page.total).toBe(0)
  })

  test('without tenant headers the default tenant slug is used', async () => {
    const res = await t.request('GET', '/vendor', { tenant: null })
    expect(res.status).toBe(404)
    expect(res.body.code).toBe('tenant_not_found')
    expect(res.body.detail).toContain('default')
  })

  test('an unknown tenant is 404 tenant_not_found, by id or slug, even without a token', async () => {
    for (const headers of [{ 'x-tenant-id': 'nope' }, { 'x-tenant-slug': 'nope' }] as Record<
      string,
      string
    >[]) {
      const res = await t.request('GET', '/vendor', { tenant: null, headers, as: null })
      expect(res.status).toBe(404)
      expect(res.body.code).toBe('tenant_not_found')
    }
  })

  test("an x-location-id that is not this tenant's location is 404", async () => {
    const other = await t.addTenant('other')
    const res = await t.request('POST', '/vendor', {
      headers: { 'x-location-id': other.locationId },
      body: { name: 'x' },
    })
    expect(res.status).toBe(404)
    expect(countRows(t.tenant.db, 'vendors')).toBe(0)
  })

  test('a location-scoped role grants only at its location; with no location named it acts there', async () => {
    const second = t.tenant.db.$client
      .query(
        "INSERT INTO locations (id, name, timezone, created_at, updated_at) VALUES ('loc-2', 'Patio', 'UTC', 'x', 'x') RETURNING id",
      )
      .get() as { id: string }
    const scoped = await t.addStaff(t.tenant, { role: 'manager', locationId: t.tenant.locationId })
    const at = (locationId?: string) =>
      t.request('POST', '/vendor', {
        as: scoped,
        headers: locationId ? { 'x-location-id': locationId } : {},
        body: { name: `v-${locationId}` },
      })
    expect((await at(t.tenant.locationId)).status).toBe(201)
    expect((await at(second.id)).status).toBe(403)
    const unnamed = await at()
    expect(unnamed.status).toBe(201)
    const entry = t.tenant.db.$client
      .query('SELECT location_id AS locationId FROM audit_entries WHERE entity_id = ?')
      .get(unnamed.body.id) as { locationId: string }
    expect(entry.locationId).toBe(t.tenant.locationId)
  })
})

describe('test-only identity headers', () => {
  test('x-auth-provider/x-auth-user-id are ignored unless AUTH_TRUST_IDENTITY_HEADERS is on', async () => {
    const t = await createTestApp()
    try {
      const headers = { 'x-auth-provider': 'idp', 'x-auth-user-id': t.tenant.owner.subject }
      expect((await t.request('GET', '/vendor', { as: null, headers })).status).toBe(401)
    } finally {
      t.close()
    }
  })

  test('when trusted, idp resolves the staff user and any other provider is 401', async () => {
    const t = await createTestApp({ config: { authTrustIdentityHeaders: true } })
    try {
      const ok = await t.request('GET', '/vendor', {
        as: null,
        headers: { 'x-auth-provider': 'idp', 'x-auth-user-id': t.tenant.readOnly.subject },
      })
      expect(ok.status).toBe(200)
      const other = await t.request('GET', '/vendor', {
        as: null,
        headers: { 'x-auth-provider': 'google', 'x-auth-user-id': t.tenant.owner.subject },
      })
      expect(other.status).toBe(401)
      const readOnlyWrite = await t.request('POST', '/vendor', {
        as: null,
        headers: { 'x-auth-provider': 'idp', 'x-auth-user-id': t.tenant.readOnly.subject },
        body: { name: 'x' },
      })
      expect(readOnlyWrite.status).toBe(403)
    } finally {
      t.close()
    }
  })

  test('x-staff-user-id works only when createApp is given the in-process test option', async () => {
    const plain = await createTestApp()
    const trusting = await createTestApp({ trustStaffUserIdHeader: true })
    try {
      const ask = (t: TestApp) =>
        t.request('POST', '/vendor', {
          as: null,
          headers: { 'x-staff-user-id': t.tenant.owner.id },
          body: { name: 'x' },
        })
      expect((await ask(plain)).status).toBe(401)
      const res = await ask(trusting)
      expect(res.status).toBe(201)
      const entry = trusting.tenant.db.$client
        .query("SELECT subject, staff_user_id FROM audit_entries WHERE action = 'vendor.create'")
        .get()
      expect(entry).toEqual({
        subject: `staff:${trusting.tenant.owner.id}`,
        staff_user_id: trusting.tenant.owner.id,
      })
    } finally {
      plain.close()
      trusting.close()
    }
  })

  test('a staff user created without a subject cannot be reached by any token', async () => {
    const t = await createTestApp()
    try {
      const staff = createStaffUser(t.tenant.db, systemActor(t.tenant.id, 'test'), {
        email: 'nosub@example.test',
        firstName: 'No',
        lastName: 'Subject',
        role: 'owner',
      })
      const token = await t.platform.devIssuer!.mint({ subject: staff.id })
      expect((await t.request('GET', '/vendor', { as: token })).status).toBe(403)
    } finally {
      t.close()
    }
  })
})
