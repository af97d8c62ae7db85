// The gift-card ledger export (`GET /exports/gift-card-ledger`): every ledger entry, by the time it
// occurred (card ids, never codes); a caller bound to some locations sees the entries made there or
// on cards issued there, as the reports do (reports.ts).
import { asc, or } from 'drizzle-orm'
import { scopeCondition } from '../../platform/auth/location-scope'
import {
  type ExportQuery,
  type ExportSource,
  keysetCursor,
  pageCondition,
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
  const last = rows.at(-1)
  return {
    rows: rows.map((row) => Object.fromEntries(columns.map((column) => [column, row[column]]))),
    next: rows.length === query.limit && last ? keysetCursor(last.occurredAt, last.id) : null,
  }
}

export const giftCardLedgerExport: ExportSource = { columns, page }
