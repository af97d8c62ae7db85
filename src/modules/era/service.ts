// ERA report requests: validated and stored as pending, computed in the background (scheduler
// job `era.reports`), read back by id (202 while pending).

import { and, asc, eq } from 'drizzle-orm'
import { recordWrite } from '../../platform/audit/record-write'
import { assertReaches, type LocationScope, reaches } from '../../platform/auth/location-scope'
import type { Actor } from '../../platform/foundation/actor'
import { isCalendarDate } from '../../platform/foundation/dates'
import { newId, nowIso } from '../../platform/foundation/ids'
import { ApiError, type FieldError, notFound } from '../../platform/foundation/problem'
import type { Db } from '../../platform/tenancy/databases'
import { inReadSnapshot, inWriteTransaction, type Queryable } from '../../platform/tenancy/transaction'
import { existingLocationIds, listLocations } from '../locations'
import { checkReport, laborReport, menuReport, metricsReport, type ReportInput } from './compute'
import type { EraRequestInput } from './model'
import { daysBetween } from './periods'
import {
  type EraReportKind,
  type EraReportParams,
  type EraReportRequestRow,
  type EraTimeRange,
  eraReportRequests,
} from './schema'
import { ordersIn, shiftsIn } from './sources'

/** Longest range one request may cover, in days. */
export const MAX_RANGE_DAYS = 732

/** The groupBy values each report knows, and what it groups by when none are given. */
export const groupings: Record<EraReportKind, { allowed: string[]; fallback: string[] }> = {
  metrics: { allowed: ['RESTAURANT'], fallback: ['RESTAURANT'] },
  check: { allowed: ['RESTAURANT'], fallback: ['RESTAURANT'] },
  labor: { allowed: ['RESTAURANT', 'JOB', 'EMPLOYEE'], fallback: ['RESTAURANT', 'JOB'] },
  menu: { allowed: ['RESTAURANT'], fallback: ['RESTAURANT'] },
}

/** `YYYY-MM-DD`, or Toast's `YYYYMMDD`, as `YYYY-MM-DD`; null when neither. */
function businessDate(value: string): string | null {
  const normalized = /^\d{8}$/.test(value)
    ? `${value.slice(0, 4)}-${value.slice(4, 6)}-${value.slice(6)}`
    : value
  return isCalendarDate(normalized) ? normalized : null
}

function validate(db: Queryable, kind: EraReportKind, input: EraRequestInput): EraReportParams {
  const errors: FieldError[] = []
  const start = businessDate(input.startBusinessDate)
  const end = businessDate(input.endBusinessDate)
  if (!start)
    errors.push({ path: 'startBusinessDate', message: 'must be a calendar date, YYYY-MM-DD or YYYYMMDD' })
  if (!end)
    errors.push({ path: 'endBusinessDate', message: 'must be a calendar date, YYYY-MM-DD or YYYYMMDD' })
  if (start && end && end < start)
    errors.push({ path: 'endBusinessDate', message: 'must not be before startBusinessDate' })
  if (start && end && daysBetween(start, end) >= MAX_RANGE_DAYS)
    errors.push({ path: 'endBusinessDate', message: `a report covers at most ${MAX_RANGE_DAYS} days` })
  let restaurantIds: string[] | null = null
  if (input.restaurantIds !== undefined) {
    restaurantIds = [...new Set(input.restaurantIds)]
    const known = existingLocationIds(db, restaurantIds)
    input.restaurantIds.forEach((id, i) => {
      if (!known.has(id)) errors.push({ path: `restaurantIds/${i}`, message: `restaurant ${id} not found` })
    })
  }
  const { allowed, fallback } = groupings[kind]
  const groupBy = input.groupBy ?? fallback
  groupBy.forEach((g, i) => {
    if (!allowed.includes(g))
      errors.push({ path: `groupBy/${i}`, message: `the ${kind} report groups by ${allowed.join(', ')}` })
  })
  if (errors.length > 0) throw new ApiError('validation_failed', 'The report request is invalid', { errors })
  return { startBusinessDate: start!, endBusinessDate: end!, restaurantIds, groupBy: [...new Set(groupBy)] }
}

