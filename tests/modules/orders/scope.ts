// The fixture of the order family's location-scope tests: a second location, callers confined to
// the first, and the check that a refused request wrote nothing (no table of the tenant changed
// its count; every write is audited, so a changed row shows in audit_entries).
import { expect } from 'bun:test'
import { changedCounts, type TestApp, type TestResponse, tableCounter } from '../../harness'

/** A manager whose only role is at A, and a `vps_` passcode session at A. */
export const callers = ['a manager at A', 'a vps_ session at A'] as const

export interface ScopeFixture {
  /** acme's location: where the callers act. */
  A: string
  /** Another location of acme, out of the callers' reach. */
  B: string
  /** Each caller's bearer token. */
  tokens: Record<(typeof callers)[number], string>
}

export async function scopeFixture(t: TestApp): Promise<ScopeFixture> {
  const A = t.tenant.locationId
  const B = t.addLocation(t.tenant, { name: 'B', timezone: 'UTC' }).id
  const manager = await t.addStaff(t.tenant, { role: 'manager', locationId: A })
  const cashier = await t.addStaff(t.tenant, { role: 'manager', locationId: A, passcode: '1234' })
  const session = await t.passcodeSession(t.tenant, cashier, { passcode: '1234' })
  return { A, B, tokens: { 'a manager at A': manager.token, 'a vps_ session at A': session } }
}

/** Sends a request that must be refused with `status` and write nothing at all. */
export async function refusedUnwritten(t: TestApp, status: number, send: () => Promise<TestResponse>) {
  const counts = tableCounter({ acme: t.tenant.db })
  const before = counts()
  const res = await send()
  expect({ status: res.status, code: res.body?.code }).toEqual({
    status,
    code: status === 404 ? 'not_found' : 'forbidden',
  })
  expect(changedCounts(before, counts())).toEqual([])
  return res
}
