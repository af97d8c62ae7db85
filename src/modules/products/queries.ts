// Named queries of products' tables that other families ask through the front door (index.ts).
import { asc, eq, inArray, min, sql } from 'drizzle-orm'
import type { Queryable } from '../../platform/tenancy/transaction'
import { products, productVariants } from './schema'

/** Which of these ids name a product of the tenant. */
export function existingProductIds(db: Queryable, ids: readonly string[]): Set<string> {
  if (ids.length === 0) return new Set()
  return new Set(
    db
      .select({ id: products.id })
      .from(products)
      .where(inArray(products.id, [...new Set(ids)]))
      .all()
      .map((r) => r.id),
  )
}

/** collections: every product id, in title order (case-insensitive), then id. */
export const productIdsByTitle = (db: Queryable): string[] =>
  db
    .select({ id: products.id })
    .from(products)
    .orderBy(asc(sql`lower(${products.title})`), asc(products.id))
    .all()
    .map((r) => r.id)

/**
 * collections: a product as Dynamic collections' conditions see it: its row and `price`, its
 * variants' lowest (null without variants); undefined once it is gone.
 */
export function productForConditions(db: Queryable, productId: string): Record<string, unknown> | undefined {
  const row = db.select().from(products).where(eq(products.id, productId)).get()
  if (!row) return undefined
  const lowest = db
    .select({ price: min(productVariants.price) })
    .from(productVariants)
    .where(eq(productVariants.productId, productId))
    .get()
  return { ...row, price: lowest?.price ?? null }
}
