// The command line for credentials and audit verification, run as a real subprocess against the
// data directory of a test app (so the server side sees what the CLI wrote).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { createTestApp, type TestApp } from '../harness'

const main = join(import.meta.dir, '..', '..', 'src', 'main.ts')

describe('cli: credential and audit commands', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await createTestApp()
  })
  afterAll(() => t.close())

  const cli = async (...args: string[]) => {
    const proc = Bun.spawn([process.execPath, main, ...args], {
      env: { ...process.env, DATA_DIR: t.dataDir, LOG_LEVEL: 'silent' },
      stdout: 'pipe',
      stderr: 'pipe',
    })
    const [stdout, stderr, code] = await Promise.all([
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
      proc.exited,
    ])
    const last = stdout.trim().split('\n').pop()
    return { code, stderr, json: last ? JSON.parse(last) : undefined }
  }

  test('credential create prints the token once; list never shows it; revoke stops it', async () => {
    const created = await cli(
      'credential',
      'create',
      '--tenant',
      'acme',
      '--name',
      'Booking partner',
      '--scopes',
      'reservations:read,reservations:write',
      '--locations',
      t.tenant.locationId,
      '--rate-limit',
      '30',
    )
    expect(created.code).toBe(0)
    expect(created.json).toMatchObject({
      tenant: 'acme',
      name: 'Booking partner',
      scopes: ['reservations:read', 'reservations:write'],
      locationIds: [t.tenant.locationId],
      rateLimitPerMinute: 30,
    })
    const { id, token } = created.json
    expect(token).toMatch(/^tpk_live_/)

    const listed = await cli('credential', 'list', '--tenant', 'acme')
    expect(listed.code).toBe(0)
    expect(listed.json.credentials).toEqual([
      expect.objectContaining({ id, status: 'active', tokenHint: token.slice(-4), revokedAt: null }),
    ])
    expect(JSON.stringify(listed.json)).not.toContain(token)
    expect(JSON.stringify(listed.json)).not.toContain('tokenHash')

    // The server finds the credential by its token alone (403: /vendor is not a tables-API route).
    expect((await t.request('GET', '/vendor', { as: token, tenant: null })).status).toBe(403)

    const revoked = await cli('credential', 'revoke', '--id', id)
    expect(revoked.code).toBe(0)
    expect(revoked.json).toMatchObject({ id, status: 'revoked' })
    expect((await t.request('GET', '/vendor', { as: token, tenant: null })).status).toBe(401)
    const again = await cli('credential', 'revoke', '--id', id)
    expect(again.code).toBe(1)
    expect(again.stderr).toContain('already revoked')

    const audit = t.tenant.db.$client
      .query("SELECT action, subject FROM audit_entries WHERE entity_type = 'api_credential' ORDER BY seq")
      .all()
    expect(audit).toEqual([
      { action: 'credential.create', subject: 'system:cli' },
      { action: 'credential.revoke', subject: 'system:cli' },
    ])
  })

  test('credential create refuses unknown scopes, foreign locations and bad limits', async () => {
    const other = await t.addTenant('other-cli')
    const base = ['credential', 'create', '--tenant', 'acme', '--name', 'x']
    const cases = [
      [...base, '--scopes', 'reservations:delete', '--locations', t.tenant.locationId],
      [...base, '--scopes', 'reservations:read', '--locations', other.locationId],
      [...base, '--scopes', 'reservations:read', '--locations', t.tenant.locationId, '--rate-limit', '0'],
      [...base, '--scopes', 'reservations:read'],
    ]
    for (const args of cases) {
      const res = await cli(...args)
      expect({ args, code: res.code }).toEqual({ args, code: 1 })
      expect(res.stderr).toStartWith('error:')
    }
  })

  test('audit verify passes an intact chain and names the first tampered entry', async () => {
    await t.request('POST', '/vendor', { body: { name: 'One' } })
    await t.request('POST', '/vendor', { body: { name: 'Two' } })
    const ok = await cli('audit', 'verify', '--tenant', 'acme')
    expect(ok.code).toBe(0)
    expect(ok.json).toMatchObject({ tenant: 'acme', ok: true })
    expect(ok.json.count).toBeGreaterThan(4)

    const sqlite = t.tenant.db.$client
    const target = sqlite
      .query("SELECT id FROM audit_entries WHERE action = 'vendor.create' ORDER BY seq LIMIT 1")
      .get() as {
      id: string
    }
    sqlite.exec('DROP TRIGGER audit_entries_no_update')
    sqlite
      .query(`UPDATE audit_entries SET metadata = '{"vendor":{"name":"Forged"}}' WHERE id = ?`)
      .run(target.id)
    const bad = await cli('audit', 'verify', '--tenant', 'acme')
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain(target.id)
    expect(bad.json).toMatchObject({ ok: false, firstBadEntryId: target.id })
  })
})
