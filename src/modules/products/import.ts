// One product of a bulk import (the imports family's `products` kind) with its variants: the rows
// of one product (a CSV row per variant, as Shopify and Commerce7 export them; an NDJSON line
// nesting `variants`), merged by the imports worker into one record and applied whole or not at all.
// Each variant upserts its product (by id, else slug) and itself (by id, else SKU); a new product
// needs its title. One audit entry per variant (`product.import`, naming the import, the product's
// first line and the variant); events only when asked.
import { count, eq, sql } from 'drizzle-orm'
import { diffFields } from '../../platform/audit/diff'
import { recordWrite } from '../../platform/audit/record-write'
import { type ImportedRow, type ImportOutcome, importEvents } from '../../platform/bulk-import'
import type { Actor } from '../../platform/foundation/actor'
import { newId, nowIso } from '../../platform/foundation/ids'
import { ApiError, invalid } from '../../platform/foundation/problem'
import { slugTaken, uniqueSlug } from '../../platform/slug'
import type { Db } from '../../platform/tenancy/databases'
import { inWriteTransaction, type Queryable } from '../../platform/tenancy/transaction'
import { ImportedProduct, type ImportedProductInput, type ImportedProductVariantInput } from './model'
import {
  type ProductRow,
  type ProductVariantRow,
  productBundleItems,
  products,
  productVariants,
} from './schema'
import { assertNotInBundles, newVariantRow, replaceInventory } from './variants'
import { findProductRow, getProduct } from './view'

const slugColumns = { id: products.id, slug: products.slug }

const defined = <T extends Record<string, unknown>>(value: T): Partial<T> =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>

function productOf(tx: Queryable, input: ImportedProductVariantInput): ProductRow | undefined {
  if (input.productId === undefined && input.slug === undefined)
    throw invalid(
      'slug',
      'give the product’s slug (its handle) or productId so that importing again changes nothing',
    )
  if (input.productId === undefined)
    return tx
      .select()
      .from(products)
      .where(eq(sql`lower(${products.slug})`, input.slug!.toLowerCase()))
      .get()
  if (input.slug !== undefined && slugTaken(tx, products, slugColumns, input.slug, input.productId))
    throw invalid('slug', 'another product has this slug')
  return findProductRow(tx, input.productId)
}

function variantOf(
  tx: Queryable,
  input: ImportedProductVariantInput,
  product: ProductRow | undefined,
): ProductVariantRow | undefined {
  const bySku = tx
    .select()
    .from(productVariants)
    .where(eq(sql`lower(${productVariants.sku})`, input.sku.toLowerCase()))
    .get()
  const variant =
    input.variantId === undefined
      ? bySku
      : tx.select().from(productVariants).where(eq(productVariants.id, input.variantId)).get()
  if (bySku && bySku.id !== variant?.id) throw invalid('sku', 'another variant has this SKU')
  if (variant && variant.productId !== product?.id)
    throw invalid(input.variantId === undefined ? 'sku' : 'variantId', 'this is a variant of another product')
  return variant
}

/** A type change the product's bundle ties allow: only a Bundle has items; a bundled product is none. */
function assertTypeChange(tx: Queryable, product: ProductRow, type: ProductRow['type']) {
  if (type === product.type) return
  const items = tx
    .select({ n: count() })
    .from(productBundleItems)
    .where(eq(productBundleItems.productId, product.id))
    .get()!.n
  if (items > 0) throw invalid('type', 'this Bundle has bundle items, so it stays a Bundle')
  if (type === 'Bundle') {
    const variantIds = tx
      .select({ id: productVariants.id })
      .from(productVariants)
      .where(eq(productVariants.productId, product.id))
      .all()
      .map((v) => v.id)
    assertNotInBundles(
      tx,
      variantIds,
      product.id,
      'this product is part of a bundle, so it cannot become one',
    )
  }
}

/**
 * Creates or updates a product and its variants from an import's record. It fails as a whole (an
 * ApiError naming its field: `variants/<i>/<field>` for a variant's) and leaves nothing behind.
 */
export function importProduct(
  db: Db,
  actor: Actor,
  input: ImportedProductInput,
  row: ImportedRow,
): ImportOutcome {
  const { variants, ...product } = input
  return inWriteTransaction(db, () => {
    const outcomes = variants.map((variant, i) => {
      try {
        return importProductVariant(db, actor, { ...product, ...variant }, row)
      } catch (error) {
        throw variantError(error, i)
      }
    })
    return outcomes.includes('created') ? 'created' : outcomes.includes('updated') ? 'updated' : 'unchanged'
  })
}

const variantFieldNames = new Set(Object.keys(ImportedProduct.properties.variants.items.properties))

