import { and, asc, count, eq, inArray, or, type SQL, sql } from 'drizzle-orm'
import { diffFields } from '../../platform/audit/diff'
import { recordWrite } from '../../platform/audit/record-write'
import type { LocationScope } from '../../platform/auth/location-scope'
import type { Actor } from '../../platform/foundation/actor'
import { newId, nowIso } from '../../platform/foundation/ids'
import { offsetOf, type PageRequest, searchColumns } from '../../platform/foundation/paging'
import { conflict, invalid } from '../../platform/foundation/problem'
import { type DateRange, dateRangeCondition } from '../../platform/http/date-filter'
import { slugTaken, uniqueSlug } from '../../platform/slug'
import type { Db } from '../../platform/tenancy/databases'
import { inWriteTransaction, type Queryable } from '../../platform/tenancy/transaction'
import { lentToProducts } from './lent'
import type { CreateProductInput, ProductView, UpdateProductInput } from './model'
import { assertProductDeletable } from './references'
import { type ProductImage, type ProductRow, type ProductType, products, productVariants } from './schema'
import {
  asNewVariant,
  assertBundleValid,
  assertInventoryValid,
  assertNotInBundles,
  assertSkusFree,
  assertVendorExists,
  newVariantRow,
  replaceBundle,
  replaceInventory,
  variantDefaults,
  variantsDropped,
} from './variants'
import { getProduct, productViews } from './view'

export { getProduct } from './view'

export interface ProductListQuery extends PageRequest {
  q?: string
  updatedAt?: DateRange
  webStatus?: ProductRow['webStatus']
  adminStatus?: ProductRow['adminStatus']
  collectionId?: string
}

export function listProducts(db: Queryable, query: ProductListQuery) {
  const skuMatches = searchColumns(query.q, [productVariants.sku])
  const inCollection = query.collectionId
    ? lentToProducts('collectionMembers')(query.collectionId, products.id)
    : undefined
  const where = and(
    query.q?.trim()
      ? or(
          searchColumns(query.q, [products.title]),
          inArray(
            products.id,
            db.select({ id: productVariants.productId }).from(productVariants).where(skuMatches),
          ),
        )
      : undefined,
    dateRangeCondition(products.updatedAt, query.updatedAt),
    query.webStatus ? eq(products.webStatus, query.webStatus) : undefined,
    query.adminStatus ? eq(products.adminStatus, query.adminStatus) : undefined,
    inCollection ? inArray(products.id, inCollection.productIds) : undefined,
  )
  const order: SQL[] = inCollection ? [inCollection.sortOrder] : []
  const total = db.select({ n: count() }).from(products).where(where).get()?.n ?? 0
  const rows = db
    .select()
    .from(products)
    .where(where)
    .orderBy(...order, asc(sql`lower(${products.title})`), asc(products.id))
    .limit(query.limit)
    .offset(offsetOf(query))
    .all()
  return { products: productViews(db, rows), total }
}

/**
 * Images keep the ids the request names (which must be this product's) and get new ones otherwise;
 * `sortOrder` defaults to the position in the list, and the list is kept in `sortOrder` order.
 */
function normalizeImages(
  input: { id?: string; src: string; sortOrder?: number }[],
  current: ProductImage[],
): ProductImage[] {
  const known = new Set(current.map((i) => i.id))
  const seen = new Set<string>()
  return input
    .map((image, i) => {
      if (image.id !== undefined && (!known.has(image.id) || seen.has(image.id)))
        throw invalid(`body/images/${i}/id`, `not an image of this product: ${image.id}`)
      const id = image.id ?? newId()
      seen.add(id)
      return { id, src: image.src, sortOrder: image.sortOrder ?? i }
    })
    .sort((a, b) => a.sortOrder - b.sortOrder)
}

function assertBundleType(type: ProductType, itemCount: number) {
  if (type !== 'Bundle' && itemCount > 0)
    throw invalid('body/bundleItems', 'only a product of type Bundle has bundle items')
}