export function requestReport(
  db: Db,
  actor: Actor,
  kind: EraReportKind,
  timeRange: EraTimeRange,
  input: EraRequestInput,
  locations: LocationScope,
): string {
  return inWriteTransaction(db, (tx) => {
    const params = validate(tx, kind, input)
    // A location-bound caller reports on its own locations only (all of them when it names none).
    if (!locations.all) {
      for (const id of params.restaurantIds ?? []) assertReaches(locations, id)
      params.restaurantIds ??= [...locations.ids]
    }
    const id = newId()
    tx.insert(eraReportRequests)
      .values({
        id,
        kind,
        timeRange,
        params,
        status: 'pending',
        result: null,
        error: null,
        requestedByStaffUserId: actor.staffUserId,
        createdAt: nowIso(),
        completedAt: null,
      })
      .run()
    recordWrite(tx, actor, {
      action: 'era.report.request',
      entityType: 'era_report_request',
      entityId: id,
      metadata: { kind, timeRange, params },
    })
    return id
  })
}

export type ReportOutcome =
  | { status: 'pending'; request: EraReportRequestRow }
  | { status: 'complete'; rows: unknown[] }
  | { status: 'failed'; error: string }

export function readReport(
  db: Queryable,
  kind: EraReportKind,
  id: string,
  locations: LocationScope,
): ReportOutcome {
  const row = db
    .select()
    .from(eraReportRequests)
    .where(and(eq(eraReportRequests.id, id), eq(eraReportRequests.kind, kind)))
    .get()
  // A report covers its restaurants (all of them when none were named): a caller who cannot
  // reach every one of them does not see it.
  const covered = row?.params.restaurantIds
  const visible = locations.all || covered?.every((at) => reaches(locations, at)) === true
  if (!row || !visible) throw notFound(`${kind} report request`, id)
  if (row.status === 'complete') return { status: 'complete', rows: row.result ?? [] }
  if (row.status === 'failed') return { status: 'failed', error: row.error ?? 'unknown error' }
  return { status: 'pending', request: row }
}

const reports = { metrics: metricsReport, check: checkReport, labor: laborReport, menu: menuReport }

/** Computes one report from a consistent snapshot of the tenant database. */
export function computeReport(db: Db, request: EraReportRequestRow): unknown[] {
  const { params } = request
  return inReadSnapshot(db, (tx) => {
    const all = listLocations(tx).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    const wanted = params.restaurantIds ? new Set(params.restaurantIds) : null
    const chosen = wanted ? all.filter((l) => wanted.has(l.id)) : all
    const scope = { locations: chosen, start: params.startBusinessDate, end: params.endBusinessDate }
    const input: ReportInput = {
      params,
      timeRange: request.timeRange,
      restaurantIds: chosen.map((l) => l.id),
      orders: request.kind === 'labor' || chosen.length === 0 ? [] : ordersIn(tx, scope),
      shifts:
        request.kind === 'metrics' || request.kind === 'labor'
          ? chosen.length
            ? shiftsIn(tx, scope)
            : []
          : [],
    }
    return reports[request.kind](input)
  })
}

/** Computes every pending report of a tenant; answers how many it finished. */
export function computePendingReports(db: Db): number {
  const pending = db
    .select()
    .from(eraReportRequests)
    .where(eq(eraReportRequests.status, 'pending'))
    .orderBy(asc(eraReportRequests.createdAt))
    .all()
  for (const request of pending) {
    let result: unknown[] | null = null
    let error: string | null = null
    try {
      result = computeReport(db, request)
    } catch (e) {
      error = e instanceof Error ? e.message : String(e)
    }
    inWriteTransaction(db, (tx) =>
      tx
        .update(eraReportRequests)
        .set({ status: error === null ? 'complete' : 'failed', result, error, completedAt: nowIso() })
        .where(eq(eraReportRequests.id, request.id))
        .run(),
    )
  }
  return pending.length
}
