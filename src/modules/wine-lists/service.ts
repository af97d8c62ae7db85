// The wine reference lists: read-only, seeded into every tenant by the wine_lists_seed migration.
import { and, asc, count, eq, sql } from 'drizzle-orm'
import { offsetOf, type PageRequest, searchColumns } from '../../platform/foundation/paging'
import { notFound } from '../../platform/foundation/problem'
import type { Queryable } from '../../platform/tenancy/transaction'
import { type WineAppellationRow, type WineVarietalRow, wineAppellations, wineVarietals } from './schema'

export function listWineAppellations(
  db: Queryable,
  query: { q?: string; countryCode?: string } & PageRequest,
) {
  const where = and(
    searchColumns(query.q, [wineAppellations.appellation, wineAppellations.region]),
    query.countryCode ? eq(wineAppellations.countryCode, query.countryCode.toUpperCase()) : undefined,
  )
  const total = db.select({ n: count() }).from(wineAppellations).where(where).get()?.n ?? 0
  const rows = db
    .select()
    .from(wineAppellations)
    .where(where)
    .orderBy(
      asc(wineAppellations.countryCode),
      asc(wineAppellations.region),
      asc(sql`lower(${wineAppellations.appellation})`),
    )
    .limit(query.limit)
    .offset(offsetOf(query))
    .all()
  return { wineAppellations: rows, total }
}

export function getWineAppellation(db: Queryable, id: string): WineAppellationRow {
  const row = db.select().from(wineAppellations).where(eq(wineAppellations.id, id)).get()
  if (!row) throw notFound('wine appellation', id)
  return row
}

export function listWineVarietals(
  db: Queryable,
  query: { q?: string; type?: WineVarietalRow['type'] } & PageRequest,
) {
  const where = and(
    searchColumns(query.q, [wineVarietals.varietal]),
    query.type ? eq(wineVarietals.type, query.type) : undefined,
  )
  const total = db.select({ n: count() }).from(wineVarietals).where(where).get()?.n ?? 0
  const rows = db
    .select()
    .from(wineVarietals)
    .where(where)
    .orderBy(asc(sql`lower(${wineVarietals.varietal})`), asc(wineVarietals.type))
    .limit(query.limit)
    .offset(offsetOf(query))
    .all()
  return { wineVarietals: rows, total }
}

export function getWineVarietal(db: Queryable, id: string): WineVarietalRow {
  const row = db.select().from(wineVarietals).where(eq(wineVarietals.id, id)).get()
  if (!row) throw notFound('wine varietal', id)
  return row
}
