// The tenant's public booking page: which location it books into, under which slug and name,
// and whether it is public at all. One record per tenant; GET is 404 until the first PUT.
// The page lives at the location it books into: a caller who cannot reach that location does not
// see it (404, as before the first PUT) and may not replace it (403): that would take that
// location's page away. (The location a PUT names is checked by the platform.)
import { eq } from 'drizzle-orm'
import { diffFields } from '../../platform/audit/diff'
import { recordWrite } from '../../platform/audit/record-write'
import { assertReaches, type LocationScope, reaches } from '../../platform/auth/location-scope'
import type { Actor } from '../../platform/foundation/actor'
import { nowIso } from '../../platform/foundation/ids'
import { notFound } from '../../platform/foundation/problem'
import type { Db } from '../../platform/tenancy/databases'
import { inWriteTransaction, type Queryable } from '../../platform/tenancy/transaction'
import { chooseLocation } from './clock'
import type { PutLocationMappingInput } from './model'
import { type LocationMappingRow, tablesLocationMapping } from './schema'

const MAPPING_ID = 'default'

const view = ({ id: _id, ...rest }: LocationMappingRow) => rest

const storedMapping = (db: Queryable) =>
  db.select().from(tablesLocationMapping).where(eq(tablesLocationMapping.id, MAPPING_ID)).get()

export function getLocationMapping(db: Queryable, locations: LocationScope) {
  const row = storedMapping(db)
  if (!row || !reaches(locations, row.locationId))
    throw notFound('location mapping (not configured yet: PUT it first)')
  return view(row)
}

export function putLocationMapping(
  db: Db,
  actor: Actor,
  locations: LocationScope,
  input: PutLocationMappingInput,
) {
  return inWriteTransaction(db, (tx) => {
    const location = chooseLocation(tx, actor, input.locationId, 'body/locationId')
    const before = storedMapping(tx)
    if (before) assertReaches(locations, before.locationId)
    const fields = {
      tenantLocationCode: input.tenantLocationCode,
      locationId: location.id,
      publicSlug: input.publicSlug,
      publicName: input.publicName.trim(),
      isPublic: input.isPublic,
    }
    const now = nowIso()
    if (before) {
      const changes = diffFields(before, fields)
      if (Object.keys(changes).length === 0) return view(before)
      const row = tx
        .update(tablesLocationMapping)
        .set({ ...fields, updatedAt: now })
        .where(eq(tablesLocationMapping.id, MAPPING_ID))
        .returning()
        .get()
      recordWrite(tx, actor, {
        action: 'tables.location_mapping.update',
        entityType: 'tables_location_mapping',
        entityId: MAPPING_ID,
        metadata: { changes },
      })
      return view(row)
    }
    const row = tx
      .insert(tablesLocationMapping)
      .values({ id: MAPPING_ID, ...fields, createdAt: now, updatedAt: now })
      .returning()
      .get()
    recordWrite(tx, actor, {
      action: 'tables.location_mapping.create',
      entityType: 'tables_location_mapping',
      entityId: MAPPING_ID,
      metadata: fields,
    })
    return view(row)
  })
}
