// How collections follow the catalog: a product write that changes which Dynamic collections
// hold it records a `collection.update` per collection changed; and what they lend products.
import { observeWrites, recordWrite, type WriteObserver } from '../../platform/audit/record-write'
import { calendarOfTenant } from '../../platform/tenancy/time-zones'
import { lendToProducts } from '../products'
import { reconcileProduct } from './dynamic'
import { collectionIdsOfProduct, collectionMembers, getCollection } from './service'

// A product write that changes Dynamic memberships records a `collection.update` per collection.
const followProductWrites: WriteObserver = (tx, actor, write) => {
  if (write.entityType !== 'product' || !write.entityId) return
  for (const { collectionId, productId, change } of reconcileProduct(
    tx,
    write.entityId,
    calendarOfTenant(actor.tenantId),
  )) {
    const after = getCollection(tx, collectionId)
    recordWrite(tx, actor, {
      action: 'collection.update',
      entityType: 'collection',
      entityId: collectionId,
      metadata: { byConditions: true, [change]: [productId] },
      event: after,
    })
  }
}

/** Registers the observer and lends products their collections (its manifest's `hooks`, index.ts); again is a no-op. */
export function registerCollectionsHooks(): void {
  observeWrites(followProductWrites)
  lendToProducts({ collectionIdsOf: collectionIdsOfProduct, collectionMembers })
}
