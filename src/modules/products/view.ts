// Reads: products with their variants, inventory rows and bundle items, loaded in batches.
import { asc, eq, inArray } from 'drizzle-orm'
import { notFound } from '../../platform/foundation/problem'
import type { Queryable } from '../../platform/tenancy/transaction'
import type { ProductView, VariantView } from './model'
import {
  type ProductInventoryRow,
  type ProductRow,
  productBundleItems,
  productInventory,
  products,
  productVariants,
} from './schema'

const inventoryView = (row: ProductInventoryRow) => ({
  productVariantId: row.productVariantId,
  inventoryLocationId: row.inventoryLocationId,
  availableForSaleCount: row.availableForSaleCount,
  reserveCount: row.reserveCount,
  allocatedCount: row.allocatedCount,
})

/** The full views of `rows`, in the same order, with three queries whatever their number. */
export function productViews(db: Queryable, rows: ProductRow[]): ProductView[] {
  if (rows.length === 0) return []
  const ids = rows.map((r) => r.id)
  const variants = db
    .select()
    .from(productVariants)
    .where(inArray(productVariants.productId, ids))
    .orderBy(asc(productVariants.sortOrder), asc(productVariants.id))
    .all()
  const stock =
    variants.length === 0
      ? []
      : db
          .select()
          .from(productInventory)
          .where(
            inArray(
              productInventory.productVariantId,
              variants.map((v) => v.id),
            ),
          )
          .orderBy(asc(productInventory.productVariantId), asc(productInventory.inventoryLocationId))
          .all()
  const bundle = db
    .select({
      productId: productBundleItems.productId,
      productVariantId: productBundleItems.productVariantId,
      quantity: productBundleItems.quantity,
      memberProductId: productVariants.productId,
    })
    .from(productBundleItems)
    .innerJoin(productVariants, eq(productVariants.id, productBundleItems.productVariantId))
    .where(inArray(productBundleItems.productId, ids))
    .orderBy(asc(productBundleItems.sortOrder))
    .all()

  const stockOf = Map.groupBy(stock, (s) => s.productVariantId)
  const variantsOf = Map.groupBy(
    variants.map((v): VariantView & { productId: string } => ({
      productId: v.productId,
      id: v.id,
      title: v.title,
      sku: v.sku,
      upcCode: v.upcCode,
      volumeInML: v.volumeInML,
      costOfGood: v.costOfGood,
      price: v.price,
      comparePrice: v.comparePrice,
      bottleDeposit: v.bottleDeposit,
      sortOrder: v.sortOrder,
      hasInventory: v.hasInventory,
      inventoryPolicy: v.inventoryPolicy,
      hasShipping: v.hasShipping,
      taxType: v.taxType,
      weight: v.weight,
      inventory: (stockOf.get(v.id) ?? []).map(inventoryView),
    })),
    (v) => v.productId,
  )
  const bundleOf = Map.groupBy(bundle, (b) => b.productId)

  return rows.map((row) => {
    const ownVariants = (variantsOf.get(row.id) ?? []).map(({ productId: _, ...v }) => v)
    return {
      id: row.id,
      title: row.title,
      subTitle: row.subTitle,
      image: row.image,
      type: row.type,
      departmentId: row.departmentId,
      vendorId: row.vendorId,
      teaser: row.teaser,
      content: row.content,
      webStatus: row.webStatus,
      adminStatus: row.adminStatus,
      slug: row.slug,
      metaData: row.metaData,
      productTemplateId: row.productTemplateId,
      images: row.images,
      bundleItems: (bundleOf.get(row.id) ?? []).map((b) => ({
        productVariantId: b.productVariantId,
        productId: b.memberProductId,
        quantity: b.quantity,
      })),
      variants: ownVariants,
      inventory: ownVariants.flatMap((v) => v.inventory),
      security: { availableTo: row.availableTo },
      createdAt: row.createdAt,
      updatedAt: row.updatedAt,
    }
  })
}

export const findProductRow = (db: Queryable, id: string): ProductRow | undefined =>
  db.select().from(products).where(eq(products.id, id)).get()

export function getProductRow(db: Queryable, id: string): ProductRow {
  const row = findProductRow(db, id)
  if (!row) throw notFound('product', id)
  return row
}

export function getProduct(db: Queryable, id: string): ProductView {
  return productViews(db, [getProductRow(db, id)])[0]!
}
