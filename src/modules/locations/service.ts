// Locations: the places a tenant operates. Every location-bound rule of the platform (roles at a
// location, passcode sessions, x-location-id) names one of these.
import { and, asc, count, eq, gt, inArray, sql } from 'drizzle-orm'
import { diffFields } from '../../platform/audit/diff'
import { recordWrite } from '../../platform/audit/record-write'
import { type LocationScope, scopeCondition } from '../../platform/auth/location-scope'
import type { Actor } from '../../platform/foundation/actor'
import { newId, nowIso } from '../../platform/foundation/ids'
import { offsetOf, type PageRequest, searchColumns } from '../../platform/foundation/paging'
import { invalid, notFound } from '../../platform/foundation/problem'
import type { Db } from '../../platform/tenancy/databases'
import { preparedOn } from '../../platform/tenancy/prepared'
import { isTimeZone } from '../../platform/tenancy/tenants'
import { inWriteTransaction, type Queryable, sqliteOf } from '../../platform/tenancy/transaction'
import type { CreateLocationInput, UpdateLocationInput } from './model'
import { type LocationRow, locations } from './schema'

/** A location's street address (all optional): what the partner restaurant routes show. */
export interface LocationAddress {
  addressLine1?: string | null
  addressLine2?: string | null
  city?: string | null
  stateCode?: string | null
  postalCode?: string | null
  countryCode?: string | null
  phone?: string | null
}

export interface NewLocation {
  name: string
  timezone: string
  address?: LocationAddress
  taxRegion?: string | null
}

function assertTimeZone(timezone: string, path: string) {
  if (!isTimeZone(timezone)) throw invalid(path, `unknown IANA time zone "${timezone}"`)
}

export function createLocation(db: Db, actor: Actor, input: NewLocation): LocationRow {
  if (!input.name.trim()) throw invalid('name', 'must not be empty')
  assertTimeZone(input.timezone, 'timezone')
  return inWriteTransaction(db, (tx) => {
    const now = nowIso()
    const row = tx
      .insert(locations)
      .values({
        id: newId(),
        name: input.name.trim(),
        timezone: input.timezone,
        ...input.address,
        taxRegion: input.taxRegion ?? null,
        createdAt: now,
        updatedAt: now,
      })
      .returning()
      .get()
    recordWrite(tx, actor, {
      action: 'location.create',
      entityType: 'location',
      entityId: row.id,
      metadata: row,
    })
    return row
  })
}

export const findLocation = (db: Queryable, id: string): LocationRow | undefined =>
  preparedOn(db, 'location-by-id', () =>
    db
      .select()
      .from(locations)
      .where(eq(locations.id, sql.placeholder('id')))
      .prepare(),
  ).get({ id })

export function getLocation(db: Queryable, id: string): LocationRow {
  const row = findLocation(db, id)
  if (!row) throw notFound('location', id)
  return row
}

export const listLocations = (db: Queryable): LocationRow[] =>
  db.select().from(locations).orderBy(asc(locations.createdAt)).all()

export const listLocationIds = (db: Queryable): string[] =>
  db
    .select({ id: locations.id })
    .from(locations)
    .all()
    .map((row) => row.id)

/** The tenant's first location (the oldest), or undefined when it has none. */
export const firstLocation = (db: Queryable): LocationRow | undefined =>
  db.select().from(locations).orderBy(asc(locations.createdAt)).limit(1).get()

/** The tenant's location when it has exactly one, else undefined. */
export function onlyLocation(db: Queryable): LocationRow | undefined {
  const two = db.select().from(locations).orderBy(asc(locations.createdAt)).limit(2).all()
  return two.length === 1 ? two[0] : undefined
}

/** Which of these ids name a location of the tenant. */
export function existingLocationIds(db: Queryable, ids: readonly string[]): Set<string> {
  if (ids.length === 0) return new Set()
  return new Set(
    db
      .select({ id: locations.id })
      .from(locations)
      .where(inArray(locations.id, [...ids]))
      .all()
      .map((r) => r.id),
  )
}

/** The time zone of each of these locations that exists. */
export function locationTimeZones(db: Queryable, ids: readonly string[]): Map<string, string> {
  if (ids.length === 0) return new Map()
  return new Map(
    db
      .select({ id: locations.id, timezone: locations.timezone })
      .from(locations)
      .where(inArray(locations.id, [...new Set(ids)]))
      .all()
      .map((r) => [r.id, r.timezone]),
  )
}

/**
 * Keyset pages over the locations a scope reaches, by id (UUID v7: creation order): one made while
 * a caller pages through is never skipped or repeated. `total` counts every reachable one.
 */
export function reachableLocationsPage(
  db: Queryable,
  scope: LocationScope,
  page: { after?: string; limit?: number } = {},
): { rows: LocationRow[]; total: number } {
  const reachable = scopeCondition(scope, locations.id)
  const total = db.select({ n: count() }).from(locations).where(reachable).get()?.n ?? 0
  const query = db
    .select()
    .from(locations)
    .where(and(reachable, page.after ? gt(locations.id, page.after) : undefined))
    .orderBy(asc(locations.id))
  return { rows: page.limit === undefined ? query.all() : query.limit(page.limit).all(), total }
}

// ---- The HTTP API's shape ----

export const presentLocation = (row: LocationRow) => ({
  id: row.id,
  name: row.name,
  timeZone: row.timezone,
  status: row.status,
  address: {
    line1: row.addressLine1,
    line2: row.addressLine2,
    city: row.city,
    stateCode: row.stateCode,
    postalCode: row.postalCode,
    countryCode: row.countryCode,
  },
  phone: row.phone,
  taxRegion: row.taxRegion,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
})

