// The payments export (`GET /exports/payments`): one row per payment, by creation time, at the
// caller's locations. Money in minor units.
import { and, asc, gte, lt } from 'drizzle-orm'
import { scopeCondition } from '../../platform/auth/location-scope'
import {
  type ExportQuery,
  type ExportSource,
  keysetAfter,
  keysetCursor,
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
      and(
        query.from === undefined ? undefined : gte(paymentIntents.createdAt, query.from),
        query.to === undefined ? undefined : lt(paymentIntents.createdAt, query.to),
        scopeCondition(query.locations, paymentIntents.locationId),
        keysetAfter(paymentIntents.createdAt, paymentIntents.id, query.after),
      ),
    )
    .orderBy(asc(paymentIntents.createdAt), asc(paymentIntents.id))
    .limit(query.limit)
    .all()
  const last = rows.at(-1)
  return {
    rows: rows.map((row) => Object.fromEntries(columns.map((column) => [column, row[column]]))),
    next: rows.length === query.limit && last ? keysetCursor(last.createdAt, last.id) : null,
  }
}

export const paymentExport: ExportSource = { columns, page }
