// Identity headers, the in-process staff header, deactivation taking effect at once, and
// location-scoped roles.
import { describe, expect, test } from 'bun:test'
import { countRows, createTestApp } from '../../harness'

describe('identity headers', () => {
  test('trusted: x-auth-provider idp + x-auth-user-id resolve the staff user', async () => {
    const t = await createTestApp({ config: { authTrustIdentityHeaders: true } })
    try {
      const headers = { 'x-auth-provider': 'idp', 'x-auth-user-id': t.tenant.manager.subject }
      const ok = await t.request('POST', '/vendor', { as: null, headers, body: { name: 'Via headers' } })
      expect(ok.status).toBe(201)
      const entry = t.tenant.db.$client
        .query("SELECT subject, staff_user_id FROM audit_entries WHERE action = 'vendor.create'")
        .get()
      expect(entry).toEqual({ subject: t.tenant.manager.subject, staff_user_id: t.tenant.manager.id })

      const other = await t.request('GET', '/vendor', {
        as: null,
        headers: { 'x-auth-provider': 'google', 'x-auth-user-id': t.tenant.manager.subject },
      })
      expect(other.status).toBe(401)
      expect(other.body.code).toBe('unauthenticated')
      const noUser = await t.request('GET', '/vendor', { as: null, headers: { 'x-auth-provider': 'idp' } })
      expect(noUser.status).toBe(401)
      const unknown = await t.request('GET', '/vendor', {
        as: null,
        headers: { 'x-auth-provider': 'idp', 'x-auth-user-id': 'nobody' },
      })
      expect(unknown.status).toBe(403)

      // Deactivation applies to identity headers at once.
      expect((await t.request('POST', `/staff-users/${t.tenant.manager.id}/deactivate`)).status).toBe(200)
      expect((await t.request('GET', '/vendor', { as: null, headers })).status).toBe(403)
    } finally {
      t.close()
    }
  })

  test('untrusted (the default): identity headers are ignored, so the request is 401 and writes nothing', async () => {
    const t = await createTestApp()
    try {
      const headers = { 'x-auth-provider': 'idp', 'x-auth-user-id': t.tenant.owner.subject }
      const res = await t.request('POST', '/vendor', { as: null, headers, body: { name: 'x' } })
      expect(res.status).toBe(401)
      expect(res.headers.get('www-authenticate')).toContain('Bearer')
      expect(countRows(t.tenant.db, 'vendors')).toBe(0)
    } finally {
      t.close()
    }
  })
})

describe('x-staff-user-id', () => {
  test('honoured only when createApp is given the in-process test option', async () => {
    const trusted = await createTestApp({ trustStaffUserIdHeader: true })
    const plain = await createTestApp()
    try {
      const ok = await trusted.request('GET', '/vendor', {
        as: null,
        headers: { 'x-staff-user-id': trusted.tenant.readOnly.id },
      })
      expect(ok.status).toBe(200)
      const ignored = await plain.request('GET', '/vendor', {
        as: null,
        headers: { 'x-staff-user-id': plain.tenant.owner.id },
      })
      expect(ignored.status).toBe(401)
    } finally {
      trusted.close()
      plain.close()
    }
  })
})

describe('bearer JWTs', () => {
  test('deactivation stops a valid token at once; reactivation restores it', async () => {
    const t = await createTestApp()
    try {
      const { staff } = t.tenant
      expect((await t.request('GET', '/vendor', { as: staff })).status).toBe(200)
      expect((await t.request('POST', `/staff-users/${staff.id}/deactivate`)).status).toBe(200)
      const refused = await t.request('GET', '/vendor', { as: staff })
      expect(refused.status).toBe(403)
      expect(refused.body.code).toBe('forbidden')
      expect((await t.request('POST', `/staff-users/${staff.id}/reactivate`)).status).toBe(200)
      expect((await t.request('GET', '/vendor', { as: staff })).status).toBe(200)
    } finally {
      t.close()
    }
  })

  test('forged, expired and cross-tenant tokens are refused and write nothing', async () => {
    const t = await createTestApp()
    try {
      const other = await t.addTenant('other')
      const expired = await t.platform.devIssuer!.mint({ subject: t.tenant.owner.subject, ttlSeconds: -10 })
      const [header, payload] = t.tenant.owner.token.split('.')
      const cases: [string | undefined, Parameters<typeof t.request>[2], number][] = [
        ['forged', { as: `${header}.${payload}.AAAA`, body: { name: 'x' } }, 401],
        ['expired', { as: expired, body: { name: 'x' } }, 401],
        ['malformed header', { as: null, headers: { authorization: 'Token abc' }, body: { name: 'x' } }, 401],
        ['other tenant', { as: t.tenant.owner, tenant: other, body: { name: 'x' } }, 403],
      ]
      for (const [name, options, status] of cases) {
        const res = await t.request('POST', '/vendor', options)
        expect({ name, status: res.status }).toEqual({ name, status })
      }
      expect(countRows(t.tenant.db, 'vendors')).toBe(0)
      expect(countRows(other.db, 'vendors')).toBe(0)
    } finally {
      t.close()
    }
  })
})

describe('location-scoped roles', () => {
  test('grant only at their location: x-location-id of another is 403, none acts at their own', async () => {
    const t = await createTestApp()
    try {
      const patio = t.addLocation(t.tenant, {
        name: 'Patio',
        timezone: 'UTC',
      })
      const lead = await t.addStaff(t.tenant, { role: 'manager', locationId: patio.id })
      expect((await t.request('GET', '/vendor', { as: lead })).status).toBe(200)
      expect(
        (await t.request('GET', '/vendor', { as: lead, headers: { 'x-location-id': t.tenant.locationId } }))
          .status,
      ).toBe(403)
      expect(
        (await t.request('GET', '/vendor', { as: lead, headers: { 'x-location-id': patio.id } })).status,
      ).toBe(200)
      expect(
        (await t.request('GET', '/vendor', { as: lead, headers: { 'x-location-id': 'nowhere' } })).status,
      ).toBe(404)
    } finally {
      t.close()
    }
  })
})
