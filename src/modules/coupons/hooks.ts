// How coupons join the customers family: a coupon available to named customers names the
// primary after a merge (the source's id replaced, duplicates collapsed).
import { and, eq, sql } from 'drizzle-orm'
import { registerCustomerReferenceMover } from '../customers'
import { coupons } from './schema'

/** Registers what the family lends the others (its manifest's `hooks`, index.ts). */
export function registerCouponsHooks(): void {
  registerCustomerReferenceMover('coupons', (tx, sourceId, primaryId) => {
    const naming = tx
      .select({ id: coupons.id, ids: coupons.availableToObjectIds })
      .from(coupons)
      .where(
        and(
          eq(coupons.availableTo, 'Customer'),
          sql`EXISTS (SELECT 1 FROM json_each(${coupons.availableToObjectIds}) WHERE value = ${sourceId})`,
        ),
      )
      .all()
    for (const coupon of naming)
      tx.update(coupons)
        .set({
          availableToObjectIds: [...new Set(coupon.ids.map((id) => (id === sourceId ? primaryId : id)))],
        })
        .where(eq(coupons.id, coupon.id))
        .run()
    return naming.length
  })
}
