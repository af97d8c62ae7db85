// Tokens issued before passcode sessions and credentials lived with their tenant (control 0006,
// tenant 0031): the upgrade indexes their tenant by token hash and carries their rows into the
// tenant's database the first time it is opened; they keep working, revocable at once.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { controlMigrations } from '../../../migrations/embedded'
import { configFor } from '../../../src/config'
import { hashToken } from '../../../src/platform/auth/tokens'
import { migrate } from '../../../src/platform/tenancy/migrator'
import { commitsPending } from '../../../src/platform/tenancy/transaction'
import { createApp } from '../../../src/server'
import { countRows, createTestApp, type StaffFixture, type TestApp } from '../../harness'

const UPGRADE = '0006_legacy_token_tenants'
const oldToken = (prefix: string) =>
  prefix + Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url')

describe('tokens issued before the upgrade', () => {
  let t: TestApp
  let cashier: StaffFixture
  let locked: StaffFixture
  let upgraded: Awaited<ReturnType<typeof createApp>>
  const vps = oldToken('vps_')
  const tpk = oldToken('tpk_live_')
  const revokedTpk = oldToken('tpk_live_')
  const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString()

  beforeEach(async () => {
    t = await createTestApp()
    cashier = await t.addStaff(t.tenant, { role: 'staff', passcode: '4321' })
    locked = await t.addStaff(t.tenant, { role: 'staff', passcode: '9876' })
    // The control database as it was before 0006: the rows there, the index not yet made.
    const control = t.platform.control.sqlite
    control.run('DROP TABLE legacy_token_tenants')
    control.run('DELETE FROM schema_migrations WHERE tag = ?', [UPGRADE])
    const now = new Date().toISOString()
    control.run(
      'INSERT INTO passcode_sessions (id, token_hash, tenant_id, staff_user_id, location_id, created_at, expires_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, ?, NULL)',
      ['old-session', hashToken(vps), t.tenant.id, cashier.id, t.tenant.locationId, now, inAnHour()],
    )
    const credential = (id: string, token: string, revokedAt: string | null) =>
      control.run(
        'INSERT INTO api_credentials (id, tenant_id, name, token_hash, token_hint, scopes, location_ids, rate_limit_per_minute, created_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, ?, 120, ?, ?)',
        [
          id,
          t.tenant.id,
          `partner ${id}`,
          hashToken(token),
          token.slice(-4),
          '["reservations:read"]',
          JSON.stringify([t.tenant.locationId]),
          now,
          revokedAt,
        ],
      )
    credential('00000000-0000-7000-8000-000000000001', tpk, null)
    credential('00000000-0000-7000-8000-000000000002', revokedTpk, now)
    control.run(
      'INSERT INTO passcode_attempts (tenant_id, staff_user_id, failures, window_started_at, locked_until) VALUES (?, ?, 5, ?, ?)',
      [t.tenant.id, locked.id, now, inAnHour()],
    )
    // The upgrade: the migration indexes the tokens, and a server opening the tenant carries the rows.
    expect(migrate(control, controlMigrations)).toEqual([UPGRADE])
    // The fixtures' writes commit first, as the old server's would have before the new one started.
    await commitsPending()
    upgraded = await createApp({ config: configFor({ dataDir: t.dataDir }) })
  })

  afterEach(async () => {
    upgraded.platform.close()
    await t.close()
  })

  const call = (method: string, path: string, token: string | null, body?: unknown) =>
    upgraded.app.handle(
      new Request(`http://localhost${path}`, {
        method,
        headers: {
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    )
  const availability = (token: string) =>
    call(
      'GET',
      `/tables-api/v1/locations/${t.tenant.locationId}/availability?date=2030-01-01&partySize=2`,
      token,
    )

  test('work without tenant headers, from the tenant database they were carried into', async () => {
    const first = await call('GET', '/vendor', vps)
    expect(first.status, await first.clone().text()).toBe(200)
    expect((await availability(tpk)).status).toBe(200)
    expect((await availability(revokedTpk)).status).toBe(401)
    // Carried: the tenant holds them now, the control database no longer does; the index stays.
    const tenantDb = upgraded.platform.pool.get(t.tenant.id).db
    expect(countRows(tenantDb, 'passcode_sessions')).toBe(1)
    expect(countRows(tenantDb, 'api_credentials')).toBe(2)
    expect(countRows(tenantDb, 'passcode_attempts')).toBe(1)
    for (const table of ['passcode_sessions', 'api_credentials', 'passcode_attempts'])
      expect(countRows(upgraded.platform.control.db, table)).toBe(0)
    expect(countRows(upgraded.platform.control.db, 'legacy_token_tenants')).toBe(3)
    // The lockout came along: even the right passcode is 429 until it runs out.
    const signIn = await upgraded.app.handle(
      new Request('http://localhost/auth/passcode-sessions', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-tenant-id': t.tenant.id },
        body: JSON.stringify({ locationId: t.tenant.locationId, staffUserId: locked.id, passcode: '9876' }),
      }),
    )
    expect(signIn.status).toBe(429)
  })

  test('revoking and signing out refuse them from the next request', async () => {
    expect((await availability(tpk)).status).toBe(200)
    const revoked = await upgraded.app.handle(
      new Request('http://localhost/credentials/00000000-0000-7000-8000-000000000001/revoke', {
        method: 'POST',
        headers: { authorization: `Bearer ${t.tenant.owner.token}`, 'x-tenant-id': t.tenant.id },
      }),
    )
    expect(revoked.status).toBe(200)
    expect((await availability(tpk)).status).toBe(401)

    expect((await call('GET', '/vendor', vps)).status).toBe(200)
    expect((await call('DELETE', '/auth/passcode-sessions/current', vps)).status).toBe(204)
    const after = await call('GET', '/vendor', vps)
    expect(after.status).toBe(401)
    const audit = upgraded.platform.pool
      .get(t.tenant.id)
      .sqlite.query(
        "SELECT action FROM audit_entries WHERE action IN ('credential.revoke', 'passcode_session.revoke')",
      )
      .all()
    expect(audit).toHaveLength(2)
  })

  test('a token indexed under no tenant is 401, whatever tenant the headers name', async () => {
    const unknown = oldToken('vps_')
    expect((await call('GET', '/vendor', unknown)).status).toBe(401)
    const named = await upgraded.app.handle(
      new Request('http://localhost/vendor', {
        headers: { authorization: `Bearer ${unknown}`, 'x-tenant-id': t.tenant.id },
      }),
    )
    expect(named.status).toBe(401)
  })
})
