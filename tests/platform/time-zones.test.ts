// A tenant's time zone as rules inside its writes see it: from the open platform's tenant
// directory, UTC for a tenant no open platform knows.
import { afterEach, beforeEach, expect, test } from 'bun:test'
import { calendarOfTenant, timeZoneOfTenant } from '../../src/platform/tenancy/time-zones'
import { createTestApp, type TestApp } from '../harness'

let t: TestApp
beforeEach(async () => {
  t = await createTestApp()
})
afterEach(() => t.close())

test("a tenant's zone comes from its platform, UTC when no open platform knows the tenant", async () => {
  expect(timeZoneOfTenant(t.tenant.id)).toBe('America/Los_Angeles')
  // 06:00 UTC on 2 March is still 1 March in Los Angeles.
  expect(calendarOfTenant(t.tenant.id, new Date('2025-03-02T06:00:00Z'))).toEqual({
    today: '2025-03-01',
    timeZone: 'America/Los_Angeles',
  })
  expect(timeZoneOfTenant('01a2b3c4-0000-7000-8000-000000000000')).toBe('UTC')
  const id = t.tenant.id
  await t.close()
  expect(timeZoneOfTenant(id)).toBe('UTC')
  t = await createTestApp()
})
