// Gift card reports: liability roll-forward, transactions, cross-location settlement (pooling)
// and failed deliveries. Every figure is a sum over the ledger, so the roll-forward identity
// startingLiability + addedValue - voidedAddedValue + adjustments - redemptions
//   + voidedRedemptions - cashOuts = endingLiability
// holds exactly: each ledger entry in the period falls into exactly one of those terms.
//
// A report covers the location its query names, else the locations the request reaches (all for
// a tenant-wide caller). Cards are tenant-wide value accounts, but the books are kept per
// location: a card's liability belongs to its origin, so the report of A counts every entry of a
// card issued at A wherever it happened (a redemption at B lowers A's liability and is what A
// owes B in pooling), and every entry made at A; it does not show a card of B used at B.
import { and, asc, eq, gte, inArray, isNotNull, lt, ne, notExists, or, type SQL, sql } from 'drizzle-orm'
import { alias, type SQLiteColumn } from 'drizzle-orm/sqlite-core'
import {
  type LocationScope,
  onlyLocations,
  scopeCondition,
  soleLocation,
} from '../../platform/auth/location-scope'
import { zonedInstant } from '../../platform/foundation/dates'
import { searchColumns } from '../../platform/foundation/paging'
import { invalid } from '../../platform/foundation/problem'
import type { Queryable } from '../../platform/tenancy/transaction'
import { findLocation } from '../locations'
import { normalizeCode } from './cards'
import { presentTransaction } from './ledger'
import { giftCardDeliveries, giftCards, giftCardTransactions, type LedgerEntryType } from './schema'

export interface ReportQuery {
  from: string
  to: string
  locationId?: string
}

export interface ReportRange {
  from: string
  to: string
  /** The one location the report is of (named, or the only one the request reaches), else null. */
  locationId: string | null
  /** The locations the report covers. */
  locations: LocationScope
  /** Inclusive start and exclusive end instants (ISO, UTC, milliseconds): what entries are compared to. */
  startsAt: string
  endsBefore: string
}

const datePattern = /^\d{4}-\d{2}-\d{2}$/
const dateTimePattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i

/** The instant a calendar day starts in a time zone. */
export const startOfDay = (date: string, timeZone: string): number =>
  zonedInstant(date, '00:00', timeZone).getTime()

function parseBound(value: string, field: 'from' | 'to', timeZone: string): number {
  const path = `query/${field}`
  if (datePattern.test(value)) {
    const [y, m, d] = value.split('-').map(Number) as [number, number, number]
    const check = new Date(Date.UTC(y, m - 1, d))
    if (check.getUTCFullYear() !== y || check.getUTCMonth() !== m - 1 || check.getUTCDate() !== d)
      throw invalid(path, `${value} is not a calendar date`)
    if (field === 'from') return startOfDay(value, timeZone)
    const next = new Date(Date.UTC(y, m - 1, d + 1)).toISOString().slice(0, 10)
    return startOfDay(next, timeZone)
  }
  if (dateTimePattern.test(value)) {
    const instant = Date.parse(value)
    if (!Number.isNaN(instant)) return field === 'from' ? instant : instant + 1
  }
  throw invalid(path, 'expected a date (YYYY-MM-DD) or a date-time with a Z or offset')
}

/**
 * Dates are calendar days in the location's time zone (or the tenant's): `from` is the start of
 * its day, `to` the end of its day. Date-times are instants, both ends inclusive. `locations` is
 * the request's scope (the platform has refused a `locationId` outside it).
 */
export function reportRange(
  db: Queryable,
  query: ReportQuery,
  tenantTimeZone: string,
  locations: LocationScope,
): ReportRange {
  const covered = query.locationId ? onlyLocations([query.locationId]) : locations
  const locationId = soleLocation(covered)
  let timeZone = tenantTimeZone
  if (locationId) {
    const location = findLocation(db, locationId)
    if (!location) throw invalid('query/locationId', `location ${locationId} not found`)
    timeZone = location.timezone
  }
  const start = parseBound(query.from, 'from', timeZone)
  const end = parseBound(query.to, 'to', timeZone)
  if (end <= start) throw invalid('query/to', '`from` must not be after `to`')
  return {
    from: query.from,
    to: query.to,
    locationId,
    locations: covered,
    startsAt: new Date(start).toISOString(),
    endsBefore: new Date(end).toISOString(),
  }
}

const publicRange = (r: ReportRange) => ({
  from: r.from,
  to: r.to,
  locationId: r.locationId,
  startsAt: r.startsAt,
  endsBefore: r.endsBefore,
})

const T = giftCardTransactions
const C = giftCards
const total = (expr: SQL) => sql<number>`coalesce(sum(${expr}), 0)`.mapWith(Number)
/** Rows located within the report's locations (no condition when it covers them all). */
const within = (range: ReportRange, column: SQLiteColumn) => scopeCondition(range.locations, column)

