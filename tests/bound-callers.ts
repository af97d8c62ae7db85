// The two ways a caller is bound to one location, which every location-scope test probes: a
// manager whose only role is there, and a `vps_` passcode session opened there.
import type { StaffFixture, TenantFixture, TestApp } from './harness'

type Bind = (t: TestApp, tenant: TenantFixture, locationId: string) => Promise<StaffFixture | string>

export const boundCallers: readonly (readonly [string, Bind])[] = [
  [
    'a manager whose only role is at A',
    (t, tenant, locationId) => t.addStaff(tenant, { role: 'manager', locationId }),
  ],
  [
    'a vps_ session at A',
    async (t, tenant, locationId) => {
      const staff = await t.addStaff(tenant, { role: 'manager', locationId, passcode: '1234' })
      return t.passcodeSession(tenant, staff, { passcode: '1234' })
    },
  ],
]
