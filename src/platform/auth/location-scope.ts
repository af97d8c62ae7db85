// Where a request may act: the one location rule (docs/architecture.md, "One request", step 6).
//
// The principal holds each permission tenant-wide or at some locations; x-location-id (or a
// route's own :locationId) narrows that to one location and never widens it. Every table with a
// location column is read and written through these helpers:
// - by id: a record at a location outside the scope is 404, as if it did not exist
//   (routes declare `locatedBy` and the platform checks it before the handler runs);
// - lists: `scopeCondition` filters the rows, and the count with them;
// - writes naming a location: the platform refuses a request that names (header, path, query or
//   body) a location outside the scope with 403 before the handler runs; `assertReaches` is for
//   locations a service derives itself (a drawer's location, an order's).
import { eq, inArray, isNull, or, type SQL, sql } from 'drizzle-orm'
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core'
import { ApiError, notFound } from '../foundation/problem'
import { preparedOn } from '../tenancy/prepared'
import type { Queryable } from '../tenancy/transaction'

export type LocationScope = { readonly all: true } | { readonly all: false; readonly ids: readonly string[] }

export const everyLocation: LocationScope = Object.freeze({ all: true })

export const onlyLocations = (ids: Iterable<string>): LocationScope =>
  Object.freeze({ all: false, ids: Object.freeze([...new Set(ids)]) })

/** True when a record at `locationId` is within the scope; a record with no location always is. */
export function reaches(scope: LocationScope, locationId: string | null | undefined): boolean {
  return scope.all || locationId === null || locationId === undefined || scope.ids.includes(locationId)
}

/** The single location the scope comes down to, if it is exactly one. */
export const soleLocation = (scope: LocationScope): string | null =>
  !scope.all && scope.ids.length === 1 ? scope.ids[0]! : null

/**
 * The WHERE condition that keeps rows within the scope (undefined: no condition). A nullable
 * column whose null means "every location" (a labor job, a media asset) passes `unlocatedToo`.
 */
export function scopeCondition(
  scope: LocationScope,
  column: SQLiteColumn,
  options: { unlocatedToo?: boolean } = {},
): SQL | undefined {
  if (scope.all) return undefined
  const within = inArray(column, [...scope.ids])
  return options.unlocatedToo ? or(isNull(column), within) : within
}

/**
 * Records bound to a list of locations (a JSON array column; null: every location) that lie
 * wholly within the scope: every location they name is one the scope has.
 */
export function boundWithin(scope: LocationScope, column: SQLiteColumn): SQL | undefined {
  if (scope.all) return undefined
  const ids = sql.join(
    scope.ids.map((id) => sql`${id}`),
    sql`, `,
  )
  return sql`(${column} IS NOT NULL AND NOT EXISTS (SELECT 1 FROM json_each(${column}) WHERE value NOT IN (${ids})))`
}

/** 403 when a write would act at a location outside the scope. */
export function assertReaches(scope: LocationScope, locationId: string | null | undefined): void {
  if (!reaches(scope, locationId)) {
    throw new ApiError('forbidden', `This request may not act at location ${locationId}`, {
      extensions: { locationId },
    })
  }
}

/** 404 for a record at a location outside the scope: to this caller it does not exist. */
export function assertVisible(
  scope: LocationScope,
  locationId: string | null | undefined,
  kind: string,
  id: string,
): void {
  if (!reaches(scope, locationId)) throw notFound(kind, id)
}

/** How a route finds where the record its path names lives (the `locatedBy` route option). */
export interface LocatedBy {
  /** What the record is called in a 404. */
  kind: string
  /** The path parameter holding its id. */
  param: string
  /** Its location; null: none (unaffected by location scope); undefined: no such record. */
  locationOf(db: Queryable, id: string): string | null | undefined
}

/** A record found by its id column, living at its location column (one prepared lookup). */
export function locatedRow(
  kind: string,
  table: SQLiteTable,
  idColumn: SQLiteColumn,
  locationColumn: SQLiteColumn,
  param = 'id',
): LocatedBy {
  return {
    kind,
    param,
    locationOf: (db, id) =>
      preparedOn(db, `located:${kind}`, () =>
        db
          .select({ at: locationColumn })
          .from(table)
          .where(eq(idColumn, sql.placeholder('id')))
          .prepare(),
      ).get({ id })?.at as string | null | undefined,
  }
}

/** The same record found through another path parameter (`/orders/:orderId/...`). */
export const viaParam = (located: LocatedBy, param: string): LocatedBy => ({ ...located, param })
