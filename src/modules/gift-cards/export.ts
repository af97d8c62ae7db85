// The gift-card ledger export (`GET /exports/gift-card-ledger`): every ledger entry, by the time it
// occurred (card ids, never codes); a caller bound to some locations sees the entries made there or
// on cards issued there, as the reports do (reports.ts).
import { or } from 'drizzle-orm'
import { scopeCondition } from '../../platform/auth/location-scope'
import { tableExport } from '../../platform/http/export-stream'
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

export const giftCardLedgerExport = tableExport(giftCardTransactions, 'occurredAt', columns, (locations) =>
  locations.all
    ? undefined
    : or(
        scopeCondition(locations, giftCardTransactions.transactionLocationId),
        scopeCondition(locations, giftCardTransactions.originLocationId),
      ),
)
