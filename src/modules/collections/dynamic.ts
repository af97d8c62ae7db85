// Dynamic collections hold the products their conditions match, evaluated by the tags' evaluator
// over a product's presented view: filled when the collection is created or its conditions
// change, and kept up to date by every recorded write of a product.
import { and, eq, inArray, max } from 'drizzle-orm'
import type { Calendar } from '../../platform/foundation/dates'
import type { Queryable } from '../../platform/tenancy/transaction'
import { productForConditions, productIdsByTitle } from '../products'
import { type ConditionSet, conditionsMatch } from '../tags'
import { productConditionFields } from './model'
import { collectionProducts, collections } from './schema'

/** The products a Dynamic collection's conditions match on the tenant's `calendar`, in title order. */
export function matchingProductIds(db: Queryable, conditions: ConditionSet, calendar: Calendar): string[] {
  return productIdsByTitle(db).filter((id) => {
    const view = productForConditions(db, id)
    return view !== undefined && conditionsMatch(productConditionFields, conditions, view, calendar)
  })
}

interface MembershipChange {
  collectionId: string
  productId: string
  change: 'added' | 'removed'
}

/**
 * Adds a product to every Dynamic collection whose conditions it now meets (at the end) and
 * removes it from those it no longer meets; answers what changed.
 */
export function reconcileProduct(tx: Queryable, productId: string, calendar: Calendar): MembershipChange[] {
  const dynamic = tx.select().from(collections).where(eq(collections.type, 'Dynamic')).all()
  if (dynamic.length === 0) return []
  const view = productForConditions(tx, productId)
  const holding = new Set(
    tx
      .select({ id: collectionProducts.collectionId })
      .from(collectionProducts)
      .where(
        and(
          eq(collectionProducts.productId, productId),
          inArray(
            collectionProducts.collectionId,
            dynamic.map((c) => c.id),
          ),
        ),
      )
      .all()
      .map((r) => r.id),
  )
  const changes: MembershipChange[] = []
  for (const collection of dynamic) {
    const matches = view !== undefined && conditionsMatch(productConditionFields, collection, view, calendar)
    if (matches === holding.has(collection.id)) continue
    if (matches) {
      const last = tx
        .select({ n: max(collectionProducts.sortOrder) })
        .from(collectionProducts)
        .where(eq(collectionProducts.collectionId, collection.id))
        .get()?.n
      tx.insert(collectionProducts)
        .values({ collectionId: collection.id, productId, sortOrder: (last ?? -1) + 1 })
        .run()
    } else
      tx.delete(collectionProducts)
        .where(
          and(
            eq(collectionProducts.collectionId, collection.id),
            eq(collectionProducts.productId, productId),
          ),
        )
        .run()
    changes.push({ collectionId: collection.id, productId, change: matches ? 'added' : 'removed' })
  }
  return changes
}
