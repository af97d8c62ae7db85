// The access sources the platform builds principals from (src/platform/auth/access-sources.ts),
// implemented over the tables that the staff, labor and locations modules own. Handed to
// openPlatform by the composition roots (src/server.ts, the command line).
import type { AccessSources } from '../platform/auth/access-sources'
import { jobAdjustments } from './labor'
import { listLocationIds } from './locations'
import { findStaffIdBySubject, findStaffUser, roleGrantsOf } from './staff'

export const accessSources: AccessSources = {
  staffIdBySubject: findStaffIdBySubject,
  staffAccess(db, staffUserId, now) {
    const staff = findStaffUser(db, staffUserId)
    if (!staff) return undefined
    return {
      id: staff.id,
      status: staff.status,
      roles: roleGrantsOf(db, staff.id),
      ...jobAdjustments(db, staff.id, now),
    }
  },
  locationIds: listLocationIds,
}
