// The gift-card ledger export (`GET /exports/gift-card-ledger`): every ledger entry, by the time it
// occurred (card ids, never codes); a caller bound to some locations sees the entries made there or
// on cards issued there, as the reports do (reports.ts).
import { asc, or } from 'drizzle-orm'
import { scopeCondition } from '../../platform/auth/location-scope'
import {
  type ExportQuery,
  type ExportSource,
  nextCursor,
  pageCondition,
  pickColumns,
} from '../../platform/http/export-stream'
import type { Queryable } from '../../platform/tenancy/transaction'
import { giftCardTransactions } from './schema'

const columns = [
  'id',
  'giftCardId',
  'sequence',
  'entryType',
  'amountDelta',
  'balanceAfter',
  'orderId',
  'paymentReference',
  'reason',
  'originLocationId',
  'transactionLocationId',
  'voidsTransactionId',
  'relatedGiftCardId',
  'staffUserId',
  'occurredAt',
] as const

function page(db: Queryable, query: ExportQuery) {
  const T = giftCardTransactions
  const rows = db
    .select()
    .from(T)
    .where(
      pageCondition(
        query,
        T.occurredAt,
        T.id,
        query.locations.all
          ? undefined
          : or(
              scopeCondition(query.locations, T.transactionLocationId),
              scopeCondition(query.locations, T.originLocationId),
            ),
      ),
    )
    .orderBy(asc(T.occurredAt), asc(T.id))
    .limit(query.limit)
    .all()
  return {
    rows: rows.map(pickColumns(columns)),
    next: nextCursor(rows, query.limit, (row) => row.occurredAt),
  }
}

export const giftCardLedgerExport: ExportSource = { columns, page }
