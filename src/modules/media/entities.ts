// The records media can be attached to. Families register an existence check for their entity
// type, so attaching to an unknown record is 404; types without one are taken as given (a family
// not built yet, or an external system's record). Customer merges move attached media along.
import { and, eq } from 'drizzle-orm'
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core'
import { notFound } from '../../platform/http/problem'
import { nowIso } from '../../platform/ids'
import type { Queryable } from '../../platform/tenancy/transaction'
import { collections } from '../collections/schema'
import { registerCustomerReferenceMover } from '../customers'
import { customers } from '../customers/schema'
import { locations } from '../locations/schema'
import { products } from '../products/schema'
import { staffUsers } from '../staff/schema'
import { vendors } from '../vendors/schema'
import { mediaAssets } from './schema'

export type MediaEntityCheck = (db: Queryable, entityId: string) => boolean

const checks = new Map<string, MediaEntityCheck>()

/** Registers (or replaces) the existence check of an entity type; answers its removal. */
export function registerMediaEntity(entityType: string, exists: MediaEntityCheck): () => void {
  checks.set(entityType, exists)
  return () => {
    if (checks.get(entityType) === exists) checks.delete(entityType)
  }
}

export const mediaEntityTypes = (): string[] => [...checks.keys()]

export function assertEntityExists(db: Queryable, entityType: string, entityId: string): void {
  const exists = checks.get(entityType)
  if (exists && !exists(db, entityId)) throw notFound(entityType, entityId)
}

const byId =
  (table: SQLiteTable, id: SQLiteColumn): MediaEntityCheck =>
  (db, entityId) =>
    db.select({ id }).from(table).where(eq(id, entityId)).get() !== undefined

registerMediaEntity('location', byId(locations, locations.id))
registerMediaEntity('product', byId(products, products.id))
registerMediaEntity('collection', byId(collections, collections.id))
registerMediaEntity('customer', byId(customers, customers.id))
registerMediaEntity('vendor', byId(vendors, vendors.id))
registerMediaEntity('staff_user', byId(staffUsers, staffUsers.id))

registerCustomerReferenceMover('mediaAssets', (tx, sourceId, primaryId) => {
  const moved = tx
    .update(mediaAssets)
    .set({ linkedEntityId: primaryId, updatedAt: nowIso() })
    .where(and(eq(mediaAssets.linkedEntityType, 'customer'), eq(mediaAssets.linkedEntityId, sourceId)))
    .returning({ id: mediaAssets.id })
    .all()
  return moved.length
})
