// The stock ledger's one writer: every change of on-hand goes through applyMovement, which
// appends the movement and moves the stock by exactly its delta in the caller's transaction, so
// the sum of a stock's movement deltas is always its on-hand quantity.
import { and, eq, sql } from 'drizzle-orm'
import { recordWrite } from '../../platform/audit/record-write'
import type { Actor } from '../../platform/foundation/actor'
import { newId, nowIso } from '../../platform/foundation/ids'
import { invalid } from '../../platform/foundation/problem'
import type { Queryable } from '../../platform/tenancy/transaction'
import {
  type IngredientRow,
  type IngredientStockRow,
  type InventoryMovementRow,
  ingredientStocks,
  inventoryMovements,
  type MovementType,
} from './schema'

/** A movement as the API shows it (the ledger's `seq` is internal). */
export type Movement = Omit<InventoryMovementRow, 'seq'>

export interface MovementInput {
  ingredient: IngredientRow
  locationId: string
  movementType: MovementType
  quantityDelta: number
  unitCost: number | null
  reason?: string | null
  referenceType?: string | null
  referenceId?: string | null
  referenceLineId?: string | null
  reversesMovementId?: string | null
  note?: string | null
  occurredAt?: string
  /** Counts set lastCountedAt. */
  counted?: boolean
}

export function findStock(
  db: Queryable,
  ingredientId: string,
  locationId: string,
): IngredientStockRow | undefined {
  return db
    .select()
    .from(ingredientStocks)
    .where(and(eq(ingredientStocks.ingredientId, ingredientId), eq(ingredientStocks.locationId, locationId)))
    .get()
}

/** The stock row of the pair, created at zero on first use. */
export function ensureStock(tx: Queryable, ingredientId: string, locationId: string): IngredientStockRow {
  const existing = findStock(tx, ingredientId, locationId)
  if (existing) return existing
  const now = nowIso()
  return tx
    .insert(ingredientStocks)
    .values({
      id: newId(),
      ingredientId,
      locationId,
      onHandQuantity: 0,
      parQuantity: null,
      reorderQuantity: null,
      lastCountedAt: null,
      createdAt: now,
      updatedAt: now,
    })
    .returning()
    .get()
}

/** Units on hand over every location (the quantity the weighted average is kept over). */
export function totalOnHand(db: Queryable, ingredientId: string): number {
  const row = db
    .select({ n: sql<number>`coalesce(sum(${ingredientStocks.onHandQuantity}), 0)` })
    .from(ingredientStocks)
    .where(eq(ingredientStocks.ingredientId, ingredientId))
    .get()
  return row?.n ?? 0
}

/** quantity × unitCost, refused when it would not be an exact JavaScript integer. */
export function exactCost(quantity: number, unitCost: number | null): number | null {
  if (unitCost === null) return null
  const cost = quantity * unitCost
  if (!Number.isSafeInteger(cost)) throw invalid('body/quantity', 'quantity × unit cost is too large')
  return cost
}

export function applyMovement(
  tx: Queryable,
  actor: Actor,
  input: MovementInput,
): { stock: IngredientStockRow; movement: Movement } {
  const before = ensureStock(tx, input.ingredient.id, input.locationId)
  const now = nowIso()
  const stock = tx
    .update(ingredientStocks)
    .set({
      onHandQuantity: sql`${ingredientStocks.onHandQuantity} + ${input.quantityDelta}`,
      updatedAt: now,
      ...(input.counted ? { lastCountedAt: now } : {}),
    })
    .where(eq(ingredientStocks.id, before.id))
    .returning()
    .get()
  const { seq: _seq, ...movement } = tx
    .insert(inventoryMovements)
    .values({
      id: newId(),
      ingredientId: input.ingredient.id,
      locationId: input.locationId,
      movementType: input.movementType,
      quantityDelta: input.quantityDelta,
      unitCost: input.unitCost,
      totalCost: exactCost(input.quantityDelta, input.unitCost),
      reason: input.reason ?? null,
      referenceType: input.referenceType ?? null,
      referenceId: input.referenceId ?? null,
      referenceLineId: input.referenceLineId ?? null,
      reversesMovementId: input.reversesMovementId ?? null,
      note: input.note ?? null,
      occurredAt: input.occurredAt ?? now,
      resultingOnHandQuantity: stock.onHandQuantity,
      createdAt: now,
    })
    .returning()
    .get()
  const par = stock.parQuantity
  if (par !== null && before.onHandQuantity >= par && stock.onHandQuantity < par) {
    recordWrite(tx, actor, {
      action: 'ingredient_stock.low',
      entityType: 'ingredient_stock',
      entityId: stock.id,
      metadata: {
        ingredientId: input.ingredient.id,
        locationId: stock.locationId,
        parQuantity: par,
        onHandQuantity: { from: before.onHandQuantity, to: stock.onHandQuantity },
      },
      event: {
        ingredientId: input.ingredient.id,
        code: input.ingredient.code,
        name: input.ingredient.name,
        stock,
      },
    })
  }
  return { stock, movement }
}
