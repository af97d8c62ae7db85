// What the families built on products lend them (src/platform/lending.ts). Collections hold
// products: they say which collections hold one, and give the product list its `collectionId`
// filter and order.
import type { AnyColumn, SQL } from 'drizzle-orm'
import { lendingDesk } from '../../platform/lending'
import type { Queryable } from '../../platform/tenancy/transaction'

export interface LentToProducts {
  /** collections: the collections holding a product. */
  collectionIdsOf(db: Queryable, productId: string): string[]
  /**
   * collections: SQL for the ids of the products a collection holds (a parenthesised subquery),
   * and for the display order in it of the product a column names.
   */
  collectionMembers(collectionId: string, productId: AnyColumn): { productIds: SQL; sortOrder: SQL }
}

const desk = lendingDesk<LentToProducts>('products')
export const lendToProducts = desk.lend
export const lentToProducts = desk.part
