// Receivings, waste, counts, stock levels, the movement ledger and the low-stock list.
import { and, asc, count, desc, eq, gte, isNotNull, lt, type SQL, sql } from 'drizzle-orm'
import { recordWrite } from '../../platform/audit/record-write'
import { type LocationScope, scopeCondition } from '../../platform/auth/location-scope'
import type { Actor } from '../../platform/foundation/actor'
import { nowIso } from '../../platform/foundation/ids'
import { offsetOf, type PageRequest } from '../../platform/foundation/paging'
import { conflict, invalid, notFound } from '../../platform/foundation/problem'
import type { Db } from '../../platform/tenancy/databases'
import { inWriteTransaction, type Queryable } from '../../platform/tenancy/transaction'
import { findLocation } from '../locations'
import { weightedAverageAfterReceiving } from './costing'
import { assertLocation, getIngredientRow, type Ingredient, seenFrom, withStocks } from './ingredients'
import { applyMovement, ensureStock, findStock, type Movement, totalOnHand } from './ledger'
import type { CountInput, ReceivingInput, StockLevelsInput, WasteInput } from './model'
import {
  type IngredientRow,
  type IngredientStockRow,
  ingredientStocks,
  ingredients,
  inventoryMovements,
} from './schema'

export interface StockChange {
  ingredient: Ingredient
  stock: IngredientStockRow
  movement: Movement
}

function prepare(tx: Queryable, ingredientId: string, locationId: string): IngredientRow {
  const ingredient = getIngredientRow(tx, ingredientId)
  assertLocation(tx, locationId, 'body/locationId')
  return ingredient
}

/** Records the change; the event carries every stock, the answer those the request reaches. */
function finish(
  tx: Queryable,
  actor: Actor,
  locations: LocationScope,
  verb: 'receive' | 'waste' | 'count',
  ingredient: IngredientRow,
  change: { stock: IngredientStockRow; movement: Movement },
): StockChange {
  const result = { ingredient: withStocks(tx, ingredient), ...change }
  recordWrite(tx, actor, {
    action: `ingredient.${verb}`,
    entityType: 'ingredient',
    entityId: ingredient.id,
    metadata: { locationId: change.stock.locationId, movement: change.movement },
    event: result,
  })
  return { ...result, ingredient: seenFrom(locations, result.ingredient) }
}

export function receiveStock(
  db: Db,
  actor: Actor,
  locations: LocationScope,
  ingredientId: string,
  input: ReceivingInput,
): StockChange {
  return inWriteTransaction(db, (tx) => {
    const ingredient = prepare(tx, ingredientId, input.locationId)
    if (!ingredient.active) throw conflict('an inactive ingredient cannot be received', { active: false })
    const average = weightedAverageAfterReceiving({
      average: ingredient.weightedAverageUnitCost,
      onHand: totalOnHand(tx, ingredient.id),
      quantity: input.quantity,
      unitCost: input.unitCost,
    })
    const change = applyMovement(tx, actor, {
      ingredient,
      locationId: input.locationId,
      movementType: 'receiving',
      quantityDelta: input.quantity,
      unitCost: input.unitCost,
      referenceType: input.invoiceNumber ? 'invoice' : null,
      referenceId: input.invoiceNumber ?? null,
      note: input.note,
    })
    const updated = tx
      .update(ingredients)
      .set({ latestUnitCost: input.unitCost, weightedAverageUnitCost: average, updatedAt: nowIso() })
      .where(eq(ingredients.id, ingredient.id))
      .returning()
      .get()
    return finish(tx, actor, locations, 'receive', updated, change)
  })
}

/** Waste may not exceed what is on hand at the location (409 with the stock). */
export function wasteStock(
  db: Db,
  actor: Actor,
  locations: LocationScope,
  ingredientId: string,
  input: WasteInput,
): StockChange {
  return inWriteTransaction(db, (tx) => {
    const ingredient = prepare(tx, ingredientId, input.locationId)
    const onHand = findStock(tx, ingredient.id, input.locationId)?.onHandQuantity ?? 0
    if (input.quantity > onHand)
      throw conflict(`cannot waste ${input.quantity}: only ${Math.max(onHand, 0)} on hand at the location`, {
        onHandQuantity: onHand,
      })
    const change = applyMovement(tx, actor, {
      ingredient,
      locationId: input.locationId,
      movementType: 'waste',
      quantityDelta: -input.quantity,
      unitCost: ingredient.weightedAverageUnitCost,
      reason: input.reason ?? 'other',
      note: input.note,
    })
    return finish(tx, actor, locations, 'waste', ingredient, change)
  })
}

/** A physical count: records the difference as a `count` movement (zero when it matched). */
export function countStock(
  db: Db,
  actor: Actor,
  locations: LocationScope,
  ingredientId: string,
  input: CountInput,
): StockChange {
  return inWriteTransaction(db, (tx) => {
    const ingredient = prepare(tx, ingredientId, input.locationId)
    const onHand = findStock(tx, ingredient.id, input.locationId)?.onHandQuantity ?? 0
    const change = applyMovement(tx, actor, {
      ingredient,
      locationId: input.locationId,
      movementType: 'count',
      quantityDelta: input.countedQuantity - onHand,
      unitCost: ingredient.weightedAverageUnitCost,
      note: input.note,
      counted: true,
    })
    return finish(tx, actor, locations, 'count', ingredient, change)
  })
}

