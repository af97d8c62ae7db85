// /gift-card/reports/...: liability roll-forward, transactions, pooling, failed deliveries.
import { Elysia, t } from 'elysia'
import type { AuthPlugin } from '../../platform/auth/plugin'
import { pageOf, pagingQuery } from '../../platform/foundation/paging'
import { GiftCardTransaction } from './model'
import {
  failedDeliveriesReport,
  liabilityReport,
  poolingReport,
  reportRange,
  transactionsReport,
} from './reports'

const bound = (description: string) => t.String({ minLength: 10, maxLength: 40, description })
const rangeQuery = {
  from: bound('A date (YYYY-MM-DD, start of that day) or a date-time with Z or offset.'),
  to: bound('A date (YYYY-MM-DD, end of that day) or a date-time (inclusive); not before `from`.'),
  locationId: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
}
const RangeQuery = t.Object(rangeQuery)
const Range = t.Object({
  from: t.String(),
  to: t.String(),
  locationId: t.Nullable(t.String()),
  startsAt: t.String({ description: 'The first instant counted (UTC).' }),
  endsBefore: t.String({ description: 'The first instant no longer counted (UTC).' }),
})
const cents = t.Integer()

const LiabilityReport = t.Object({
  range: Range,
  startingLiability: cents,
  addedValue: cents,
  voidedAddedValue: cents,
  adjustments: cents,
  adjustmentBreakdown: t.Object({ manual: cents, expirations: cents, merges: cents }),
  redemptions: cents,
  voidedRedemptions: cents,
  cashOuts: cents,
  netLiabilityChange: cents,
  endingLiability: cents,
  cardCounts: t.Object({
    physical: t.Integer(),
    digital: t.Integer(),
    imported: t.Integer(),
    inactive: t.Integer(),
    disabled: t.Integer(),
  }),
})

const ReportTransaction = t.Composite([
  GiftCardTransaction,
  t.Object({ cardNumber: t.Integer(), cardLast4: t.String(), cardType: t.String() }),
])

const dates =
  'Without `locationId` a report covers every location the request reaches (a caller acting at some ' +
  'locations only sees theirs; x-location-id narrows it to one). Dates are calendar days in the time zone ' +
  'of the one location covered (else the tenant’s); `from` after `to` is 400.'

export const reportRoutes = (auth: AuthPlugin) =>
  new Elysia({ name: 'gift-cards.reports', prefix: '/gift-card/reports', detail: { tags: ['Gift cards'] } })
    .use(auth)
    .get(
      '/liability',
      ({ db, tenant, query, locations }) =>
        liabilityReport(db, reportRange(db, query, tenant.timezone, locations)),
      {
        permission: 'gift-cards:reports',
        query: RangeQuery,
        response: LiabilityReport,
        detail: {
          summary: 'Gift card liability roll-forward',
          description:
            'Value owed on cards issued at the locations covered, wherever they were used. Exactly: ' +
            'startingLiability + addedValue (activations, loads) - voidedAddedValue + adjustments (manual ' +
            'adjustments, expirations, merges; broken down in adjustmentBreakdown) - redemptions + ' +
            'voidedRedemptions - cashOuts = endingLiability. cardCounts count cards created by the end of the ' +
            `period, by their current status. ${dates}`,
        },
      },
    )
    .get(
      '/transactions',
      ({ db, tenant, query, locations }) =>
        transactionsReport(db, reportRange(db, query, tenant.timezone, locations), {
          q: query.q,
          ...pageOf(query),
        }),
      {
        permission: 'gift-cards:reports',
        query: t.Object({
          ...rangeQuery,
          q: t.Optional(t.String({ maxLength: 200 })),
          ...pagingQuery(500),
        }),
        response: t.Object({ range: Range, transactions: t.Array(ReportTransaction), total: t.Integer() }),
        detail: {
          summary: 'Gift card transactions in a period',
          description:
            'Ledger entries in the period, oldest first, made at a location covered or on a card issued at one ' +
            '(a card issued elsewhere and used elsewhere is not shown). ' +
            '`q` matches code, order id, payment reference or reason (partial), or exactly the card number or ' +
            `entry type. ${dates}`,
        },
      },
    )
    .get(
      '/liability-pooling',
      ({ db, tenant, query, locations }) =>
        poolingReport(db, reportRange(db, query, tenant.timezone, locations)),
      {
        permission: 'gift-cards:reports',
        query: RangeQuery,
        response: t.Object({
          range: Range,
          settlements: t.Array(
            t.Object({
              originLocationId: t.String(),
              redemptionLocationId: t.String(),
              amountOwed: cents,
              redemptionCount: t.Integer({ minimum: 1 }),
            }),
          ),
        }),
        detail: {
          summary: 'Cross-location gift card settlement',
          description:
            'For each pair of locations: what the issuing (origin) location owes the redeeming location for ' +
            'cards redeemed there in the period. Redemptions voided by the end of the period do not count. ' +
            `The pairs a location covered is part of. ${dates}`,
        },
      },
    )
    .get(
      '/failed-deliveries',
      ({ db, tenant, query, locations }) =>
        failedDeliveriesReport(db, reportRange(db, query, tenant.timezone, locations)),
      {
        permission: 'gift-cards:reports',
        query: RangeQuery,
        response: t.Object({
          range: Range,
          deliveries: t.Array(
            t.Object({
              id: t.String(),
              giftCardId: t.String(),
              giftCardNumber: t.Integer(),
              kind: t.String({ description: '`recipient` (the card) or `purchaser_opened` (the notice).' }),
              channel: t.String(),
              destination: t.String(),
              provider: t.String(),
              failureReason: t.Nullable(t.String()),
              scheduledAt: t.Nullable(t.String()),
              attemptedAt: t.String(),
              originLocationId: t.Nullable(t.String()),
              currentDeliveryStatus: t.String(),
            }),
          ),
        }),
        detail: {
          summary: 'Failed gift card deliveries',
          description: `Every failed send attempted in the period, for cards issued at the locations covered. ${dates}`,
        },
      },
    )
