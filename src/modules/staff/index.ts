import { family } from '../../platform/family'
import * as model from './model'
import { staffRoutes } from './routes'

export const staffFamily = family({
  name: 'staff',
  tags: {
    Staff: 'Staff users of the tenant, their roles (tenant-wide or at a location) and POS passcodes.',
  },
  models: { staff: model },
  routes: (platform) => [staffRoutes(platform.auth)],
})

// What the other families may use.
export {
  nextUpdatedAt,
  type OwnProfileChange,
  staffNames,
  staffRoleAssignments,
  staffView,
  updateOwnProfile,
} from './management'
export { StaffUser } from './model'
export { assertMayManage } from './privileges'
export { holdsRoleWithin, type StaffDirectoryRow, staffDirectory } from './queries'
export type { StaffUserRow } from './schema'
export {
  createStaffUser,
  findStaffIdBySubject,
  findStaffUser,
  presentStaffUser,
  roleGrantsOf,
} from './service'