const slugColumns = { id: products.id, slug: products.slug }

export function createProduct(db: Db, actor: Actor, input: CreateProductInput): ProductView {
  return inWriteTransaction(db, (tx) => {
    assertVendorExists(tx, input.vendorId)
    assertBundleType(input.type, input.bundleItems?.length ?? 0)
    if (input.bundleItems) assertBundleValid(tx, undefined, input.bundleItems)
    const defaults = variantDefaults(input.type)
    assertInventoryValid(
      tx,
      input.variants.map((v) => ({ hasInventory: v.hasInventory ?? defaults.hasInventory, ...v })),
    )
    assertSkusFree(
      tx,
      input.variants.map((v, i) => ({ sku: v.sku, path: `body/variants/${i}/sku` })),
    )
    if (input.slug && slugTaken(tx, products, slugColumns, input.slug))
      throw conflict(`product slug "${input.slug}" is already in use`, { slug: input.slug })

    const now = nowIso()
    const id = newId()
    tx.insert(products)
      .values({
        id,
        title: input.title,
        subTitle: input.subTitle ?? null,
        image: input.image ?? null,
        type: input.type,
        departmentId: input.departmentId ?? null,
        vendorId: input.vendorId ?? null,
        teaser: input.teaser ?? null,
        content: input.content ?? null,
        webStatus: input.webStatus ?? 'Available',
        adminStatus: input.adminStatus ?? 'Available',
        slug: input.slug ?? uniqueSlug(tx, products, slugColumns, input.title, 'product'),
        metaData: input.metaData ?? {},
        productTemplateId: input.productTemplateId ?? null,
        images: normalizeImages(input.images ?? [], []),
        availableTo: input.security?.availableTo ?? 'Everyone',
        createdAt: now,
        updatedAt: now,
      })
      .run()
    input.variants.forEach((variant, i) => {
      const row = newVariantRow(newId(), id, input.type, variant, i)
      tx.insert(productVariants).values(row).run()
      if (variant.inventory) replaceInventory(tx, row.id, variant.inventory)
    })
    if (input.bundleItems) replaceBundle(tx, id, input.bundleItems)

    const view = getProduct(tx, id)
    recordWrite(tx, actor, {
      action: 'product.create',
      entityType: 'product',
      entityId: id,
      metadata: { product: view },
      event: view,
    })
    return view
  })
}

function writeVariants(
  tx: Queryable,
  scope: LocationScope,
  before: ProductView,
  type: ProductType,
  inputs: NonNullable<UpdateProductInput['variants']>,
) {
  const current = new Map(before.variants.map((v) => [v.id, v]))
  const seen = new Set<string>()
  inputs.forEach((v, i) => {
    if (v.id === undefined) return
    if (!current.has(v.id) || seen.has(v.id))
      throw invalid(`body/variants/${i}/id`, `not a variant of this product: ${v.id}`)
    seen.add(v.id)
  })
  const fresh = inputs.map((v, i) => (v.id === undefined ? asNewVariant(v, i) : undefined))
  const defaults = variantDefaults(type)
  assertInventoryValid(
    tx,
    inputs.map((v) => ({
      hasInventory: v.hasInventory ?? (v.id ? current.get(v.id)!.hasInventory : defaults.hasInventory),
      inventory: v.inventory,
    })),
  )
  assertSkusFree(
    tx,
    inputs.map((v, i) => ({ sku: v.sku ?? current.get(v.id!)!.sku, path: `body/variants/${i}/sku` })),
    before.id,
  )
  const dropped = variantsDropped(tx, before.id, [...seen])
  assertNotInBundles(tx, dropped, before.id)

  if (dropped.length > 0) tx.delete(productVariants).where(inArray(productVariants.id, dropped)).run()
  // SKUs may move between this product's variants: park the changing ones first.
  for (const v of inputs) {
    if (v.id && v.sku !== undefined && v.sku !== current.get(v.id)!.sku)
      tx.update(productVariants)
        .set({ sku: `\u0000${v.id}` })
        .where(eq(productVariants.id, v.id))
        .run()
  }
  const now = nowIso()
  inputs.forEach((v, i) => {
    if (v.id === undefined) {
      const row = newVariantRow(newId(), before.id, type, fresh[i]!, i)
      tx.insert(productVariants).values(row).run()
      if (v.inventory) replaceInventory(tx, row.id, v.inventory)
      return
    }
    const { id, inventory, ...fields } = v
    const was = current.get(id)!
    const { inventory: _, ...wasFields } = was
    if (Object.keys(diffFields(wasFields, fields)).length > 0)
      tx.update(productVariants)
        .set({ ...fields, updatedAt: now })
        .where(eq(productVariants.id, id))
        .run()
    // No longer tracked: no stock anywhere. Otherwise the rows sent replace those in scope.
    if (fields.hasInventory === false) replaceInventory(tx, id, [])
    else if (inventory) replaceInventory(tx, id, inventory, scope)
  })
}

