// Variants, their per-location inventory and bundle items: validation and writes used by the
// product service, plus the lookups other modules (orders) price and find variants with.

import { and, eq, inArray, ne, notInArray, sql } from 'drizzle-orm'
import { everyLocation, type LocationScope, scopeCondition } from '../../platform/auth/location-scope'
import { nowIso } from '../../platform/foundation/ids'
import { ApiError, conflict, type FieldError, invalid } from '../../platform/foundation/problem'
import type { Queryable } from '../../platform/tenancy/transaction'
import { existingLocationIds } from '../locations'
import { findVendor } from '../vendors'
import type { CreateVariantInput, UpdateVariantInput } from './model'
import {
  type ProductRow,
  type ProductType,
  type ProductVariantRow,
  productBundleItems,
  productInventory,
  products,
  productVariants,
  type VariantTaxType,
} from './schema'

/** The defaults a new variant takes from its product's type. */
export function variantDefaults(type: ProductType) {
  const taxType: VariantTaxType =
    type === 'Wine' ? 'wine' : type === 'Food' ? 'food' : type === 'Gift Card' ? 'none' : 'generalMerchandise'
  return {
    taxType,
    hasShipping: type === 'Wine' || type === 'General Merchandise' || type === 'Bundle',
    hasInventory: type === 'Wine' || type === 'General Merchandise',
    inventoryPolicy: "Don't Sell" as const,
  }
}

type InventoryInput = NonNullable<CreateVariantInput['inventory']>

/**
 * Refuses duplicate SKUs, case-insensitively: twice in one request, or already held by a variant
 * of another product. Variants of `productId` itself may hand their SKUs around in one update.
 */
export function assertSkusFree(tx: Queryable, skus: { sku: string; path: string }[], productId?: string) {
  const seen = new Map<string, string>()
  for (const { sku } of skus) {
    const key = sku.toLowerCase()
    if (seen.has(key)) throw conflict(`SKU "${sku}" appears twice in the request`, { sku })
    seen.set(key, sku)
  }
  if (seen.size === 0) return
  const holder = tx
    .select({ sku: productVariants.sku, productId: productVariants.productId })
    .from(productVariants)
    .where(
      and(
        inArray(sql`lower(${productVariants.sku})`, [...seen.keys()]),
        productId === undefined ? undefined : ne(productVariants.productId, productId),
      ),
    )
    .limit(1)
    .get()
  if (holder)
    throw conflict(`SKU "${holder.sku}" is already in use`, { sku: holder.sku, productId: holder.productId })
}

/** Checks every inventory row of the request: a location of the tenant, once per variant. */
export function assertInventoryValid(
  tx: Queryable,
  variants: { hasInventory: boolean; inventory?: InventoryInput }[],
) {
  const errors: FieldError[] = []
  const wanted = new Set<string>()
  variants.forEach((variant, i) => {
    if (!variant.inventory) return
    if (!variant.hasInventory && variant.inventory.length > 0)
      errors.push({
        path: `body/variants/${i}/inventory`,
        message: 'a variant with hasInventory false keeps no inventory rows',
      })
    const inVariant = new Set<string>()
    variant.inventory.forEach((row, j) => {
      if (inVariant.has(row.inventoryLocationId))
        errors.push({
          path: `body/variants/${i}/inventory/${j}/inventoryLocationId`,
          message: 'one row per location',
        })
      inVariant.add(row.inventoryLocationId)
      wanted.add(row.inventoryLocationId)
    })
  })
  if (wanted.size > 0) {
    const known = existingLocationIds(tx, [...wanted])
    variants.forEach((variant, i) => {
      variant.inventory?.forEach((row, j) => {
        if (!known.has(row.inventoryLocationId))
          errors.push({
            path: `body/variants/${i}/inventory/${j}/inventoryLocationId`,
            message: `no location ${row.inventoryLocationId}`,
          })
      })
    })
  }
  if (errors.length > 0)
    throw new ApiError('validation_failed', `${errors[0]!.path}: ${errors[0]!.message}`, { errors })
}

/**
 * Replaces a variant's stock rows at the locations of `scope` (every location by default): a
 * caller bound to some locations changes their stock only, and the rows it sends name no other
 * (the platform refuses those with 403).
 */