/** Liability belongs to the location that issued the card (its origin). */
export function liabilityReport(db: Queryable, range: ReportRange) {
  const { startsAt: s, endsBefore: e } = range
  const period = (types: LedgerEntryType[], sign: 1 | -1) =>
    total(
      sql`CASE WHEN ${T.occurredAt} >= ${s} AND ${T.occurredAt} < ${e} AND ${inArray(T.entryType, types)}
        THEN ${sign} * ${T.amountDelta} END`,
    )
  const totals = db
    .select({
      startingLiability: total(sql`CASE WHEN ${T.occurredAt} < ${s} THEN ${T.amountDelta} END`),
      addedValue: period(['activate', 'load'], 1),
      voidedAddedValue: period(['void_load'], -1),
      manual: period(['adjust'], 1),
      expirations: period(['expire'], 1),
      merges: period(['merge'], 1),
      redemptions: period(['redeem'], -1),
      voidedRedemptions: period(['void_redeem'], 1),
      cashOuts: period(['cash_out'], -1),
      endingLiability: total(sql`CASE WHEN ${T.occurredAt} < ${e} THEN ${T.amountDelta} END`),
    })
    .from(T)
    .innerJoin(C, eq(C.id, T.giftCardId))
    .where(within(range, C.originLocationId))
    .get()!
  const cardCounts = db
    .select({
      physical: total(sql`${C.type} = 'Physical'`),
      digital: total(sql`${C.type} = 'Virtual'`),
      imported: total(sql`${C.source} = 'import'`),
      inactive: total(sql`${C.status} = 'Inactive'`),
      disabled: total(sql`${C.status} = 'Disabled'`),
    })
    .from(C)
    .where(and(lt(C.createdAt, e), within(range, C.originLocationId)))
    .get()!
  const { manual, expirations, merges, ...rest } = totals
  return {
    range: publicRange(range),
    startingLiability: rest.startingLiability,
    addedValue: rest.addedValue,
    voidedAddedValue: rest.voidedAddedValue,
    adjustments: manual + expirations + merges,
    adjustmentBreakdown: { manual, expirations, merges },
    redemptions: rest.redemptions,
    voidedRedemptions: rest.voidedRedemptions,
    cashOuts: rest.cashOuts,
    netLiabilityChange: rest.endingLiability - rest.startingLiability,
    endingLiability: rest.endingLiability,
    cardCounts,
  }
}

export function transactionsReport(
  db: Queryable,
  range: ReportRange,
  query: { q?: string; page: number; limit: number },
) {
  const { startsAt: s, endsBefore: e } = range
  const text = query.q?.trim().toLowerCase()
  const where = and(
    gte(T.occurredAt, s),
    lt(T.occurredAt, e),
    or(within(range, T.transactionLocationId), within(range, T.originLocationId)),
    text
      ? or(
          searchColumns(text, [C.code, T.orderId, T.paymentReference, T.reason]),
          /^\d+$/.test(text) ? eq(C.giftCardNumber, Number(text)) : undefined,
          eq(T.entryType, text as LedgerEntryType),
        )
      : undefined,
  )
  const count = db
    .select({ n: sql<number>`count(*)` })
    .from(T)
    .innerJoin(C, eq(C.id, T.giftCardId))
    .where(where)
    .get()!.n
  const rows = db
    .select({ entry: T, cardNumber: C.giftCardNumber, cardCode: C.code, cardType: C.type })
    .from(T)
    .innerJoin(C, eq(C.id, T.giftCardId))
    .where(where)
    .orderBy(asc(T.occurredAt), asc(T.id))
    .limit(query.limit)
    .offset((query.page - 1) * query.limit)
    .all()
  return {
    range: publicRange(range),
    transactions: rows.map((r) => ({
      ...presentTransaction(r.entry),
      cardNumber: r.cardNumber,
      cardLast4: normalizeCode(r.cardCode).slice(-4),
      cardType: r.cardType,
    })),
    total: count,
  }
}

/**
 * What each issuing (origin) location owes each redeeming location for cards redeemed away from
 * home in the period. A redemption counts in the period it happened; one voided by the end of
 * the period does not count at all.
 */
export function poolingReport(db: Queryable, range: ReportRange) {
  const { startsAt: s, endsBefore: e } = range
  const V = alias(giftCardTransactions, 'v')
  const settlements = db
    .select({
      originLocationId: sql<string>`${T.originLocationId}`,
      redemptionLocationId: sql<string>`${T.transactionLocationId}`,
      amountOwed: total(sql`-${T.amountDelta}`),
      redemptionCount: sql<number>`count(*)`.mapWith(Number),
    })
    .from(T)
    .where(
      and(
        eq(T.entryType, 'redeem'),
        gte(T.occurredAt, s),
        lt(T.occurredAt, e),
        isNotNull(T.originLocationId),
        isNotNull(T.transactionLocationId),
        ne(T.originLocationId, T.transactionLocationId),
        notExists(
          db
            .select({ one: sql`1` })
            .from(V)
            .where(and(eq(V.voidsTransactionId, T.id), lt(V.occurredAt, e))),
        ),
        or(within(range, T.originLocationId), within(range, T.transactionLocationId)),
      ),
    )
    .groupBy(T.originLocationId, T.transactionLocationId)
    .orderBy(asc(T.originLocationId), asc(T.transactionLocationId))
    .all()
  return { range: publicRange(range), settlements }
}

export function failedDeliveriesReport(db: Queryable, range: ReportRange) {
  const { startsAt: s, endsBefore: e } = range
  const D = giftCardDeliveries
  const deliveries = db
    .select({
      id: D.id,
      giftCardId: D.giftCardId,
      giftCardNumber: C.giftCardNumber,
      kind: D.kind,
      channel: D.channel,
      destination: D.destination,
      provider: D.provider,
      failureReason: D.failureReason,
      scheduledAt: D.scheduledAt,
      attemptedAt: D.attemptedAt,
      originLocationId: C.originLocationId,
      currentDeliveryStatus: C.deliveryStatus,
    })
    .from(D)
    .innerJoin(C, eq(C.id, D.giftCardId))
    .where(
      and(
        eq(D.status, 'failed'),
        gte(D.attemptedAt, s),
        lt(D.attemptedAt, e),
        within(range, C.originLocationId),
      ),
    )
    .orderBy(asc(D.attemptedAt), asc(D.id))
    .all()
  return { range: publicRange(range), deliveries }
}
