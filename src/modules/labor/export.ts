// The shifts export (`GET /exports/shifts`): one row per shift, by clock-in time, at the caller's
// locations.
import { asc } from 'drizzle-orm'
import { scopeCondition } from '../../platform/auth/location-scope'
import {
  type ExportQuery,
  type ExportSource,
  nextCursor,
  pageCondition,
  pickColumns,
} from '../../platform/http/export-stream'
import type { Queryable } from '../../platform/tenancy/transaction'
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

function page(db: Queryable, query: ExportQuery) {
  const rows = db
    .select()
    .from(laborShifts)
    .where(
      pageCondition(
        query,
        laborShifts.clockInAt,
        laborShifts.id,
        scopeCondition(query.locations, laborShifts.locationId),
      ),
    )
    .orderBy(asc(laborShifts.clockInAt), asc(laborShifts.id))
    .limit(query.limit)
    .all()
  return { rows: rows.map(pickColumns(columns)), next: nextCursor(rows, query.limit, (row) => row.clockInAt) }
}

export const shiftExport: ExportSource = { columns, page }
