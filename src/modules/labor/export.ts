// The shifts export (`GET /exports/shifts`): one row per shift, by clock-in time, at the caller's
// locations.
import { asc } from 'drizzle-orm'
import { scopeCondition } from '../../platform/auth/location-scope'
import {
  type ExportQuery,
  type ExportSource,
  keysetCursor,
  pageCondition,
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
  const last = rows.at(-1)
  return {
    rows: rows.map((row) => Object.fromEntries(columns.map((column) => [column, row[column]]))),
    next: rows.length === query.limit && last ? keysetCursor(last.clockInAt, last.id) : null,
  }
}

export const shiftExport: ExportSource = { columns, page }
