// How other families keep a product they depend on from being deleted under them: each registers
// a guard, run inside the delete's transaction, that throws (409 naming what uses the product)
// to refuse. Inventory's active menu-item recipes are one.
import type { Queryable } from '../../platform/tenancy/transaction'

export type ProductDeleteGuard = (tx: Queryable, productId: string) => void

const guards = new Map<string, ProductDeleteGuard>()

/** Registers (or replaces) the guard of one kind of record, e.g. `recipes`. */
export function registerProductDeleteGuard(kind: string, guard: ProductDeleteGuard): void {
  guards.set(kind, guard)
}

/** Runs every guard; the first that objects refuses the delete. */
export function assertProductDeletable(tx: Queryable, productId: string): void {
  for (const guard of guards.values()) guard(tx, productId)
}