export function setStockLevels(
  db: Db,
  actor: Actor,
  ingredientId: string,
  locationId: string,
  input: StockLevelsInput,
): IngredientStockRow {
  return inWriteTransaction(db, (tx) => {
    const ingredient = getIngredientRow(tx, ingredientId)
    if (!findLocation(tx, locationId)) throw notFound('location', locationId)
    const before = ensureStock(tx, ingredient.id, locationId)
    const stock = tx
      .update(ingredientStocks)
      .set({
        ...(input.parQuantity !== undefined ? { parQuantity: input.parQuantity } : {}),
        ...(input.reorderQuantity !== undefined ? { reorderQuantity: input.reorderQuantity } : {}),
        updatedAt: nowIso(),
      })
      .where(eq(ingredientStocks.id, before.id))
      .returning()
      .get()
    recordWrite(tx, actor, {
      action: 'ingredient.stock_levels',
      entityType: 'ingredient',
      entityId: ingredient.id,
      metadata: {
        locationId,
        parQuantity: { from: before.parQuantity, to: stock.parQuantity },
        reorderQuantity: { from: before.reorderQuantity, to: stock.reorderQuantity },
      },
      events: [{ object: 'ingredient_stock', action: 'update', aggregateId: stock.id, payload: stock }],
    })
    return stock
  })
}

/** A validated RFC 3339 instant; a day that does not exist in its month (02-30) is refused. */
function parseInstant(value: string, path: string): Date {
  const [y, m, d] = value.slice(0, 10).split('-').map(Number) as [number, number, number]
  const calendar = new Date(Date.UTC(y, m - 1, d))
  const parsed = new Date(value)
  if (Number.isNaN(parsed.getTime()) || calendar.getUTCMonth() !== m - 1 || calendar.getUTCDate() !== d)
    throw invalid(path, `"${value}" is not a valid date-time`)
  return parsed
}

export function listMovements(
  db: Queryable,
  ingredientId: string,
  query: { locationId?: string; startAt?: string; endAt?: string } & PageRequest,
  locations: LocationScope,
) {
  getIngredientRow(db, ingredientId)
  if (query.locationId) assertLocation(db, query.locationId, 'query/locationId')
  const start = query.startAt === undefined ? undefined : parseInstant(query.startAt, 'query/startAt')
  const end = query.endAt === undefined ? undefined : parseInstant(query.endAt, 'query/endAt')
  if (start && end && start.getTime() > end.getTime())
    throw invalid('query/endAt', 'endAt must not be before startAt')
  const conditions: (SQL | undefined)[] = [
    eq(inventoryMovements.ingredientId, ingredientId),
    scopeCondition(locations, inventoryMovements.locationId),
  ]
  if (query.locationId) conditions.push(eq(inventoryMovements.locationId, query.locationId))
  // occurredAt is stored as toISOString(); normalising the bounds the same way compares as text.
  if (start) conditions.push(gte(inventoryMovements.occurredAt, start.toISOString()))
  if (end) conditions.push(lt(inventoryMovements.occurredAt, end.toISOString()))
  const where = and(...conditions)
  const total = db.select({ n: count() }).from(inventoryMovements).where(where).get()?.n ?? 0
  const rows = db
    .select()
    .from(inventoryMovements)
    .where(where)
    .orderBy(desc(inventoryMovements.seq))
    .limit(query.limit)
    .offset(offsetOf(query))
    .all()
  return { movements: rows.map(({ seq: _seq, ...m }) => m), page: { total } }
}

export function listLowStock(
  db: Queryable,
  query: { locationId?: string } & PageRequest,
  locations: LocationScope,
) {
  if (query.locationId) assertLocation(db, query.locationId, 'query/locationId')
  const where = and(
    eq(ingredients.active, true),
    isNotNull(ingredientStocks.parQuantity),
    lt(ingredientStocks.onHandQuantity, ingredientStocks.parQuantity),
    scopeCondition(locations, ingredientStocks.locationId),
    query.locationId ? eq(ingredientStocks.locationId, query.locationId) : undefined,
  )
  const from = db
    .select({ n: count() })
    .from(ingredientStocks)
    .innerJoin(ingredients, eq(ingredients.id, ingredientStocks.ingredientId))
  const total = from.where(where).get()?.n ?? 0
  const rows = db
    .select({ ingredient: ingredients, stock: ingredientStocks })
    .from(ingredientStocks)
    .innerJoin(ingredients, eq(ingredients.id, ingredientStocks.ingredientId))
    .where(where)
    .orderBy(asc(sql`lower(${ingredients.name})`), asc(ingredients.id), asc(ingredientStocks.locationId))
    .limit(query.limit)
    .offset(offsetOf(query))
    .all()
  const items = rows.map(({ ingredient, stock }) => {
    const shortfall = (stock.parQuantity ?? 0) - stock.onHandQuantity
    const suggested = Math.max(stock.reorderQuantity ?? 0, shortfall)
    return {
      ingredientId: ingredient.id,
      code: ingredient.code,
      name: ingredient.name,
      baseUnit: ingredient.baseUnit,
      purchaseUnit: ingredient.purchaseUnit,
      vendorId: ingredient.vendorId,
      stock,
      shortfallQuantity: shortfall,
      suggestedOrderQuantity: suggested,
      suggestedPurchaseUnits: Math.ceil(suggested / ingredient.purchaseUnitQuantity),
    }
  })
  return { items, page: { total } }
}
