// The shifts export (`GET /exports/shifts`): one row per shift, by clock-in time, at the caller's
// locations.
import { scopeCondition } from '../../platform/auth/location-scope'
import { tableExport } from '../../platform/http/export-stream'
import { laborShifts } from './schema'

const columns = [
  'id',
  'staffUserId',
  'locationId',
  'laborJobId',
  'jobRole',
  'payRateCents',
  'status',
  'businessDate',
  'clockInAt',
  'clockOutAt',
] as const

export const shiftExport = tableExport(laborShifts, 'clockInAt', columns, (locations) =>
  scopeCondition(locations, laborShifts.locationId),
)
