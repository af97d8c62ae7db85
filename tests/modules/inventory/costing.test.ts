// The costing arithmetic, worked by hand and checked with properties.
import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { depletionQuantity, weightedAverageAfterReceiving } from '../../../src/modules/inventory/costing'

describe('weighted average after a receiving', () => {
  test('hand-worked sequence over several receivings', () => {
    // 10 @ 100 onto nothing: the average is the cost.
    let avg = weightedAverageAfterReceiving({ average: null, onHand: 0, quantity: 10, unitCost: 100 })
    expect(avg).toBe(100)
    // 5 @ 130 onto 10 @ 100: (1000 + 650) / 15 = 110 exactly.
    avg = weightedAverageAfterReceiving({ average: avg, onHand: 10, quantity: 5, unitCost: 130 })
    expect(avg).toBe(110)
    // 7 @ 101 onto 15 @ 110: (1650 + 707) / 22 = 107.136... -> 107.
    avg = weightedAverageAfterReceiving({ average: avg, onHand: 15, quantity: 7, unitCost: 101 })
    expect(avg).toBe(107)
    // 3 @ 99 onto 10 @ 107 (after 12 wasted): (1070 + 297) / 13 = 105.15... -> 105.
    avg = weightedAverageAfterReceiving({ average: avg, onHand: 10, quantity: 3, unitCost: 99 })
    expect(avg).toBe(105)
    // 1 @ 112 onto 13 @ 105: (1365 + 112) / 14 = 105.5 -> 106 (half up).
    avg = weightedAverageAfterReceiving({ average: avg, onHand: 13, quantity: 1, unitCost: 112 })
    expect(avg).toBe(106)
  })

  test('nothing or less than nothing on hand: the new cost replaces the average', () => {
    expect(weightedAverageAfterReceiving({ average: 106, onHand: 0, quantity: 4, unitCost: 50 })).toBe(50)
    expect(weightedAverageAfterReceiving({ average: 106, onHand: -3, quantity: 4, unitCost: 50 })).toBe(50)
  })

  test('large values stay exact (products beyond 2^53)', () => {
    // 9e8 units at 9e8 each plus 1 unit at 0: (8.1e17) / (9e8 + 1) = 899999999.000...
    expect(
      weightedAverageAfterReceiving({ average: 900_000_000, onHand: 900_000_000, quantity: 1, unitCost: 0 }),
    ).toBe(899_999_999)
  })

  test('property: the average is the exact weighted mean rounded half up, between the two costs', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1_000_000_000 }),
        fc.integer({ min: 1, max: 1_000_000_000 }),
        fc.integer({ min: 1, max: 1_000_000_000 }),
        fc.integer({ min: 0, max: 1_000_000_000 }),
        (average, onHand, quantity, unitCost) => {
          const avg = weightedAverageAfterReceiving({ average, onHand, quantity, unitCost })
          const value = BigInt(average) * BigInt(onHand) + BigInt(unitCost) * BigInt(quantity)
          const units = BigInt(onHand + quantity)
          const twiceError = 2n * (value - BigInt(avg) * units)
          expect(twiceError >= -units && twiceError < units).toBe(true)
          expect(avg).toBeGreaterThanOrEqual(Math.min(average, unitCost))
          expect(avg).toBeLessThanOrEqual(Math.max(average, unitCost))
        },
      ),
    )
  })

  test('property: receiving at the current average leaves it unchanged', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.integer({ min: 1, max: 1_000_000 }),
        (average, onHand, quantity) => {
          expect(weightedAverageAfterReceiving({ average, onHand, quantity, unitCost: average })).toBe(
            average,
          )
        },
      ),
    )
  })
})

describe('depletion quantity', () => {
  test('component × sold / yield, rounded half up', () => {
    expect(depletionQuantity(120, 2, 1)).toBe(240)
    expect(depletionQuantity(1000, 1, 10)).toBe(100)
    expect(depletionQuantity(100, 1, 3)).toBe(33) // 33.3
    expect(depletionQuantity(100, 2, 3)).toBe(67) // 66.7
    expect(depletionQuantity(3, 1, 2)).toBe(2) // 1.5 -> 2
    expect(depletionQuantity(1, 1, 4)).toBe(0) // 0.25 -> nothing
  })
})
