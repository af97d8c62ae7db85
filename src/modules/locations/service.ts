import { asc, eq, sql } from 'drizzle-orm'
import { recordWrite } from '../../platform/audit/record-write'
import type { Actor } from '../../platform/auth/actor'
import { invalid, notFound } from '../../platform/http/problem'
import { newId, nowIso } from '../../platform/ids'
import type { Db } from '../../platform/tenancy/databases'
import { preparedOn } from '../../platform/tenancy/prepared'
import { isTimeZone } from '../../platform/tenancy/tenants'
import { inWriteTransaction, type Queryable } from '../../platform/tenancy/transaction'
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

export function createLocation(
  db: Db,
  actor: Actor,
  input: { name: string; timezone: string; address?: LocationAddress },
): LocationRow {
  if (!input.name.trim()) throw invalid('name', 'must not be empty')
  if (!isTimeZone(input.timezone)) throw invalid('timezone', `unknown IANA time zone "${input.timezone}"`)
  return inWriteTransaction(db, (tx) => {
    const now = nowIso()
    const row = tx
      .insert(locations)
      .values({
        id: newId(),
        name: input.name.trim(),
        timezone: input.timezone,
        ...input.address,
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