export function replaceInventory(
  tx: Queryable,
  variantId: string,
  rows: InventoryInput,
  scope: LocationScope = everyLocation,
) {
  tx.delete(productInventory)
    .where(
      and(
        eq(productInventory.productVariantId, variantId),
        scopeCondition(scope, productInventory.inventoryLocationId),
      ),
    )
    .run()
  if (rows.length === 0) return
  tx.insert(productInventory)
    .values(
      rows.map((row) => ({
        productVariantId: variantId,
        inventoryLocationId: row.inventoryLocationId,
        availableForSaleCount: row.availableForSaleCount ?? 0,
        reserveCount: row.reserveCount ?? 0,
        allocatedCount: row.allocatedCount ?? 0,
      })),
    )
    .run()
}

/** A new variant's row from its input, the product type's defaults filling the gaps. */
export function newVariantRow(
  id: string,
  productId: string,
  type: ProductType,
  input: CreateVariantInput,
  index: number,
): ProductVariantRow {
  const defaults = variantDefaults(type)
  const now = nowIso()
  return {
    id,
    productId,
    title: input.title,
    sku: input.sku,
    upcCode: input.upcCode ?? null,
    volumeInML: input.volumeInML ?? null,
    costOfGood: input.costOfGood ?? null,
    price: input.price,
    comparePrice: input.comparePrice ?? null,
    bottleDeposit: input.bottleDeposit ?? null,
    sortOrder: input.sortOrder ?? index,
    hasInventory: input.hasInventory ?? defaults.hasInventory,
    inventoryPolicy: input.inventoryPolicy ?? defaults.inventoryPolicy,
    hasShipping: input.hasShipping ?? defaults.hasShipping,
    taxType: input.taxType ?? defaults.taxType,
    weight: input.weight ?? null,
    createdAt: now,
    updatedAt: now,
  }
}

/** A new variant of an update (no `id`) needs what a create needs. */
export function asNewVariant(input: UpdateVariantInput, index: number): CreateVariantInput {
  const missing = (['title', 'sku', 'price'] as const).filter((f) => input[f] === undefined)
  if (missing.length > 0) {
    const errors = missing.map((f) => ({
      path: `body/variants/${index}/${f}`,
      message: `a new variant (one without id) needs ${f}`,
    }))
    throw new ApiError('validation_failed', `${errors[0]!.path}: ${errors[0]!.message}`, { errors })
  }
  const { id: _, ...rest } = input
  return rest as CreateVariantInput
}

/** Bundle products that contain any of `variantIds`, other than `exceptProductId`. */
export function bundlesUsing(tx: Queryable, variantIds: string[], exceptProductId?: string): string[] {
  if (variantIds.length === 0) return []
  return [
    ...new Set(
      tx
        .select({ productId: productBundleItems.productId })
        .from(productBundleItems)
        .where(
          and(
            inArray(productBundleItems.productVariantId, variantIds),
            exceptProductId === undefined ? undefined : ne(productBundleItems.productId, exceptProductId),
          ),
        )
        .all()
        .map((r) => r.productId),
    ),
  ]
}

/** Refuses removing variants that a bundle still contains (409 naming the bundles). */
export function assertNotInBundles(
  tx: Queryable,
  variantIds: string[],
  exceptProductId?: string,
  detail = 'a variant being removed is part of a bundle; remove it from the bundle first',
) {
  const bundleProductIds = bundlesUsing(tx, variantIds, exceptProductId)
  if (bundleProductIds.length > 0) throw conflict(detail, { bundleProductIds })
}

type BundleInput = { productVariantId: string; quantity: number }[]

