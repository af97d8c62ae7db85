import { newId } from '../../../../src/platform/foundation/ids'
import { made, type WalkFamily } from '../family'

/** A staff user at a location: their only role is there. */
const hiredAt = (locationId: string) => ({
  email: `${newId()}@example.test`,
  firstName: 'Grace',
  lastName: 'Hopper',
  roles: [{ role: 'staff', locationId }],
  passcode: '1357',
})

export const staffUsers: WalkFamily = {
  name: 'staff users',
  prefixes: ['/staff-users'],
  located: true,
  async create(t, tenant, locationId) {
    const staff = await made(t, tenant, 'POST', '/staff-users', hiredAt(locationId))
    return { id: staff.id, roleId: staff.roles[0].id }
  },
  requests: { 'POST /staff-users': (locationId) => ({ body: hiredAt(locationId) }) },
}
