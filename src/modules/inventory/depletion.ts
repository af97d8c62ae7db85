// Depletion of ingredients by sales, for the orders module to call inside its own transaction:
// depleteForOrderLines when an order (or more lines of it) is submitted, reverseOrderDepletion
// when lines or the order are voided.
import { and, eq, inArray, isNull } from 'drizzle-orm'
import { alias } from 'drizzle-orm/sqlite-core'
import { recordWrite, type WriteRecord } from '../../platform/audit/record-write'
import type { Actor } from '../../platform/foundation/actor'
import { invalid } from '../../platform/foundation/problem'
import { rowById } from '../../platform/tenancy/row-by-id'
import type { Queryable } from '../../platform/tenancy/transaction'
import { findLocation } from '../locations'
import { depletionQuantity } from './costing'
import { applyMovement, type Movement } from './ledger'
import {
  type InventoryMovementRow,
  ingredients,
  inventoryMovements,
  recipeComponents,
  recipes,
} from './schema'

export interface DepletionLine {
  productId: string
  /** Units sold on the line (>= 1). */
  quantity: number
  lineId: string
}

export interface DepletionInput {
  orderId: string
  locationId: string
  lines: DepletionLine[]
}

export const ORDER_REFERENCE = 'order'

/** Sale movements of the order not yet reversed, optionally only of some lines. */
function openSales(tx: Queryable, orderId: string, lineIds?: string[]): InventoryMovementRow[] {
  const reversal = alias(inventoryMovements, 'reversal')
  return tx
    .select({ sale: inventoryMovements })
    .from(inventoryMovements)
    .leftJoin(reversal, eq(reversal.reversesMovementId, inventoryMovements.id))
    .where(
      and(
        eq(inventoryMovements.referenceType, ORDER_REFERENCE),
        eq(inventoryMovements.referenceId, orderId),
        eq(inventoryMovements.movementType, 'sale'),
        lineIds ? inArray(inventoryMovements.referenceLineId, lineIds) : undefined,
        isNull(reversal.id),
      ),
    )
    .orderBy(inventoryMovements.seq)
    .all()
    .map((r) => r.sale)
}

/**
 * Records a `sale` movement at the order's location for each component of the active
 * menu_item recipe of each line's product: componentQuantity × lineQuantity / yieldQuantity base
 * units, rounded half up (nothing when that rounds to zero), costed at the weighted average.
 * Products without an active recipe deplete nothing. Stock may go below zero: a sale is never
 * refused for want of counted stock. A line that already has unreversed sale movements is
 * skipped, so a retried submission does not deplete twice. Runs in the caller's transaction.
 */
export function depleteForOrderLines(tx: Queryable, actor: Actor, input: DepletionInput): Movement[] {
  if (!findLocation(tx, input.locationId))
    throw invalid('locationId', `unknown location "${input.locationId}"`)
  const alreadyDepleted = new Set(openSales(tx, input.orderId).map((m) => m.referenceLineId))
  const movements: Movement[] = []
  for (const line of input.lines) {
    if (!Number.isSafeInteger(line.quantity) || line.quantity < 1)
      throw invalid('lines/quantity', 'line quantity must be a positive integer')
    if (alreadyDepleted.has(line.lineId)) continue
    const recipe = tx
      .select()
      .from(recipes)
      .where(
        and(eq(recipes.productId, line.productId), eq(recipes.kind, 'menu_item'), eq(recipes.active, true)),
      )
      .get()
    if (!recipe) continue
    const components = tx
      .select({ component: recipeComponents, ingredient: ingredients })
      .from(recipeComponents)
      .innerJoin(ingredients, eq(ingredients.id, recipeComponents.ingredientId))
      .where(eq(recipeComponents.recipeId, recipe.id))
      .orderBy(recipeComponents.position)
      .all()
    for (const { component, ingredient } of components) {
      const quantity = depletionQuantity(component.quantity, line.quantity, recipe.yieldQuantity)
      if (quantity === 0) continue
      const { movement } = applyMovement(tx, actor, {
        ingredient,
        locationId: input.locationId,
        movementType: 'sale',
        quantityDelta: -quantity,
        unitCost: ingredient.weightedAverageUnitCost,
        referenceType: ORDER_REFERENCE,
        referenceId: input.orderId,
        referenceLineId: line.lineId,
      })
      movements.push(movement)
    }
  }
  if (movements.length > 0) recordWrite(tx, actor, depletionWrite('deplete', input.orderId, movements))
  return movements
}

/**
 * Puts back what the order's sales took: one `sale_reversal` per unreversed sale movement (of
 * `lineIds` only, when given), at the sale's location and unit cost, leaving the weighted average
 * unchanged. Reversing twice is a no-op (a unique index holds even against concurrent voids).
 */
export function reverseOrderDepletion(
  tx: Queryable,
  actor: Actor,
  input: { orderId: string; lineIds?: string[] },
): Movement[] {
  const movements = openSales(tx, input.orderId, input.lineIds).map((sale) => {
    const ingredient = rowById(tx, ingredients, sale.ingredientId)!
    return applyMovement(tx, actor, {
      ingredient,
      locationId: sale.locationId,
      movementType: 'sale_reversal',
      quantityDelta: -sale.quantityDelta,
      unitCost: sale.unitCost,
      referenceType: ORDER_REFERENCE,
      referenceId: input.orderId,
      referenceLineId: sale.referenceLineId,
      reversesMovementId: sale.id,
    }).movement
  })
  if (movements.length > 0)
    recordWrite(tx, actor, depletionWrite('deplete_reversal', input.orderId, movements))
  return movements
}

/** Audited against the order; the event's object is `inventory`. */
function depletionWrite(action: string, orderId: string, movements: Movement[]): WriteRecord {
  return {
    action: `inventory.${action}`,
    entityType: 'order',
    entityId: orderId,
    metadata: {
      movements: movements.map((m) => ({
        id: m.id,
        ingredientId: m.ingredientId,
        quantityDelta: m.quantityDelta,
      })),
    },
    events: [{ object: 'inventory', action, aggregateId: orderId, payload: { orderId, movements } }],
  }
}