/** A variant's error names the variant: its field under `variants/<i>`; a product field stays. */
function variantError(error: unknown, index: number): unknown {
  if (!(error instanceof ApiError)) return error
  const first = error.options.errors?.[0]
  if (!first || !variantFieldNames.has(first.path)) return error
  return new ApiError(error.code, error.detail, {
    ...error.options,
    errors: [{ ...first, path: `variants/${index}/${first.path}` }],
  })
}

/** One variant with its product's fields; the caller holds the transaction its product's others share. */
function importProductVariant(
  db: Db,
  actor: Actor,
  input: ImportedProductVariantInput,
  row: ImportedRow,
): ImportOutcome {
  return inWriteTransaction(db, (tx) => {
    const existingProduct = productOf(tx, input)
    const existingVariant = variantOf(tx, input, existingProduct)
    const now = nowIso()
    const productFields = defined({
      title: input.title,
      type: input.type,
      subTitle: input.subTitle,
      image: input.image,
      teaser: input.teaser,
      content: input.content,
      webStatus: input.webStatus,
      adminStatus: input.adminStatus,
      slug: input.slug,
    })
    const changes: Record<string, unknown> = {}

    let product: ProductRow
    if (existingProduct) {
      product = existingProduct
      if (productFields.type) assertTypeChange(tx, product, productFields.type)
      const productChanges = diffFields(product, productFields)
      if (Object.keys(productChanges).length > 0) {
        product = tx
          .update(products)
          .set({ ...productFields, updatedAt: now })
          .where(eq(products.id, product.id))
          .returning()
          .get()
        changes.product = productChanges
      }
    } else {
      if (input.title === undefined) throw invalid('title', 'a new product needs its title')
      product = tx
        .insert(products)
        .values({
          id: input.productId ?? newId(),
          title: input.title,
          subTitle: input.subTitle ?? null,
          image: input.image ?? null,
          type: input.type ?? 'General Merchandise',
          departmentId: null,
          vendorId: null,
          teaser: input.teaser ?? null,
          content: input.content ?? null,
          webStatus: input.webStatus ?? 'Available',
          adminStatus: input.adminStatus ?? 'Available',
          slug: input.slug ?? uniqueSlug(tx, products, slugColumns, input.title, 'product'),
          metaData: {},
          productTemplateId: null,
          images: [],
          availableTo: 'Everyone',
          createdAt: input.createdAt ?? now,
          updatedAt: now,
        })
        .returning()
        .get()
      changes.product = { created: true }
    }

    const variantFields = defined({
      title: input.variantTitle,
      sku: input.sku,
      price: input.price,
      comparePrice: input.comparePrice,
      costOfGood: input.costOfGood,
      bottleDeposit: input.bottleDeposit,
      upcCode: input.upcCode,
      volumeInML: input.volumeInML,
      sortOrder: input.sortOrder,
      hasInventory: input.hasInventory,
      hasShipping: input.hasShipping,
      taxType: input.taxType,
      inventoryPolicy: input.inventoryPolicy,
    })
    let variantId: string
    if (existingVariant) {
      variantId = existingVariant.id
      const variantChanges = diffFields(existingVariant, variantFields)
      if (Object.keys(variantChanges).length > 0) {
        tx.update(productVariants)
          .set({ ...variantFields, updatedAt: now })
          .where(eq(productVariants.id, variantId))
          .run()
        // No longer tracked: no stock anywhere (as a product update does).
        if (variantFields.hasInventory === false) replaceInventory(tx, variantId, [])
        changes.variant = variantChanges
      }
    } else {
      const siblings = tx
        .select({ n: count() })
        .from(productVariants)
        .where(eq(productVariants.productId, product.id))
        .get()!.n
      const created = newVariantRow(
        input.variantId ?? newId(),
        product.id,
        product.type,
        { ...variantFields, title: input.variantTitle ?? 'Default', sku: input.sku, price: input.price },
        siblings,
      )
      tx.insert(productVariants)
        .values({ ...created, createdAt: input.createdAt ?? created.createdAt })
        .run()
      variantId = created.id
      changes.variant = { created: true }
    }

    if (Object.keys(changes).length === 0) return 'unchanged'
    if (existingProduct && !changes.product)
      tx.update(products).set({ updatedAt: now }).where(eq(products.id, product.id)).run()
    const outcome: ImportOutcome = existingVariant ? 'updated' : 'created'
    const view = getProduct(tx, product.id)
    recordWrite(tx, actor, {
      action: 'product.import',
      entityType: 'product',
      entityId: product.id,
      metadata: { importId: row.importId, line: row.line, outcome, variantId, sku: input.sku, changes },
      events: importEvents(row, {
        object: 'product',
        created: !existingProduct,
        aggregateId: product.id,
        payload: () => view,
      }),
    })
    return outcome
  })
}
