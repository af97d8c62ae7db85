// Model-based property: any sequence of receivings, waste and counts over two locations, applied
// through the real services and database, matches a plain model of on-hand and weighted-average
// cost, and keeps the ledger invariant.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import fc from 'fast-check'
import { createIngredient } from '../../../src/modules/inventory/ingredients'
import { countStock, receiveStock, wasteStock } from '../../../src/modules/inventory/stock'
import { everyLocation } from '../../../src/platform/auth/location-scope'
import { systemActor } from '../../../src/platform/foundation/actor'
import { ApiError } from '../../../src/platform/foundation/problem'
import { createTestApp, type TestApp } from '../../harness'
import { addLocation, expectLedgerConsistent } from './helpers'

type Op =
  | { kind: 'receive'; loc: 0 | 1; quantity: number; unitCost: number }
  | { kind: 'waste'; loc: 0 | 1; quantity: number }
  | { kind: 'count'; loc: 0 | 1; counted: number }

const loc = fc.constantFrom<0 | 1>(0, 1)
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('receive' as const),
    loc,
    quantity: fc.integer({ min: 1, max: 5_000 }),
    unitCost: fc.integer({ min: 0, max: 100_000 }),
  }),
  fc.record({ kind: fc.constant('waste' as const), loc, quantity: fc.integer({ min: 1, max: 3_000 }) }),
  fc.record({ kind: fc.constant('count' as const), loc, counted: fc.integer({ min: 0, max: 5_000 }) }),
)

let t: TestApp
let locations: [string, string]
beforeAll(async () => {
  t = await createTestApp()
  locations = [t.tenant.locationId, addLocation(t.tenant)]
})
afterAll(() => t.close())

let run = 0

test('property: on-hand and weighted average follow the model; the ledger stays consistent', () => {
  const actor = systemActor(t.tenant.id, 'property')
  fc.assert(
    fc.property(fc.array(op, { minLength: 1, maxLength: 14 }), (ops) => {
      const ingredient = createIngredient(t.tenant.db, actor, {
        code: `P-${++run}`,
        name: 'Prop',
        baseUnit: 'g',
      })
      const onHand = [0, 0]
      let average: number | null = null
      for (const o of ops) {
        const locationId = locations[o.loc]
        if (o.kind === 'receive') {
          const total = onHand[0]! + onHand[1]!
          // The model: exact rational mean, rounded half up, by plain integer reasoning.
          if (average === null || total <= 0) average = o.unitCost
          else {
            const value: number = average * total + o.unitCost * o.quantity
            const units = total + o.quantity
            average = Math.floor(value / units) + (2 * (value % units) >= units ? 1 : 0)
          }
          const r = receiveStock(t.tenant.db, actor, everyLocation, ingredient.id, {
            locationId,
            quantity: o.quantity,
            unitCost: o.unitCost,
          })
          onHand[o.loc]! += o.quantity
          expect(r.movement.totalCost).toBe(o.quantity * o.unitCost)
        } else if (o.kind === 'waste') {
          if (o.quantity > onHand[o.loc]!) {
            expect(() =>
              wasteStock(t.tenant.db, actor, everyLocation, ingredient.id, {
                locationId,
                quantity: o.quantity,
              }),
            ).toThrow(ApiError)
            continue
          }
          const r = wasteStock(t.tenant.db, actor, everyLocation, ingredient.id, {
            locationId,
            quantity: o.quantity,
          })
          onHand[o.loc]! -= o.quantity
          expect(r.movement.unitCost).toBe(average)
          // 0 - x, not -x: at a zero cost, -x is -0, which toBe (Object.is) tells apart from 0.
          expect(r.movement.totalCost).toBe(average === null ? null : 0 - o.quantity * average)
        } else {
          const r = countStock(t.tenant.db, actor, everyLocation, ingredient.id, {
            locationId,
            countedQuantity: o.counted,
          })
          expect(r.movement.quantityDelta).toBe(o.counted - onHand[o.loc]!)
          onHand[o.loc] = o.counted
        }
        const stocks = t.tenant.db.$client
          .query('SELECT location_id, on_hand_quantity FROM ingredient_stocks WHERE ingredient_id = ?')
          .all(ingredient.id) as { location_id: string; on_hand_quantity: number }[]
        for (const s of stocks) expect(s.on_hand_quantity).toBe(onHand[locations.indexOf(s.location_id)]!)
        const stored = t.tenant.db.$client
          .query('SELECT weighted_average_unit_cost AS avg FROM ingredients WHERE id = ?')
          .get(ingredient.id) as { avg: number | null }
        expect(stored.avg).toBe(average)
      }
    }),
    {
      numRuns: 40,
      // A zero-cost receiving then waste once failed the model (-0 versus 0): always run it.
      examples: [
        [
          [
            { kind: 'receive', loc: 0, quantity: 1, unitCost: 0 },
            { kind: 'waste', loc: 0, quantity: 1 },
          ],
        ],
      ],
    },
  )
  expectLedgerConsistent(t.tenant.db)
})
