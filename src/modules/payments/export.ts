// The payments export (`GET /exports/payments`): one row per payment, by creation time, at the
// caller's locations. Money in minor units.
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
import { paymentIntents } from './schema'

const columns = [
  'id',
  'orderId',
  'locationId',
  'tender',
  'status',
  'amount',
  'tipAmount',
  'capturedAmount',
  'refundedAmount',
  'refundedTipAmount',
  'cardBrand',
  'cardLast4',
  'provider',
  'providerPaymentId',
  'giftCardId',
  'drawerId',
  'createdByStaffUserId',
  'createdAt',
  'capturedAt',
  'voidedAt',
  'refundedAt',
] as const

function page(db: Queryable, query: ExportQuery) {
  const rows = db
    .select()
    .from(paymentIntents)
    .where(
      pageCondition(
        query,
        paymentIntents.createdAt,
        paymentIntents.id,
        scopeCondition(query.locations, paymentIntents.locationId),
      ),
    )
    .orderBy(asc(paymentIntents.createdAt), asc(paymentIntents.id))
    .limit(query.limit)
    .all()
  return { rows: rows.map(pickColumns(columns)), next: nextCursor(rows, query.limit, (row) => row.createdAt) }
}

export const paymentExport: ExportSource = { columns, page }
