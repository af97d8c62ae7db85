// The payment mix: money taken per tender (cash, card, gift card) over a time range, for the sales
// page of the console. Captured payments only, by capture time; refunds are subtracted.
import { and, count, eq, gt, sql, sum } from 'drizzle-orm'
import { type LocationScope, scopeCondition } from '../../platform/auth/location-scope'
import { dateRangeCondition, parseDateFilter } from '../../platform/http/date-filter'
import type { Queryable } from '../../platform/tenancy/transaction'
import { paymentIntents, tenders } from './schema'

export interface PaymentMixQuery {
  capturedAt?: string
  locationId?: string
}

export function paymentMix(db: Queryable, query: PaymentMixQuery, locations: LocationScope) {
  const range = query.capturedAt ? parseDateFilter(query.capturedAt, 'query/capturedAt') : undefined
  const rows = db
    .select({
      tender: paymentIntents.tender,
      payments: count(),
      capturedAmount: sum(paymentIntents.capturedAmount).mapWith(Number),
      refundedAmount: sum(paymentIntents.refundedAmount).mapWith(Number),
      tipAmount: sum(sql`${paymentIntents.tipAmount} - ${paymentIntents.refundedTipAmount}`).mapWith(Number),
    })
    .from(paymentIntents)
    .where(
      and(
        gt(paymentIntents.capturedAmount, 0),
        dateRangeCondition(paymentIntents.capturedAt, range),
        query.locationId ? eq(paymentIntents.locationId, query.locationId) : undefined,
        scopeCondition(locations, paymentIntents.locationId),
      ),
    )
    .groupBy(paymentIntents.tender)
    .all()
  const byTender = new Map(rows.map((row) => [row.tender, row]))
  return {
    tenders: tenders.map((tender) => {
      const row = byTender.get(tender)
      const capturedAmount = row?.capturedAmount ?? 0
      const refundedAmount = row?.refundedAmount ?? 0
      return {
        tender,
        payments: row?.payments ?? 0,
        capturedAmount,
        refundedAmount,
        netAmount: capturedAmount - refundedAmount,
        tipAmount: row?.tipAmount ?? 0,
      }
    }),
  }
}
