import { t } from 'elysia'
import { calendarDate } from '../../platform/foundation/dates'

export const EraRequest = t.Object(
  {
    startBusinessDate: t.String({
      minLength: 8,
      maxLength: 10,
      description: 'First business date, `YYYY-MM-DD` (or Toast’s `YYYYMMDD`).',
      examples: ['2025-06-01'],
    }),
    endBusinessDate: t.String({
      minLength: 8,
      maxLength: 10,
      description: 'Last business date (inclusive), same forms; at most 732 days after the first.',
    }),
    restaurantIds: t.Optional(
      t.Array(t.String({ minLength: 1, maxLength: 200 }), {
        maxItems: 500,
        description: 'Location ids to report on; every location when absent.',
      }),
    ),
    groupBy: t.Optional(
      t.Array(t.String({ minLength: 1, maxLength: 50 }), {
        maxItems: 5,
        description:
          '`RESTAURANT` (one row per location; leave it out to add locations together); the labor report also knows `JOB` and `EMPLOYEE`. Default `[RESTAURANT]`, for labor `[RESTAURANT, JOB]`.',
      }),
    ),
  },
  { additionalProperties: false },
)

export type EraRequestInput = typeof EraRequest.static

export const TimeRangeParams = t.Object({
  param: t.Union([t.Literal('day'), t.Literal('week'), t.Literal('month'), t.Literal('year')], {
    description: 'Rows per day, ISO week (Monday first), month or year, clipped to the range.',
  }),
})

export const ReportIdParams = t.Object({
  param: t.String({ minLength: 1, maxLength: 200, description: 'The report request id a POST answered.' }),
})

export const Pending = t.Object({
  reportRequestId: t.String(),
  status: t.Literal('pending'),
  requestedAt: t.String(),
})

const amount = (description: string) => t.Integer({ description })
const count = (description: string) => t.Integer({ minimum: 0, description })

/** A row of the metrics report (compute.ts metricsReport). */
export const EraMetricsRow = t.Object(
  {
    restaurantGuid: t.Nullable(
      t.String({
        description: 'The location; null when `groupBy` leaves out `RESTAURANT` (locations added together).',
      }),
    ),
    periodStart: calendarDate('First business date of the period, clipped to the range.'),
    periodEnd: calendarDate('Last business date of the period, clipped to the range.'),
    netSalesAmount: amount(
      'Line subtotals less discounts and included tax; voided lines and gift cards sold left out.',
    ),
    grossSalesAmount: amount('Net sales plus discounts.'),
    discountAmount: amount('Discounts of the lines sold.'),
    taxAmount: amount('The orders’ tax.'),
    tipAmount: amount('The orders’ tips.'),
    ordersCount: count('Orders opened in the period, voided ones left out.'),
    guestCount: count('Their guests: each order’s `seatCount`, or 1.'),
    voidOrdersCount: count('Orders voided after being submitted.'),
    voidItemsCount: count('Units of lines voided after being sent.'),
    voidAmount: amount('What those lines would have cost.'),
    hourlyJobTotalPay: amount('The completed shifts’ `payCents` summed.'),
    avgOrderValue: t.Nullable(amount('Net sales per order, half-up; null without orders.')),
    avgGuestAmount: t.Nullable(amount('Net sales per guest, half-up; null without guests.')),
    hourlyJobTotalHours: t.Number({
      minimum: 0,
      description: 'The completed shifts’ `paidSeconds` summed, in hours to the hundredth, half-up.',
    }),
    laborCostPercentBps: t.Nullable(
      t.Integer({ description: 'Labor cost over net sales, basis points, half-up; null without net sales.' }),
    ),
  },
  {
    description:
      'One period of the metrics report, per location unless grouped without `RESTAURANT`. Amounts are integer cents.',
  },
)
