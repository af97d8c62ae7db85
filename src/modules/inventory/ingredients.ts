// Ingredients: create, read, list, update, deactivate and reactivate.
import { and, asc, count, eq, inArray, type SQL, sql } from 'drizzle-orm'
import { diffFields } from '../../platform/audit/diff'
import { recordWrite } from '../../platform/audit/record-write'
import {
  everyLocation,
  type LocationScope,
  reaches,
  scopeCondition,
} from '../../platform/auth/location-scope'
import type { Actor } from '../../platform/foundation/actor'
import { newId, nowIso } from '../../platform/foundation/ids'
import { offsetOf, type PageRequest, searchColumns } from '../../platform/foundation/paging'
import { conflict, invalid, notFound } from '../../platform/foundation/problem'
import type { Db } from '../../platform/tenancy/databases'
import { rowById } from '../../platform/tenancy/row-by-id'
import { inWriteTransaction, type Queryable } from '../../platform/tenancy/transaction'
import { findLocation } from '../locations'
import { findVendor } from '../vendors'
import type { CreateIngredientInput, UpdateIngredientInput } from './model'
import {
  type IngredientRow,
  type IngredientStockRow,
  ingredientStocks,
  ingredients,
  inventoryMovements,
  recipeComponents,
  recipes,
} from './schema'

export type Ingredient = IngredientRow & { stocks: IngredientStockRow[] }

export function findIngredientRow(db: Queryable, id: string): IngredientRow | undefined {
  return rowById(db, ingredients, id)
}

export function getIngredientRow(db: Queryable, id: string): IngredientRow {
  const row = findIngredientRow(db, id)
  if (!row) throw notFound('ingredient', id)
  return row
}

function stocksOf(db: Queryable, ingredientIds: string[], locations: LocationScope, locationId?: string) {
  const byIngredient = new Map<string, IngredientStockRow[]>(ingredientIds.map((i) => [i, []]))
  if (ingredientIds.length === 0) return byIngredient
  const rows = db
    .select()
    .from(ingredientStocks)
    .where(
      and(
        inArray(ingredientStocks.ingredientId, ingredientIds),
        scopeCondition(locations, ingredientStocks.locationId),
        locationId ? eq(ingredientStocks.locationId, locationId) : undefined,
      ),
    )
    .orderBy(asc(ingredientStocks.createdAt), asc(ingredientStocks.id))
    .all()
  for (const row of rows) byIngredient.get(row.ingredientId)?.push(row)
  return byIngredient
}

/** The ingredient with its stock at every location (as events carry it). */
export function withStocks(db: Queryable, row: IngredientRow): Ingredient {
  return { ...row, stocks: stocksOf(db, [row.id], everyLocation).get(row.id) ?? [] }
}

/** What a request sees of an ingredient: its stocks at the locations the request reaches. */
export const seenFrom = (locations: LocationScope, ingredient: Ingredient): Ingredient =>
  locations.all
    ? ingredient
    : { ...ingredient, stocks: ingredient.stocks.filter((stock) => reaches(locations, stock.locationId)) }

export const getIngredient = (db: Queryable, id: string, locations: LocationScope): Ingredient =>
  seenFrom(locations, withStocks(db, getIngredientRow(db, id)))

/** A body or query `locationId` must name a location of the tenant. */
export function assertLocation(db: Queryable, locationId: string, path: string) {
  if (!findLocation(db, locationId)) throw invalid(path, `unknown location "${locationId}"`)
}

export function listIngredients(
  db: Queryable,
  query: { q?: string; locationId?: string; active?: boolean } & PageRequest,
  locations: LocationScope,
) {
  if (query.locationId) assertLocation(db, query.locationId, 'query/locationId')
  const conditions: (SQL | undefined)[] = [
    searchColumns(query.q, [ingredients.code, ingredients.name, ingredients.description]),
  ]
  if (query.active !== undefined) conditions.push(eq(ingredients.active, query.active))
  const where = and(...conditions)
  const total = db.select({ n: count() }).from(ingredients).where(where).get()?.n ?? 0
  const rows = db
    .select()
    .from(ingredients)
    .where(where)
    .orderBy(asc(sql`lower(${ingredients.name})`), asc(ingredients.id))
    .limit(query.limit)
    .offset(offsetOf(query))
    .all()
  const stocks = stocksOf(
    db,
    rows.map((r) => r.id),
    locations,
    query.locationId,
  )
  return { items: rows.map((r) => ({ ...r, stocks: stocks.get(r.id) ?? [] })), page: { total } }
}

