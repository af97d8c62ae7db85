// Depletion by sales and its reversal on voids: service functions the orders module will call
// inside its own transaction.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import {
  type DepletionInput,
  depleteForOrderLines,
  reverseOrderDepletion,
} from '../../../src/modules/inventory/depletion'
import { type Actor, systemActor } from '../../../src/platform/foundation/actor'
import { inWriteTransaction } from '../../../src/platform/tenancy/transaction'
import { countRows, createTestApp, type TestApp } from '../../harness'
import { addLocation, expectLedgerConsistent, makeIngredient, makeProduct, receive } from './helpers'

describe('depletion', () => {
  let t: TestApp
  let actor: Actor
  let flour: any
  let cheese: any
  let basil: any
  let recipe: any
  let margherita: string

  const onHand = async (ingredientId: string, locationId = t.tenant.locationId) =>
    (await t.request('GET', `/inventory/ingredients/${ingredientId}`)).body.stocks.find(
      (s: any) => s.locationId === locationId,
    )?.onHandQuantity ?? 0
  const deplete = (input: Omit<DepletionInput, 'locationId'> & { locationId?: string }) =>
    inWriteTransaction(t.tenant.db, (tx) =>
      depleteForOrderLines(tx, actor, { locationId: t.tenant.locationId, ...input }),
    )
  const reverse = (input: { orderId: string; lineIds?: string[] }) =>
    inWriteTransaction(t.tenant.db, (tx) => reverseOrderDepletion(tx, actor, input))

  beforeEach(async () => {
    t = await createTestApp()
    actor = systemActor(t.tenant.id, 'orders', t.tenant.staff.id)
    flour = await makeIngredient(t, { name: 'Flour' })
    cheese = await makeIngredient(t, { name: 'Mozzarella' })
    basil = await makeIngredient(t, { name: 'Basil', baseUnit: 'leaf' })
    await receive(t, flour.id, { quantity: 10_000, unitCost: 2 })
    await receive(t, cheese.id, { quantity: 1_000, unitCost: 15 })
    // Basil is never received: no cost yet.
    margherita = await makeProduct(t, 'Margherita')
    recipe = (
      await t.request('POST', '/inventory/recipes', {
        body: {
          kind: 'menu_item',
          title: 'Margherita (2 pizzas)',
          productId: margherita,
          yieldQuantity: 2,
          components: [
            { ingredientId: flour.id, quantity: 500 },
            { ingredientId: cheese.id, quantity: 251 },
            { ingredientId: basil.id, quantity: 1 },
          ],
        },
      })
    ).body
  })
  afterEach(() => t.close())

  test('depletes each component × quantity / yield, rounded half up, as sale movements costed at the average', async () => {
    const movements = deplete({
      orderId: 'order-1',
      lines: [
        { lineId: 'line-1', productId: margherita, quantity: 3 },
        { lineId: 'line-2', productId: 'prod-without-recipe', quantity: 5 },
      ],
    })
    // 3 pizzas of a 2-pizza recipe: flour 750, cheese 376.5 -> 377, basil 1.5 -> 2.
    expect(
      movements.map((m) => [m.ingredientId, m.movementType, m.quantityDelta, m.unitCost, m.totalCost]),
    ).toEqual([
      [flour.id, 'sale', -750, 2, -1500],
      [cheese.id, 'sale', -377, 15, -5655],
      [basil.id, 'sale', -2, null, null],
    ])
    for (const m of movements)
      expect(m).toMatchObject({ referenceType: 'order', referenceId: 'order-1', referenceLineId: 'line-1' })
    expect(await onHand(flour.id)).toBe(9_250)
    expect(await onHand(cheese.id)).toBe(623)
    expect(await onHand(basil.id)).toBe(-2) // sales may take stock below zero
    expectLedgerConsistent(t.tenant.db)
  })

  test('one unit of a 2-yield recipe takes half; a component that rounds to nothing is skipped', async () => {
    const one = deplete({ orderId: 'o', lines: [{ lineId: 'l', productId: margherita, quantity: 1 }] })
    // flour 250, cheese 125.5 -> 126, basil 0.5 -> 1.
    expect(one.map((m) => m.quantityDelta)).toEqual([-250, -126, -1])
    await t.request('PUT', `/inventory/recipes/${recipe.id}`, { body: { yieldQuantity: 4 } })
    const quarter = deplete({
      orderId: 'o2',
      lines: [{ lineId: 'l', productId: margherita, quantity: 1 }],
    })
    // flour 125, cheese 62.75 -> 63, basil 0.25 -> nothing.
    expect(quarter.map((m) => [m.ingredientId, m.quantityDelta])).toEqual([
      [flour.id, -125],
      [cheese.id, -63],
    ])
  })

  test('inactive recipes and unknown products deplete nothing and record nothing', async () => {
    await t.request('POST', `/inventory/recipes/${recipe.id}/deactivate`)
    const before = countRows(t.tenant.db, 'audit_entries')
    expect(deplete({ orderId: 'o', lines: [{ lineId: 'l', productId: margherita, quantity: 1 }] })).toEqual(
      [],
    )
    expect(countRows(t.tenant.db, 'inventory_movements')).toBe(2) // the two receivings
    expect(countRows(t.tenant.db, 'audit_entries')).toBe(before)
  })

  test('a retried submission does not deplete a line twice; new lines of the order still deplete', async () => {
    const line1 = { lineId: 'line-1', productId: margherita, quantity: 2 }
    expect(deplete({ orderId: 'o', lines: [line1] })).toHaveLength(3)
    expect(deplete({ orderId: 'o', lines: [line1] })).toEqual([])
    expect(
      deplete({ orderId: 'o', lines: [line1, { ...line1, lineId: 'line-2', quantity: 4 }] }),
    ).toHaveLength(3)
    expect(await onHand(flour.id)).toBe(10_000 - 500 - 1000)
  })

  test('depletes at the order location; the average is shared', async () => {
    const patio = addLocation(t.tenant, 'Patio')
    deplete({
      orderId: 'o',
      locationId: patio,
      lines: [{ lineId: 'l', productId: margherita, quantity: 2 }],
    })
    expect(await onHand(flour.id, patio)).toBe(-500)
    expect(await onHand(flour.id)).toBe(10_000)
    expect(() => deplete({ orderId: 'o2', locationId: 'nope', lines: [] })).toThrow(/unknown location/)
  })

  test('a void reverses the sale movements exactly, at their own cost, once', async () => {
    deplete({ orderId: 'o', lines: [{ lineId: 'line-1', productId: margherita, quantity: 3 }] })
    // A later receiving moves the average; the reversal still uses the sale's cost.
    await receive(t, cheese.id, { quantity: 623, unitCost: 25 }) // (623×15 + 623×25) / 1246 = 20
    const reversals = reverse({ orderId: 'o' })
    expect(
      reversals.map((m) => [m.ingredientId, m.movementType, m.quantityDelta, m.unitCost, m.totalCost]),
    ).toEqual([
      [flour.id, 'sale_reversal', 750, 2, 1500],
      [cheese.id, 'sale_reversal', 377, 15, 5655],
      [basil.id, 'sale_reversal', 2, null, null],
    ])
    expect(reverse({ orderId: 'o' })).toEqual([])
    expect(await onHand(flour.id)).toBe(10_000)
    expect(await onHand(basil.id)).toBe(0)
    expect((await t.request('GET', `/inventory/ingredients/${cheese.id}`)).body.weightedAverageUnitCost).toBe(
      20,
    )
    const sales = t.tenant.db.$client
      .query("SELECT sum(total_cost) AS net FROM inventory_movements WHERE reference_id = 'o'")
      .get() as { net: number }
    expect(sales.net).toBe(0)
    expectLedgerConsistent(t.tenant.db)
  })

  test('voiding some lines reverses only them; a resubmitted line depletes again', async () => {
    deplete({
      orderId: 'o',
      lines: [
        { lineId: 'a', productId: margherita, quantity: 2 },
        { lineId: 'b', productId: margherita, quantity: 4 },
      ],
    })
    expect(await onHand(flour.id)).toBe(8_500)
    expect(reverse({ orderId: 'o', lineIds: ['b'] }).map((m) => m.referenceLineId)).toEqual(['b', 'b', 'b'])
    expect(await onHand(flour.id)).toBe(9_500)
    expect(
      deplete({ orderId: 'o', lines: [{ lineId: 'b', productId: margherita, quantity: 4 }] }),
    ).toHaveLength(3)
    expect(await onHand(flour.id)).toBe(8_500)
    expect(reverse({ orderId: 'o' })).toHaveLength(6)
    expect(await onHand(flour.id)).toBe(10_000)
    expect(reverse({ orderId: 'other-order' })).toEqual([])
  })

  test('reversal uses what was depleted, not the recipe as it is now', async () => {
    deplete({ orderId: 'o', lines: [{ lineId: 'l', productId: margherita, quantity: 2 }] })
    await t.request('PUT', `/inventory/recipes/${recipe.id}`, {
      body: { components: [{ ingredientId: cheese.id, quantity: 999 }] },
    })
    reverse({ orderId: 'o' })
    expect(await onHand(flour.id)).toBe(10_000)
    expect(await onHand(cheese.id)).toBe(1_000)
  })

  test("depletion joins the caller's transaction: a failed order submission leaves no trace", () => {
    const before = countRows(t.tenant.db, 'inventory_movements')
    const audits = countRows(t.tenant.db, 'audit_entries')
    expect(() =>
      inWriteTransaction(t.tenant.db, (tx) => {
        depleteForOrderLines(tx, actor, {
          orderId: 'o',
          locationId: t.tenant.locationId,
          lines: [{ lineId: 'l', productId: margherita, quantity: 1 }],
        })
        throw new Error('payment declined')
      }),
    ).toThrow('payment declined')
    expect(countRows(t.tenant.db, 'inventory_movements')).toBe(before)
    expect(countRows(t.tenant.db, 'audit_entries')).toBe(audits)
    const stock = t.tenant.db.$client
      .query('SELECT sum(on_hand_quantity) AS n FROM ingredient_stocks')
      .get() as { n: number }
    expect(stock.n).toBe(11_000)
  })

  test('a sale reversal cannot be recorded twice for one sale, even bypassing the service', () => {
    const [sale] = deplete({
      orderId: 'o',
      lines: [{ lineId: 'l', productId: margherita, quantity: 1 }],
    })
    reverse({ orderId: 'o' })
    expect(() =>
      t.tenant.db.$client
        .query(
          `INSERT INTO inventory_movements (id, ingredient_id, location_id, movement_type, quantity_delta, reverses_movement_id, occurred_at, resulting_on_hand_quantity, created_at)
           VALUES ('dup', ?, ?, 'sale_reversal', 250, ?, 'x', 0, 'x')`,
        )
        .run(sale!.ingredientId, sale!.locationId, sale!.id),
    ).toThrow(/UNIQUE/)
  })

  test('depletion and reversal are audited against the order and emit inventory events', () => {
    deplete({ orderId: 'o', lines: [{ lineId: 'l', productId: margherita, quantity: 2 }] })
    reverse({ orderId: 'o' })
    const audit = t.tenant.db.$client
      .query(
        "SELECT action, entity_type, entity_id, staff_user_id FROM audit_entries WHERE entity_type = 'order' ORDER BY seq",
      )
      .all()
    expect(audit).toEqual([
      { action: 'inventory.deplete', entity_type: 'order', entity_id: 'o', staff_user_id: t.tenant.staff.id },
      {
        action: 'inventory.deplete_reversal',
        entity_type: 'order',
        entity_id: 'o',
        staff_user_id: t.tenant.staff.id,
      },
    ])
    const events = t.tenant.db.$client
      .query(
        "SELECT action, aggregate_id, payload FROM outbox_events WHERE object = 'inventory' ORDER BY seq",
      )
      .all() as { action: string; aggregate_id: string; payload: string }[]
    expect(events.map((e) => [e.action, e.aggregate_id, JSON.parse(e.payload).movements.length])).toEqual([
      ['deplete', 'o', 3],
      ['deplete_reversal', 'o', 3],
    ])
  })

  test('sale movements show in the ingredient movement list with their order reference', async () => {
    deplete({ orderId: 'o', lines: [{ lineId: 'l', productId: margherita, quantity: 2 }] })
    const list = (await t.request('GET', `/inventory/ingredients/${flour.id}/movements`)).body
    expect(list.movements[0]).toMatchObject({
      movementType: 'sale',
      quantityDelta: -500,
      referenceType: 'order',
      referenceId: 'o',
      referenceLineId: 'l',
      resultingOnHandQuantity: 9_500,
    })
  })
})