/** Bundle items name variants of other products that are not bundles themselves, once each. */
export function assertBundleValid(tx: Queryable, productId: string | undefined, items: BundleInput) {
  const errors: FieldError[] = []
  const ids = items.map((i) => i.productVariantId)
  const found = new Map(
    (ids.length === 0
      ? []
      : tx
          .select({ id: productVariants.id, productId: productVariants.productId, type: products.type })
          .from(productVariants)
          .innerJoin(products, eq(products.id, productVariants.productId))
          .where(inArray(productVariants.id, ids))
          .all()
    ).map((r) => [r.id, r]),
  )
  const seen = new Set<string>()
  items.forEach((item, i) => {
    const path = `body/bundleItems/${i}/productVariantId`
    const variant = found.get(item.productVariantId)
    if (seen.has(item.productVariantId)) errors.push({ path, message: 'each variant once per bundle' })
    else if (!variant) errors.push({ path, message: `no variant ${item.productVariantId}` })
    else if (variant.productId === productId) errors.push({ path, message: 'a bundle cannot contain itself' })
    else if (variant.type === 'Bundle')
      errors.push({ path, message: 'a bundle cannot contain another bundle' })
    seen.add(item.productVariantId)
  })
  if (errors.length > 0)
    throw new ApiError('validation_failed', `${errors[0]!.path}: ${errors[0]!.message}`, { errors })
}

export function replaceBundle(tx: Queryable, productId: string, items: BundleInput) {
  tx.delete(productBundleItems).where(eq(productBundleItems.productId, productId)).run()
  if (items.length === 0) return
  tx.insert(productBundleItems)
    .values(items.map((item, i) => ({ productId, ...item, sortOrder: i })))
    .run()
}

/** Variants of `productId` other than `keep`: the ones an update's variant list drops. */
export function variantsDropped(tx: Queryable, productId: string, keep: string[]): string[] {
  return tx
    .select({ id: productVariants.id })
    .from(productVariants)
    .where(
      and(
        eq(productVariants.productId, productId),
        keep.length === 0 ? undefined : notInArray(productVariants.id, keep),
      ),
    )
    .all()
    .map((r) => r.id)
}

export function assertVendorExists(tx: Queryable, vendorId: string | null | undefined) {
  if (!vendorId) return
  if (!findVendor(tx, vendorId)) throw invalid('body/vendorId', `no vendor ${vendorId}`)
}

// ---- Lookups for other modules (orders price lines from these) ----

/** A variant with the product facts an order line needs. */
export interface CatalogVariant extends ProductVariantRow {
  product: Pick<ProductRow, 'id' | 'title' | 'type' | 'webStatus' | 'adminStatus' | 'availableTo'>
}

function catalogVariant(db: Queryable, where: ReturnType<typeof eq>): CatalogVariant | undefined {
  const row = db
    .select({
      variant: productVariants,
      product: {
        id: products.id,
        title: products.title,
        type: products.type,
        webStatus: products.webStatus,
        adminStatus: products.adminStatus,
        availableTo: products.availableTo,
      },
    })
    .from(productVariants)
    .innerJoin(products, eq(products.id, productVariants.productId))
    .where(where)
    .get()
  return row ? { ...row.variant, product: row.product } : undefined
}

/** The variant with this id, or undefined. `price`, `bottleDeposit`... are integer cents. */
/** shipping: the weight (pounds, null: none) and `hasShipping` of each of these variants that exists. */
export function variantShippingWeights(
  db: Queryable,
  ids: readonly string[],
): Map<string, { weight: number | null; hasShipping: boolean }> {
  if (ids.length === 0) return new Map()
  return new Map(
    db
      .select({
        id: productVariants.id,
        weight: productVariants.weight,
        hasShipping: productVariants.hasShipping,
      })
      .from(productVariants)
      .where(inArray(productVariants.id, [...new Set(ids)]))
      .all()
      .map(({ id, ...facts }) => [id, facts]),
  )
}

export function findVariant(db: Queryable, variantId: string): CatalogVariant | undefined {
  return catalogVariant(db, eq(productVariants.id, variantId))
}

/** The variant with this SKU (case-insensitive), or undefined. */
export function findVariantBySku(db: Queryable, sku: string): CatalogVariant | undefined {
  return catalogVariant(db, eq(sql`lower(${productVariants.sku})`, sku.toLowerCase()))
}

/** The variant only when it belongs to `productId`. */
export function findProductVariant(
  db: Queryable,
  productId: string,
  variantId: string,
): CatalogVariant | undefined {
  const variant = findVariant(db, variantId)
  return variant?.productId === productId ? variant : undefined
}