export function updateProduct(
  db: Db,
  actor: Actor,
  scope: LocationScope,
  id: string,
  patch: UpdateProductInput,
): ProductView {
  return inWriteTransaction(db, (tx) => {
    const before = getProduct(tx, id)
    const type = patch.type ?? before.type
    if (patch.vendorId !== undefined) assertVendorExists(tx, patch.vendorId)
    if (patch.slug !== undefined && slugTaken(tx, products, slugColumns, patch.slug, id))
      throw conflict(`product slug "${patch.slug}" is already in use`, { slug: patch.slug })
    const bundleItems = patch.bundleItems ?? before.bundleItems
    assertBundleType(type, bundleItems.length)
    if (patch.bundleItems) assertBundleValid(tx, id, patch.bundleItems)
    if (type === 'Bundle' && before.type !== 'Bundle')
      assertNotInBundles(
        tx,
        before.variants.map((v) => v.id),
        id,
        'this product is part of a bundle, so it cannot become a bundle itself',
      )

    const { variants, bundleItems: _b, images, security, ...scalar } = patch
    if (variants) writeVariants(tx, scope, before, type, variants)
    if (patch.bundleItems) replaceBundle(tx, id, patch.bundleItems)
    const columns: Partial<ProductRow> = { ...scalar }
    if (images) columns.images = normalizeImages(images, before.images)
    if (security) columns.availableTo = security.availableTo
    if (Object.keys(columns).length > 0) tx.update(products).set(columns).where(eq(products.id, id)).run()

    const fresh = getProduct(tx, id)
    const sent = Object.fromEntries(
      Object.keys(patch).map((key) => [key, fresh[key as keyof ProductView]]),
    ) as Partial<ProductView>
    const changes = diffFields(before, sent)
    if (Object.keys(changes).length === 0) return before
    const updatedAt = nowIso()
    tx.update(products).set({ updatedAt }).where(eq(products.id, id)).run()
    const after = { ...fresh, updatedAt }
    recordWrite(tx, actor, {
      action: 'product.update',
      entityType: 'product',
      entityId: id,
      metadata: { changes },
      event: after,
    })
    return after
  })
}

/**
 * Deletes a product with its variants, inventory rows and bundle items, and takes it out of
 * every collection. A product whose variants are part of another product's bundle is 409.
 */
export function deleteProduct(db: Db, actor: Actor, id: string): void {
  inWriteTransaction(db, (tx) => {
    const view = getProduct(tx, id)
    assertNotInBundles(
      tx,
      view.variants.map((v) => v.id),
      id,
    )
    assertProductDeletable(tx, id)
    const collectionIds = lentToProducts('collectionIdsOf')(tx, id)
    tx.delete(products).where(eq(products.id, id)).run()
    recordWrite(tx, actor, {
      action: 'product.delete',
      entityType: 'product',
      entityId: id,
      metadata: { product: view, removedFromCollectionIds: collectionIds },
      event: { ...view, removedFromCollectionIds: collectionIds },
    })
  })
}
