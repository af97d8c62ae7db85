// /era/v1: Toast-style analytics. POST answers a report request id (a JSON string); GET with that
// id answers 202 while the report is computed in the background, then 200 with its rows.
import { Elysia, type TSchema, t } from 'elysia'
import type { LocationScope } from '../../platform/auth/location-scope'
import type { AuthPlugin } from '../../platform/auth/plugin'
import type { Actor } from '../../platform/foundation/actor'
import { ApiError } from '../../platform/foundation/problem'
import type { Db } from '../../platform/tenancy/databases'
import type { EraWorker } from './jobs'
import {
  EraMetricsRow,
  EraRequest,
  type EraRequestInput,
  Pending,
  ReportIdParams,
  TimeRangeParams,
} from './model'
import type { EraReportKind, EraTimeRange } from './schema'
import { readReport, requestReport } from './service'

/** Each report's title, its rows in words, and their schema (only the metrics rows are typed). */
const about: Record<EraReportKind, { title: string; rows: string; row: TSchema }> = {
  metrics: {
    title: 'sales and labor metrics',
    rows: 'One row per period (and restaurant): `netSalesAmount`, `grossSalesAmount`, `discountAmount`, `taxAmount`, `tipAmount`, `ordersCount`, `guestCount`, `avgOrderValue` (net sales per order), `avgGuestAmount`, `voidOrdersCount`, `voidItemsCount`, `voidAmount`, `hourlyJobTotalHours` (the shifts’ `paidSeconds` summed, in hours to the hundredth, half-up), `hourlyJobTotalPay` (the sum of the shifts’ `payCents`), `laborCostPercentBps` (labor cost over net sales, basis points). Labor figures cover completed shifts by clock-in business date, jobs excluded from the labor summary left out.',
    row: EraMetricsRow,
  },
  check: {
    title: 'checks',
    rows: 'One row per check (order) opened in the range, voided ones included when they had been submitted: business date, period, order number, status, times, server, guests, items, net/gross sales, discounts, tax, tip, total, voids.',
    row: t.Unknown(),
  },
  labor: {
    title: 'labor',
    rows: 'One row per period, restaurant and (by default) job, optionally per employee: `shiftsCount`, `regularHours` (the shifts’ `paidSeconds` summed, in hours to the hundredth, half-up), `paidMinutes` (that sum in whole minutes, truncated), `unpaidBreakMinutes` (the shifts’ `breakSeconds` summed, in whole minutes, truncated), `laborCost` (cents: the sum of the shifts’ `payCents`, each paidSeconds × payRateCents / 3600 rounded half-up). Completed shifts only, by clock-in business date.',
    row: t.Unknown(),
  },
  menu: {
    title: 'item sales',
    rows: 'One row per period, restaurant and product (open items by title): `quantitySold`, `grossSalesAmount`, `discountAmount`, `netSalesAmount`, `voidItemsCount`, `voidAmount`; best sellers first.',
    row: t.Unknown(),
  },
}

const rules =
  'Business dates are calendar days in each location’s time zone; an order belongs to the day it was opened (drafts are not sales). Net sales exclude tax, voided lines and gift cards sold; amounts are integer cents. Answers the report request id as a JSON string; fetch it with GET on the same family. Unknown restaurants or groupBy values are 400.'

function family(auth: AuthPlugin, worker: EraWorker, kind: EraReportKind) {
  const { title, rows, row } = about[kind]
  const post = (
    ctx: {
      db: Db
      actor: Actor
      body: EraRequestInput
      locations: LocationScope
      tenant: { id: string }
    },
    timeRange: EraTimeRange,
  ) => {
    const id = requestReport(ctx.db, ctx.actor, kind, timeRange, ctx.body, ctx.locations)
    worker.requested(ctx.tenant.id)
    return new Response(JSON.stringify(id), { headers: { 'content-type': 'application/json' } })
  }
  return new Elysia({ name: `era-${kind}`, prefix: `/era/v1/${kind}`, detail: { tags: ['Analytics (ERA)'] } })
    .use(auth)
    .post('', (ctx) => post(ctx, 'custom'), {
      permission: 'analytics:read',
      body: EraRequest,
      response: t.String({ description: 'The report request id.' }),
      detail: {
        summary: `Request a ${title} report over a custom range`,
        description: `The whole range is one period. ${rows} ${rules}`,
      },
    })
    .post('/:param', (ctx) => post(ctx, ctx.params.param), {
      permission: 'analytics:read',
      params: TimeRangeParams,
      body: EraRequest,
      response: t.String({ description: 'The report request id.' }),
      detail: {
        summary: `Request a ${title} report by day, week, month or year`,
        description: `Rows per period of the range (periods without activity included in metrics). ${rows} ${rules}`,
      },
    })
    .get(
      '/:param',
      ({ db, params, locations, set }) => {
        const outcome = readReport(db, kind, params.param, locations)
        if (outcome.status === 'complete') return outcome.rows
        if (outcome.status === 'failed')
          throw new ApiError('internal', `The report could not be computed: ${outcome.error}`)
        set.status = 202
        set.headers['retry-after'] = '1'
        return {
          reportRequestId: outcome.request.id,
          status: 'pending' as const,
          requestedAt: outcome.request.createdAt,
        }
      },
      {
        permission: 'analytics:read',
        params: ReportIdParams,
        response: { 200: t.Array(row), 202: Pending },
        detail: {
          summary: `Get a ${title} report`,
          description: `202 (with Retry-After) while the report is computed, then 200 with its rows (an array). Another family’s id, or another tenant’s, is 404. ${rows}`,
        },
      },
    )
}

export const eraRoutes = (auth: AuthPlugin, worker: EraWorker) =>
  (['metrics', 'check', 'labor', 'menu'] as const).map((kind) => family(auth, worker, kind))
