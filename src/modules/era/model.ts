import { t } from 'elysia'

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