function assertCodeFree(db: Queryable, code: string, exceptId?: string) {
  const holder = db
    .select({ id: ingredients.id })
    .from(ingredients)
    .where(eq(sql`lower(${ingredients.code})`, code.toLowerCase()))
    .get()
  if (holder && holder.id !== exceptId) throw conflict(`ingredient code "${code}" is already in use`)
}

function assertVendor(db: Queryable, vendorId: string | null | undefined) {
  if (!vendorId) return
  const vendor = findVendor(db, vendorId)
  if (!vendor) throw invalid('body/vendorId', `unknown vendor "${vendorId}"`)
  if (vendor.status !== 'active') throw invalid('body/vendorId', `vendor "${vendorId}" is inactive`)
}

export function createIngredient(db: Db, actor: Actor, input: CreateIngredientInput): Ingredient {
  return inWriteTransaction(db, (tx) => {
    assertCodeFree(tx, input.code)
    assertVendor(tx, input.vendorId)
    const now = nowIso()
    const row = tx
      .insert(ingredients)
      .values({
        id: newId(),
        code: input.code,
        name: input.name,
        description: input.description ?? null,
        baseUnit: input.baseUnit,
        purchaseUnit: input.purchaseUnit ?? null,
        purchaseUnitQuantity: input.purchaseUnitQuantity ?? 1,
        latestUnitCost: null,
        weightedAverageUnitCost: null,
        vendorId: input.vendorId ?? null,
        active: true,
        createdAt: now,
        updatedAt: now,
      })
      .returning()
      .get()
    const result = { ...row, stocks: [] }
    recordWrite(tx, actor, {
      action: 'ingredient.create',
      entityType: 'ingredient',
      entityId: row.id,
      metadata: { ingredient: row },
      event: result,
    })
    return result
  })
}

export function updateIngredient(
  db: Db,
  actor: Actor,
  locations: LocationScope,
  id: string,
  patch: UpdateIngredientInput,
): Ingredient {
  return inWriteTransaction(db, (tx) => {
    const before = getIngredientRow(tx, id)
    if (patch.code !== undefined) assertCodeFree(tx, patch.code, id)
    if (patch.vendorId !== undefined && patch.vendorId !== before.vendorId) assertVendor(tx, patch.vendorId)
    const changes = diffFields(before, patch)
    if (Object.keys(changes).length === 0) return seenFrom(locations, withStocks(tx, before))
    if (changes.baseUnit) {
      const moved = tx
        .select({ id: inventoryMovements.id })
        .from(inventoryMovements)
        .where(eq(inventoryMovements.ingredientId, id))
        .limit(1)
        .get()
      if (moved)
        throw conflict('the base unit cannot change once the ingredient has movements', {
          baseUnit: before.baseUnit,
        })
    }
    const row = tx
      .update(ingredients)
      .set({ ...patch, updatedAt: nowIso() })
      .where(eq(ingredients.id, id))
      .returning()
      .get()
    const result = withStocks(tx, row)
    recordWrite(tx, actor, {
      action: 'ingredient.update',
      entityType: 'ingredient',
      entityId: id,
      metadata: { changes },
      event: result,
    })
    return seenFrom(locations, result)
  })
}

/** Deactivating is refused while an active recipe uses the ingredient or produces it. */
export function setIngredientActive(
  db: Db,
  actor: Actor,
  locations: LocationScope,
  id: string,
  active: boolean,
): Ingredient {
  return inWriteTransaction(db, (tx) => {
    const before = getIngredientRow(tx, id)
    if (before.active === active) return seenFrom(locations, withStocks(tx, before))
    if (!active) {
      const using = tx
        .selectDistinct({ id: recipes.id, title: recipes.title })
        .from(recipes)
        .leftJoin(recipeComponents, eq(recipeComponents.recipeId, recipes.id))
        .where(
          and(
            eq(recipes.active, true),
            sql`(${recipeComponents.ingredientId} = ${id} OR ${recipes.outputIngredientId} = ${id})`,
          ),
        )
        .orderBy(asc(recipes.title))
        .all()
      if (using.length > 0)
        throw conflict('the ingredient is used by active recipes; change or deactivate them first', {
          recipes: using,
        })
    }
    const row = tx
      .update(ingredients)
      .set({ active, updatedAt: nowIso() })
      .where(eq(ingredients.id, id))
      .returning()
      .get()
    const action = active ? 'reactivate' : 'deactivate'
    const result = withStocks(tx, row)
    recordWrite(tx, actor, {
      action: `ingredient.${action}`,
      entityType: 'ingredient',
      entityId: id,
      event: result,
    })
    return seenFrom(locations, result)
  })
}
