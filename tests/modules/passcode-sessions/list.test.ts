// GET /auth/passcode-sessions: the open sessions, never their tokens, within the caller's locations.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { boundCallers } from '../../bound-callers'
import { createTestApp, type StaffFixture, type TestApp } from '../../harness'

let t: TestApp
let B: string
beforeEach(async () => {
  t = await createTestApp()
  B = t.addLocation(t.tenant, { name: 'B', timezone: 'UTC' }).id
})
afterEach(() => t.close())

/** A staff user signed in with a passcode at `locationId`: the session's staff user and token. */
async function signedIn(locationId: string) {
  const staff = await t.addStaff(t.tenant, { role: 'staff', locationId, passcode: '4321' })
  const token = await t.passcodeSession(t.tenant, staff, { passcode: '4321', locationId })
  return { staff, token }
}
const list = (as: StaffFixture | string | null = t.tenant.owner) =>
  t.request('GET', '/auth/passcode-sessions', { as })

describe('open passcode sessions', () => {
  test('newest first, with staff user, location and expiry; never the token; ended sessions drop out', async () => {
    const atA = await signedIn(t.tenant.locationId)
    const atB = await signedIn(B)
    const res = await list()
    expect(res.status).toBe(200)
    expect(res.body.page).toEqual({ total: 2, page: 1, limit: 50 })
    expect(res.body.passcodeSessions.map((s: any) => [s.staffUserId, s.locationId])).toEqual([
      [atB.staff.id, B],
      [atA.staff.id, t.tenant.locationId],
    ])
    expect(Object.keys(res.body.passcodeSessions[0]).sort()).toEqual([
      'createdAt',
      'expiresAt',
      'id',
      'locationId',
      'staffUserId',
    ])
    expect(res.text).not.toContain(atA.token)
    expect((await t.request('DELETE', '/auth/passcode-sessions/current', { as: atB.token })).status).toBe(204)
    expect((await list()).body.passcodeSessions.map((s: any) => s.staffUserId)).toEqual([atA.staff.id])
  })

  test('expired sessions are not listed', async () => {
    await signedIn(t.tenant.locationId)
    t.tenant.db.$client.run("UPDATE passcode_sessions SET expires_at = '2000-01-01T00:00:00.000Z'")
    expect((await list()).body.page.total).toBe(0)
  })

  test('needs staff:read; anonymous callers are 401', async () => {
    const staffOnly = await t.addStaff(t.tenant, {})
    expect((await list(staffOnly)).status).toBe(403)
    expect((await list(null)).status).toBe(401)
    expect((await list(t.tenant.staff)).status).toBe(200)
  })

  test("another tenant's sessions are never listed", async () => {
    const other = await t.addTenant('other')
    const staff = await t.addStaff(other, { role: 'staff', passcode: '4321' })
    await t.passcodeSession(other, staff, { passcode: '4321' })
    expect((await list()).body.page.total).toBe(0)
  })

  describe.each(boundCallers)('%s', (_name, bind) => {
    test('sees only the sessions at its location; naming B is 403', async () => {
      await signedIn(t.tenant.locationId)
      await signedIn(B)
      const bound = await bind(t, t.tenant, t.tenant.locationId)
      const res = await list(bound)
      expect(res.body.page.total).toBe(res.body.passcodeSessions.length)
      expect(res.body.passcodeSessions.every((s: any) => s.locationId === t.tenant.locationId)).toBe(true)
      expect(res.body.passcodeSessions.length).toBeGreaterThan(0)
      const naming = await t.request('GET', '/auth/passcode-sessions', {
        as: bound,
        headers: { 'x-location-id': B },
      })
      expect(naming.status).toBe(403)
    })
  })
})
