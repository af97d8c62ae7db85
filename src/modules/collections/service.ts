import { type AnyColumn, and, asc, count, eq, inArray, type SQL, sql } from 'drizzle-orm'
import { diffFields } from '../../platform/audit/diff'
import { recordWrite } from '../../platform/audit/record-write'
import type { Actor } from '../../platform/foundation/actor'
import { newId, nowIso } from '../../platform/foundation/ids'
import { offsetOf, type PageRequest, searchColumns } from '../../platform/foundation/paging'
import { ApiError, conflict, invalid, notFound } from '../../platform/foundation/problem'
import { slugTaken, uniqueSlug } from '../../platform/slug'
import type { Db } from '../../platform/tenancy/databases'
import { calendarOfTenant } from '../../platform/tenancy/time-zones'
import { inWriteTransaction, type Queryable } from '../../platform/tenancy/transaction'
import { existingProductIds } from '../products'
import { assertConditionShape, type ConditionShape } from '../tags'
import { matchingProductIds } from './dynamic'
import {
  type CollectionView,
  type CreateCollectionInput,
  productConditionFields,
  type UpdateCollectionInput,
} from './model'
import { type CollectionRow, collectionProducts, collections } from './schema'

const slugColumns = { id: collections.id, slug: collections.slug }

function collectionViews(db: Queryable, rows: CollectionRow[]): CollectionView[] {
  if (rows.length === 0) return []
  const members = Map.groupBy(
    db
      .select()
      .from(collectionProducts)
      .where(
        inArray(
          collectionProducts.collectionId,
          rows.map((r) => r.id),
        ),
      )
      .orderBy(asc(collectionProducts.sortOrder))
      .all(),
    (m) => m.collectionId,
  )
  return rows.map((row) => ({
    id: row.id,
    title: row.title,
    type: row.type,
    appliesToCondition: row.appliesToCondition,
    conditions: row.conditions,
    content: row.content,
    webStatus: row.webStatus,
    adminStatus: row.adminStatus,
    slug: row.slug,
    featureImage: row.featureImage,
    seo: { title: row.seoTitle, description: row.seoDescription },
    productIds: (members.get(row.id) ?? []).map((m) => m.productId),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  }))
}

/** The ids of the collections a product is a member of: what coupons for a collection match. */
export function collectionIdsOfProduct(db: Queryable, productId: string): string[] {
  return db
    .select({ id: collectionProducts.collectionId })
    .from(collectionProducts)
    .where(eq(collectionProducts.productId, productId))
    .all()
    .map((r) => r.id)
}

/** The products a collection holds, and their display order in it, for the product list. */
export function collectionMembers(
  collectionId: string,
  productId: AnyColumn,
): { productIds: SQL; sortOrder: SQL } {
  const { collectionId: collection, productId: member, sortOrder } = collectionProducts
  return {
    productIds: sql`(SELECT ${member} FROM ${collectionProducts} WHERE ${collection} = ${collectionId})`,
    sortOrder: sql`(SELECT ${sortOrder} FROM ${collectionProducts} WHERE ${collection} = ${collectionId} AND ${member} = ${productId})`,
  }
}

export function listCollections(
  db: Queryable,
  query: {
    q?: string
    webStatus?: CollectionRow['webStatus']
    adminStatus?: CollectionRow['adminStatus']
    productId?: string
  } & PageRequest,
) {
  const where = and(
    searchColumns(query.q, [collections.title, collections.slug]),
    query.webStatus ? eq(collections.webStatus, query.webStatus) : undefined,
    query.adminStatus ? eq(collections.adminStatus, query.adminStatus) : undefined,
    query.productId
      ? inArray(
          collections.id,
          db
            .select({ id: collectionProducts.collectionId })
            .from(collectionProducts)
            .where(eq(collectionProducts.productId, query.productId)),
        )
      : undefined,
  )
  const total = db.select({ n: count() }).from(collections).where(where).get()?.n ?? 0
  const rows = db
    .select()
    .from(collections)
    .where(where)
    .orderBy(asc(sql`lower(${collections.title})`), asc(collections.id))
    .limit(query.limit)
    .offset(offsetOf(query))
    .all()
  return { collections: collectionViews(db, rows), total }
}

/** Which of these ids name a collection of the tenant. */
export function existingCollectionIds(db: Queryable, ids: readonly string[]): Set<string> {
  if (ids.length === 0) return new Set()
  return new Set(
    db
      .select({ id: collections.id })
      .from(collections)
      .where(inArray(collections.id, [...new Set(ids)]))
      .all()
      .map((r) => r.id),
  )
}

export const collectionExists = (db: Queryable, id: string): boolean =>
  db.select({ id: collections.id }).from(collections).where(eq(collections.id, id)).get() !== undefined

export function getCollection(db: Queryable, id: string): CollectionView {
  const row = db.select().from(collections).where(eq(collections.id, id)).get()
  if (!row) throw notFound('collection', id)
  return collectionViews(db, [row])[0]!
}

/** Every product id must be a product of the tenant: 400 naming each unknown one. */
function assertProductsExist(tx: Queryable, productIds: string[]) {
  if (productIds.length === 0) return
  const known = existingProductIds(tx, productIds)
  const errors = productIds.flatMap((id, i) =>
    known.has(id) ? [] : [{ path: `body/productIds/${i}`, message: `no product ${id}` }],
  )
  if (errors.length > 0)
    throw new ApiError('validation_failed', `${errors[0]!.path}: ${errors[0]!.message}`, { errors })
}

