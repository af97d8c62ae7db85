// The records media can be attached to. Families register an existence check for their entity
// type, so attaching to an unknown record is 404; types without one are taken as given (a family
// not built yet, or an external system's record). Customer merges move attached media along.
import { and, eq } from 'drizzle-orm'
import { nowIso } from '../../platform/foundation/ids'
import { notFound } from '../../platform/foundation/problem'
import type { Queryable } from '../../platform/tenancy/transaction'
import { collectionExists } from '../collections'
import { findCustomerRow, registerCustomerReferenceMover } from '../customers'
import { findLocation } from '../locations'
import { findProductRow } from '../products'
import { findStaffUser } from '../staff'
import { findVendor } from '../vendors'
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

/**
 * Registers the entity types of the families media builds on, and moves customers' media along
 * when customers merge (its manifest's `hooks`, index.ts); again replaces them.
 */
export function registerMediaHooks(): void {
  registerMediaEntity('location', (db, id) => findLocation(db, id) !== undefined)
  registerMediaEntity('product', (db, id) => findProductRow(db, id) !== undefined)
  registerMediaEntity('collection', collectionExists)
  // A merged-away customer's id names its primary: media is attached to live customers only.
  registerMediaEntity('customer', (db, id) => findCustomerRow(db, id)?.id === id)
  registerMediaEntity('vendor', (db, id) => findVendor(db, id) !== undefined)
  registerMediaEntity('staff_user', (db, id) => findStaffUser(db, id) !== undefined)
  registerCustomerReferenceMover('mediaAssets', (tx, sourceId, primaryId) => {
    const moved = tx
      .update(mediaAssets)
      .set({ linkedEntityId: primaryId, updatedAt: nowIso() })
      .where(and(eq(mediaAssets.linkedEntityType, 'customer'), eq(mediaAssets.linkedEntityId, sourceId)))
      .returning({ id: mediaAssets.id })
      .all()
    return moved.length
  })
}
