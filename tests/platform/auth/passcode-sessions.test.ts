// POS passcode sessions: sign-in, lockout, location binding, sign-out, expiry, revocation.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { PASSCODE_MAX_ATTEMPTS } from '../../../src/platform/auth/passcode-sessions'
import { countRows, createTestApp, type StaffFixture, type TestApp } from '../../harness'

const PASSCODE = '4321'

describe('passcode sessions', () => {
  let t: TestApp
  let cashier: StaffFixture
  beforeEach(async () => {
    t = await createTestApp({ config: { passcodeSessionTtlSeconds: 600 } })
    cashier = await t.addStaff(t.tenant, { role: 'staff', passcode: PASSCODE })
  })
  afterEach(() => t.close())

  const signIn = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    t.request('POST', '/auth/passcode-sessions', { as: null, body, headers })

  const tenantCount = (table: string) => countRows(t.tenant.db, table)

  test('sign-in answers a vps_ token for the staff user at the location, valid for the TTL', async () => {
    const started = Date.now()
    const res = await signIn({ locationId: t.tenant.locationId, staffUserId: cashier.id, passcode: PASSCODE })
    const finished = Date.now()
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({ staffUserId: cashier.id, locationId: t.tenant.locationId })
    // The token names its tenant: any node finds the tenant's database, where the session is.
    expect(res.body.token).toStartWith(`vps_${t.tenant.id}.`)
    expect(res.body.token.slice(`vps_${t.tenant.id}.`.length)).toMatch(/^[A-Za-z0-9_-]{43}$/)
    // The session starts while the request runs (argon2 takes a while on a busy machine).
    const expiresAt = Date.parse(res.body.expiresAt)
    expect(expiresAt).toBeGreaterThanOrEqual(started + 600_000)
    expect(expiresAt).toBeLessThanOrEqual(finished + 600_000)
    // Only the hash is stored.
    const stored = t.tenant.db.$client.query('SELECT token_hash FROM passcode_sessions').all() as {
      token_hash: string
    }[]
    expect(stored).toHaveLength(1)
    expect(stored[0]!.token_hash).not.toContain(res.body.token.slice(4))
    expect(stored[0]!.token_hash).toBe(new Bun.CryptoHasher('sha256').update(res.body.token).digest('hex'))

    const me = await t.request('GET', '/vendor', { as: res.body.token, tenant: null })
    expect(me.status).toBe(200)
  })

  test('the token alone selects its tenant; naming another tenant is 403', async () => {
    const token = await t.passcodeSession(t.tenant, cashier, { passcode: PASSCODE })
    const other = await t.addTenant('other')
    expect((await t.request('GET', '/vendor', { as: token, tenant: null })).status).toBe(200)
    const res = await t.request('GET', '/vendor', { as: token, tenant: other })
    expect(res.status).toBe(403)
    expect(res.body.code).toBe('forbidden')
    const bySlug = await t.request('GET', '/vendor', {
      as: token,
      tenant: null,
      headers: { 'x-tenant-slug': 'other' },
    })
    expect(bySlug.status).toBe(403)
  })

  test('writes are audited as the passcode session, the staff user and the location', async () => {
    const token = await t.passcodeSession(t.tenant, cashier, { passcode: PASSCODE })
    const manager = await t.addStaff(t.tenant, { role: 'manager', passcode: '9999' })
    const managerToken = await t.passcodeSession(t.tenant, manager, { passcode: '9999' })
    const created = await t.request('POST', '/vendor', { as: managerToken, body: { name: 'Till vendor' } })
    expect(created.status).toBe(201)
    const entry = t.tenant.db.$client
      .query("SELECT subject, staff_user_id, location_id FROM audit_entries WHERE action = 'vendor.create'")
      .get() as Record<string, string>
    expect(entry.subject).toMatch(/^passcode-session:/)
    expect(entry.staff_user_id).toBe(manager.id)
    expect(entry.location_id).toBe(t.tenant.locationId)
    // A staff-role session lacks vendors:write.
    expect((await t.request('POST', '/vendor', { as: token, body: { name: 'x' } })).status).toBe(403)
  })

  test('a vps_ request naming another location anywhere is 403 and writes nothing', async () => {
    const manager = await t.addStaff(t.tenant, { role: 'manager', passcode: '2468' })
    const token = await t.passcodeSession(t.tenant, manager, { passcode: '2468' })
    const elsewhere = t.addLocation(t.tenant, {
      name: 'Patio',
      timezone: 'UTC',
    })
    const before = countRows(t.tenant.db, 'audit_entries')
    const cases = [
      t.request('GET', '/vendor', { as: token, headers: { 'x-location-id': elsewhere.id } }),
      t.request('GET', `/audit-entries?locationId=${elsewhere.id}`, { as: token }),
      t.request('POST', '/staff-users', {
        as: token,
        body: {
          email: 'new@example.test',
          firstName: 'N',
          lastName: 'N',
          roles: [{ role: 'staff', locationId: elsewhere.id }],
        },
      }),
      t.request('POST', `/staff-users/${manager.id}/roles`, {
        as: token,
        body: { role: 'staff', locationId: elsewhere.id },
      }),
    ]
    for (const res of await Promise.all(cases)) {
      expect(res.status).toBe(403)
      expect(res.body.code).toBe('forbidden')
      expect(res.body.sessionLocationId).toBe(t.tenant.locationId)
    }
    expect(countRows(t.tenant.db, 'audit_entries')).toBe(before)
    expect(countRows(t.tenant.db, 'staff_users')).toBe(6)
    // Its own location, named explicitly, is fine.
    const own = await t.request('GET', '/vendor', {
      as: token,
      headers: { 'x-location-id': t.tenant.locationId },
    })
    expect(own.status).toBe(200)
  })

  test('a location-scoped role signs in only where it applies', async () => {
    const patio = t.addLocation(t.tenant, {
      name: 'Patio',
      timezone: 'UTC',
    })
    const barback = await t.addStaff(t.tenant, { role: 'staff', locationId: patio.id, passcode: '1357' })
    const here = await signIn({ locationId: t.tenant.locationId, staffUserId: barback.id, passcode: '1357' })
    expect(here.status).toBe(403)
    const there = await signIn({ locationId: patio.id, staffUserId: barback.id, passcode: '1357' })
    expect(there.status).toBe(201)
    expect((await t.request('GET', '/vendor', { as: there.body.token })).status).toBe(200)
  })

  test('wrong passcodes, unknown staff and passcode-less staff are all 401; bad input 400', async () => {
    const noPasscode = await t.addStaff(t.tenant, { role: 'staff' })
    const cases: [Record<string, unknown>, number][] = [
      [{ locationId: t.tenant.locationId, staffUserId: cashier.id, passcode: '0000' }, 401],
      [{ locationId: t.tenant.locationId, staffUserId: 'nobody', passcode: PASSCODE }, 401],
      [{ locationId: t.tenant.locationId, staffUserId: noPasscode.id, passcode: '0000' }, 401],
      [{ locationId: 'nowhere', staffUserId: cashier.id, passcode: PASSCODE }, 404],
      [{ locationId: t.tenant.locationId, staffUserId: cashier.id, passcode: '12' }, 400],
      [{ locationId: t.tenant.locationId, staffUserId: cashier.id }, 400],
      [{ locationId: t.tenant.locationId, staffUserId: cashier.id, passcode: PASSCODE, extra: 1 }, 400],
    ]
    for (const [body, status] of cases) {
      const res = await signIn(body)
      expect({ body, status: res.status }).toEqual({ body, status })
      expect(res.headers.get('content-type')).toContain('application/problem+json')
    }
    expect(tenantCount('passcode_sessions')).toBe(0)
    // The deactivated can no longer sign in.
    await t.request('POST', `/staff-users/${cashier.id}/deactivate`)
    expect(
      (await signIn({ locationId: t.tenant.locationId, staffUserId: cashier.id, passcode: PASSCODE })).status,
    ).toBe(401)
  })

  test(`${PASSCODE_MAX_ATTEMPTS} failed attempts lock passcode sign-in (429 with Retry-After), even with the right passcode`, async () => {
    const body = (passcode: string) => ({
      locationId: t.tenant.locationId,
      staffUserId: cashier.id,
      passcode,
    })
    for (let i = 0; i < PASSCODE_MAX_ATTEMPTS; i++) expect((await signIn(body('0000'))).status).toBe(401)
    const locked = await signIn(body(PASSCODE))
    expect(locked.status).toBe(429)
    expect(locked.body.code).toBe('rate_limited')
    const retryAfter = Number(locked.headers.get('retry-after'))
    expect(retryAfter).toBeGreaterThan(0)
    expect(retryAfter).toBeLessThanOrEqual(15 * 60)
    expect(tenantCount('passcode_sessions')).toBe(0)
    // Another staff user is not affected.
    const other = await t.addStaff(t.tenant, { role: 'staff', passcode: '5555' })
    expect((await signIn({ ...body('5555'), staffUserId: other.id })).status).toBe(201)

    // When the lock runs out, the right passcode works again and clears the count.
    t.tenant.db.$client
      .query('UPDATE passcode_attempts SET locked_until = ?, window_started_at = ?')
      .run(new Date(Date.now() - 1000).toISOString(), new Date(Date.now() - 3_600_000).toISOString())
    expect((await signIn(body(PASSCODE))).status).toBe(201)
    expect(tenantCount('passcode_attempts')).toBe(0)
  })

  test('a success resets the failure count', async () => {
    const body = (passcode: string) => ({
      locationId: t.tenant.locationId,
      staffUserId: cashier.id,
      passcode,
    })
    for (let i = 0; i < PASSCODE_MAX_ATTEMPTS - 1; i++) expect((await signIn(body('0000'))).status).toBe(401)
    expect((await signIn(body(PASSCODE))).status).toBe(201)
    for (let i = 0; i < PASSCODE_MAX_ATTEMPTS - 1; i++) expect((await signIn(body('0000'))).status).toBe(401)
    expect((await signIn(body(PASSCODE))).status).toBe(201)
  })

  test('concurrent guesses cannot exceed the attempt limit', async () => {
    const body = { locationId: t.tenant.locationId, staffUserId: cashier.id, passcode: '0000' }
    const results = await Promise.all(Array.from({ length: 12 }, () => signIn(body)))
    const statuses = results.map((r) => r.status).sort()
    expect(statuses.filter((s) => s === 401)).toHaveLength(PASSCODE_MAX_ATTEMPTS)
    expect(statuses.filter((s) => s === 429)).toHaveLength(12 - PASSCODE_MAX_ATTEMPTS)
  })

  test('sign-out revokes the session; the token is 401 afterwards', async () => {
    const token = await t.passcodeSession(t.tenant, cashier, { passcode: PASSCODE })
    const out = await t.request('DELETE', '/auth/passcode-sessions/current', { as: token })
    expect(out.status).toBe(204)
    const entry = t.tenant.db.$client
      .query("SELECT subject, staff_user_id FROM audit_entries WHERE action = 'passcode_session.revoke'")
      .get() as Record<string, string>
    expect(entry.staff_user_id).toBe(cashier.id)
    const after = await t.request('GET', '/vendor', { as: token })
    expect(after.status).toBe(401)
    expect(after.body.detail).toContain('signed out')
    expect((await t.request('DELETE', '/auth/passcode-sessions/current', { as: token })).status).toBe(401)
    // Signing out needs a passcode session, not a JWT.
    expect((await t.request('DELETE', '/auth/passcode-sessions/current')).status).toBe(401)
  })

  test('expired, forged and malformed tokens are 401 and write nothing', async () => {
    const token = await t.passcodeSession(t.tenant, cashier, { passcode: PASSCODE })
    t.tenant.db.$client
      .query('UPDATE passcode_sessions SET expires_at = ?')
      .run(new Date(Date.now() - 1000).toISOString())
    const before = countRows(t.tenant.db, 'audit_entries')
    const expired = await t.request('POST', '/vendor', { as: token, body: { name: 'x' } })
    expect(expired.status).toBe(401)
    expect(expired.body.detail).toContain('expired')
    const forged = await t.request('POST', '/vendor', { as: `vps_${'A'.repeat(43)}`, body: { name: 'x' } })
    expect(forged.status).toBe(401)
    // Naming the tenant does not help a guessed secret; naming no tenant of this service is 401 too.
    for (const guess of [`vps_${t.tenant.id}.${'A'.repeat(43)}`, `vps_nobody.${'A'.repeat(43)}`]) {
      const res = await t.request('POST', '/vendor', { as: guess, body: { name: 'x' }, tenant: null })
      expect(res.status).toBe(401)
    }
    expect((await t.request('GET', '/vendor', { as: 'vps_' })).status).toBe(401)
    expect(countRows(t.tenant.db, 'audit_entries')).toBe(before)
    expect(countRows(t.tenant.db, 'vendors')).toBe(0)
  })

  test('deactivation and passcode changes take effect at once', async () => {
    const token = await t.passcodeSession(t.tenant, cashier, { passcode: PASSCODE })
    const other = await t.addStaff(t.tenant, { role: 'staff', passcode: '8642' })
    const otherToken = await t.passcodeSession(t.tenant, other, { passcode: '8642' })
    expect((await t.request('GET', '/vendor', { as: token })).status).toBe(200)
    expect((await t.request('POST', `/staff-users/${cashier.id}/deactivate`)).status).toBe(200)
    expect((await t.request('GET', '/vendor', { as: token })).status).toBe(401)
    // Reactivation does not bring the old session back.
    expect((await t.request('POST', `/staff-users/${cashier.id}/reactivate`)).status).toBe(200)
    expect((await t.request('GET', '/vendor', { as: token })).status).toBe(401)

    expect(
      (await t.request('PUT', `/staff-users/${other.id}/passcode`, { body: { passcode: '1111' } })).status,
    ).toBe(200)
    expect((await t.request('GET', '/vendor', { as: otherToken })).status).toBe(401)
    expect(
      (await signIn({ locationId: t.tenant.locationId, staffUserId: other.id, passcode: '8642' })).status,
    ).toBe(401)
    expect(
      (await signIn({ locationId: t.tenant.locationId, staffUserId: other.id, passcode: '1111' })).status,
    ).toBe(201)
  })

  test('a deactivation that lands without revocation still stops the session (status read per request)', async () => {
    const token = await t.passcodeSession(t.tenant, cashier, { passcode: PASSCODE })
    t.tenant.db.$client.query("UPDATE staff_users SET status = 'inactive' WHERE id = ?").run(cashier.id)
    const res = await t.request('GET', '/vendor', { as: token })
    expect(res.status).toBe(403)
  })
})
