// The arithmetic of inventory costing, in integers only (BigInt where products can pass 2^53).
//
// Rules (also stated in the OpenAPI descriptions):
// - Quantities are integers in the ingredient's base unit; costs are integer minor units per
//   base unit.
// - The weighted-average unit cost is kept per ingredient over the stock of every location. A
//   receiving of q units at cost c onto Q units on hand at average a gives
//   round((a·Q + c·q) / (Q + q)), rounded half up to a whole minor unit. When nothing is on hand
//   (Q <= 0, stock sold below zero included) or there is no average yet, the average becomes c.
// - Outflows (waste, sales, counts down) and counts up are costed at the current average and do
//   not change it; a sale reversal is costed at the sale's own unit cost.
import { divideHalfUp } from '../../platform/foundation/rounding'

export interface AverageInput {
  /** The current average, or null when the ingredient has never been received. */
  average: number | null
  /** Units on hand over every location before the receiving. */
  onHand: number
  quantity: number
  unitCost: number
}

export function weightedAverageAfterReceiving({ average, onHand, quantity, unitCost }: AverageInput): number {
  if (quantity < 1) throw new RangeError('quantity must be at least 1')
  if (average === null || onHand <= 0) return unitCost
  const value = BigInt(average) * BigInt(onHand) + BigInt(unitCost) * BigInt(quantity)
  return Number(divideHalfUp(value, BigInt(onHand + quantity)))
}

/** The cost of a movement: quantityDelta × unitCost, null when there is no unit cost. */
export function movementCost(quantityDelta: number, unitCost: number | null): number | null {
  return unitCost === null ? null : quantityDelta * unitCost
}

/**
 * Base units a sale of `soldQuantity` takes of a component that needs `componentQuantity` per
 * batch of `yieldQuantity`: componentQuantity × soldQuantity / yieldQuantity, rounded half up.
 */
export function depletionQuantity(
  componentQuantity: number,
  soldQuantity: number,
  yieldQuantity: number,
): number {
  return Number(divideHalfUp(BigInt(componentQuantity) * BigInt(soldQuantity), BigInt(yieldQuantity)))
}
