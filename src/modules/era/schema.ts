import { index, sqliteTable, text } from 'drizzle-orm/sqlite-core'

export const eraReportKinds = ['metrics', 'check', 'labor', 'menu'] as const
export const eraTimeRanges = ['custom', 'day', 'week', 'month', 'year'] as const
export const eraReportStatuses = ['pending', 'complete', 'failed'] as const

export type EraReportKind = (typeof eraReportKinds)[number]
export type EraTimeRange = (typeof eraTimeRanges)[number]

export interface EraReportParams {
  startBusinessDate: string
  endBusinessDate: string
  /** Locations to report on; every location of the tenant when null. */
  restaurantIds: string[] | null
  groupBy: string[]
}

/** A requested ERA report: computed in the background, its rows kept with it. */
export const eraReportRequests = sqliteTable(
  'era_report_requests',
  {
    id: text('id').primaryKey(),
    kind: text('kind', { enum: eraReportKinds }).notNull(),
    timeRange: text('time_range', { enum: eraTimeRanges }).notNull(),
    params: text('params', { mode: 'json' }).$type<EraReportParams>().notNull(),
    status: text('status', { enum: eraReportStatuses }).notNull(),
    result: text('result', { mode: 'json' }).$type<unknown[] | null>(),
    error: text('error'),
    requestedByStaffUserId: text('requested_by_staff_user_id'),
    createdAt: text('created_at').notNull(),
    completedAt: text('completed_at'),
  },
  (table) => [index('era_report_requests_status').on(table.status, table.createdAt)],
)

export type EraReportRequestRow = typeof eraReportRequests.$inferSelect