/** The columns an API body sets (absent fields: none). */
function columnsOf(input: UpdateLocationInput): Partial<LocationRow> {
  const { address } = input
  const columns: Partial<LocationRow> = {
    name: input.name?.trim(),
    timezone: input.timeZone,
    phone: input.phone,
    taxRegion: input.taxRegion,
    status: input.status,
    addressLine1: address?.line1,
    addressLine2: address?.line2,
    city: address?.city,
    stateCode: address?.stateCode,
    postalCode: address?.postalCode,
    countryCode: address?.countryCode,
  }
  return Object.fromEntries(Object.entries(columns).filter(([, value]) => value !== undefined))
}

/** A location without a time zone of its own takes the tenant's (`tenantTimeZone`). */
export function createLocationFromApi(
  db: Db,
  actor: Actor,
  input: CreateLocationInput,
  tenantTimeZone: string,
) {
  const { name, timezone = tenantTimeZone, taxRegion, status: _status, ...address } = columnsOf(input)
  assertTimeZone(timezone, 'body/timeZone')
  return presentLocation(createLocation(db, actor, { name: name!, timezone, taxRegion, address }))
}

/** The locations the caller reaches (a location-bound caller: only its own), oldest first. */
export function pageLocations(
  db: Queryable,
  scope: LocationScope,
  query: { status?: LocationRow['status']; q?: string } & PageRequest,
) {
  const where = and(
    scopeCondition(scope, locations.id),
    query.status ? eq(locations.status, query.status) : undefined,
    searchColumns(query.q, [locations.name, locations.city]),
  )
  const total = db.select({ n: count() }).from(locations).where(where).get()?.n ?? 0
  const rows = db
    .select()
    .from(locations)
    .where(where)
    .orderBy(asc(locations.createdAt), asc(locations.id))
    .limit(query.limit)
    .offset(offsetOf(query))
    .all()
  return { locations: rows.map(presentLocation), page: { total, page: query.page, limit: query.limit } }
}

export const getLocationView = (db: Queryable, id: string) => presentLocation(getLocation(db, id))

export function updateLocation(db: Db, actor: Actor, id: string, patch: UpdateLocationInput) {
  if (patch.timeZone !== undefined) assertTimeZone(patch.timeZone, 'body/timeZone')
  return inWriteTransaction(db, (tx) => {
    const before = getLocation(tx, id)
    const changes = diffFields(before, columnsOf(patch))
    if (Object.keys(changes).length === 0) return presentLocation(before)
    const row = tx
      .update(locations)
      .set({ ...columnsOf(patch), updatedAt: nowIso() })
      .where(eq(locations.id, id))
      .returning()
      .get()!
    recordWrite(tx, actor, {
      action: 'location.update',
      entityType: 'location',
      entityId: id,
      metadata: { changes },
    })
    return presentLocation(row)
  })
}

/** History that names a location without being a record made there. */
const historyTables = new Set(['audit_entries', 'outbox_events', 'locations'])

/**
 * The first table holding a record made at the location, if any: every table with a
 * `location_id`, `*_location_id` or `*_location_ids` (JSON list) column, read from the schema
 * itself, so a family added later is covered without naming it here.
 */
function tableWithRecordsAt(db: Queryable, locationId: string): string | null {
  const client = sqliteOf(db)
  const columns = client
    .query<{ tableName: string; columnName: string }, []>(
      `SELECT m.name AS tableName, c.name AS columnName FROM sqlite_master m, pragma_table_info(m.name) c
       WHERE m.type = 'table' AND (c.name = 'location_id' OR c.name LIKE '%\\_location\\_id' ESCAPE '\\'
         OR c.name LIKE '%\\_location\\_ids' ESCAPE '\\')`,
    )
    .all()
  for (const { tableName, columnName } of columns) {
    if (historyTables.has(tableName)) continue
    const found = columnName.endsWith('_ids')
      ? `SELECT 1 FROM "${tableName}", json_each("${tableName}"."${columnName}") j
         WHERE json_valid("${tableName}"."${columnName}") AND j.value = ? LIMIT 1`
      : `SELECT 1 FROM "${tableName}" WHERE "${columnName}" = ? LIMIT 1`
    if (client.query(found).get(locationId)) return tableName
  }
  return null
}

/** Deletes a location nothing was ever recorded at; deactivates one with records (they keep it). */
export function removeLocation(db: Db, actor: Actor, id: string) {
  return inWriteTransaction(db, (tx) => {
    const row = getLocation(tx, id)
    const recordsIn = tableWithRecordsAt(tx, id)
    if (recordsIn === null) {
      tx.delete(locations).where(eq(locations.id, id)).run()
      recordWrite(tx, actor, {
        action: 'location.delete',
        entityType: 'location',
        entityId: id,
        metadata: row,
      })
      return { outcome: 'deleted' as const, location: presentLocation(row) }
    }
    if (row.status === 'inactive') return { outcome: 'deactivated' as const, location: presentLocation(row) }
    const deactivated = tx
      .update(locations)
      .set({ status: 'inactive', updatedAt: nowIso() })
      .where(eq(locations.id, id))
      .returning()
      .get()!
    recordWrite(tx, actor, {
      action: 'location.deactivate',
      entityType: 'location',
      entityId: id,
      metadata: { recordsIn },
    })
    return { outcome: 'deactivated' as const, location: presentLocation(deactivated) }
  })
}