function replaceMembers(tx: Queryable, collectionId: string, productIds: string[]) {
  tx.delete(collectionProducts).where(eq(collectionProducts.collectionId, collectionId)).run()
  if (productIds.length === 0) return
  tx.insert(collectionProducts)
    .values(productIds.map((productId, sortOrder) => ({ collectionId, productId, sortOrder })))
    .run()
}

/**
 * Checks a whole collection's type and conditions (Dynamic ones take no `productIds`) and answers
 * the shape with the products it holds: the list sent (Manual) or its conditions' matches.
 */
function membershipOf(
  tx: Queryable,
  actor: Actor,
  shape: ConditionShape,
  productIds: string[] | undefined,
): ConditionShape & { productIds: string[] | undefined } {
  const valid = assertConditionShape(productConditionFields, 'Product', 'collections', shape)
  if (valid.type === 'Manual') {
    if (productIds) assertProductsExist(tx, productIds)
    return { ...valid, productIds }
  }
  if (productIds)
    throw invalid('body/productIds', 'a Dynamic collection holds the products its conditions match')
  return { ...valid, productIds: matchingProductIds(tx, valid, calendarOfTenant(actor.tenantId)) }
}

export function createCollection(db: Db, actor: Actor, input: CreateCollectionInput): CollectionView {
  return inWriteTransaction(db, (tx) => {
    if (input.slug && slugTaken(tx, collections, slugColumns, input.slug))
      throw conflict(`collection slug "${input.slug}" is already in use`, { slug: input.slug })
    const { productIds, ...shape } = membershipOf(
      tx,
      actor,
      {
        type: input.type ?? 'Manual',
        appliesToCondition: input.appliesToCondition ?? null,
        conditions: input.conditions ?? [],
      },
      input.productIds,
    )
    const now = nowIso()
    const id = newId()
    tx.insert(collections)
      .values({
        id,
        title: input.title,
        ...shape,
        content: input.content ?? null,
        webStatus: input.webStatus ?? 'Available',
        adminStatus: input.adminStatus ?? 'Available',
        slug: input.slug ?? uniqueSlug(tx, collections, slugColumns, input.title, 'collection'),
        featureImage: input.featureImage ?? null,
        seoTitle: input.seo?.title ?? null,
        seoDescription: input.seo?.description ?? null,
        createdAt: now,
        updatedAt: now,
      })
      .run()
    replaceMembers(tx, id, productIds ?? [])
    const view = getCollection(tx, id)
    recordWrite(tx, actor, {
      action: 'collection.create',
      entityType: 'collection',
      entityId: id,
      metadata: { collection: view },
      event: view,
    })
    return view
  })
}

export function updateCollection(
  db: Db,
  actor: Actor,
  id: string,
  patch: UpdateCollectionInput,
): CollectionView {
  return inWriteTransaction(db, (tx) => {
    const before = getCollection(tx, id)
    if (patch.slug !== undefined && slugTaken(tx, collections, slugColumns, patch.slug, id))
      throw conflict(`collection slug "${patch.slug}" is already in use`, { slug: patch.slug })
    const {
      seo,
      productIds: sent,
      type: _type,
      appliesToCondition: _applies,
      conditions: _conditions,
      ...scalar
    } = patch
    const type = patch.type ?? before.type
    // Switching to Manual drops the conditions (the products held stay, as the Manual list).
    const switchedToManual = type === 'Manual' && before.type === 'Dynamic'
    const { productIds, ...shape } = membershipOf(
      tx,
      actor,
      {
        type,
        appliesToCondition:
          patch.appliesToCondition !== undefined
            ? patch.appliesToCondition
            : switchedToManual
              ? null
              : before.appliesToCondition,
        conditions: patch.conditions ?? (switchedToManual ? [] : before.conditions),
      },
      sent,
    )
    const wanted: Partial<CollectionView> = { ...scalar, ...shape }
    if (seo) wanted.seo = { ...before.seo, ...seo }
    if (productIds) wanted.productIds = productIds
    const changes = diffFields(before, wanted)
    if (Object.keys(changes).length === 0) return before
    tx.update(collections)
      .set({
        ...scalar,
        ...shape,
        ...(seo?.title !== undefined ? { seoTitle: seo.title } : {}),
        ...(seo?.description !== undefined ? { seoDescription: seo.description } : {}),
        updatedAt: nowIso(),
      })
      .where(eq(collections.id, id))
      .run()
    if (productIds) replaceMembers(tx, id, productIds)
    const after = getCollection(tx, id)
    recordWrite(tx, actor, {
      action: 'collection.update',
      entityType: 'collection',
      entityId: id,
      metadata: { changes },
      event: after,
    })
    return after
  })
}

/** Deletes the collection and its memberships; the products stay. */
export function deleteCollection(db: Db, actor: Actor, id: string): void {
  inWriteTransaction(db, (tx) => {
    const view = getCollection(tx, id)
    tx.delete(collections).where(eq(collections.id, id)).run()
    recordWrite(tx, actor, {
      action: 'collection.delete',
      entityType: 'collection',
      entityId: id,
      metadata: { collection: view },
      event: view,
    })
  })
}
