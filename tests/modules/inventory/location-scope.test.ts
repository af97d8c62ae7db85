// Inventory under the location rule. Ingredients have no location; their stocks and movements do.
// A caller bound to location A (a manager whose only role is there, or a `vps_` passcode session
// there) sees only A's stocks and movements and writes stock only at A.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { boundCallers } from '../../bound-callers'
import { countRows, createTestApp, type TestApp } from '../../harness'
import { addLocation, makeIngredient, receive } from './helpers'

let t: TestApp
let locationB: string
let flour: any

beforeEach(async () => {
  t = await createTestApp()
  locationB = addLocation(t.tenant, 'B')
  flour = await makeIngredient(t, { name: 'Flour' })
  await receive(t, flour.id, { quantity: 10, unitCost: 2 })
  await receive(t, flour.id, { locationId: locationB, quantity: 4, unitCost: 2 })
  // Both stocks below par: each location has one low-stock item.
  for (const location of [t.tenant.locationId, locationB]) {
    const res = await t.request('PUT', `/inventory/ingredients/${flour.id}/stocks/${location}`, {
      body: { parQuantity: 50 },
    })
    expect(res.status).toBe(200)
  }
})
afterEach(() => t.close())

const tables = ['ingredient_stocks', 'inventory_movements', 'ingredients', 'audit_entries', 'outbox_events']
const written = () => tables.map((table) => countRows(t.tenant.db, table))
const locationsOf = (stocks: { locationId: string }[]) => stocks.map((s) => s.locationId)

const callersAtA = boundCallers.map(
  ([name, bind]) => [name, () => bind(t, t.tenant, t.tenant.locationId)] as const,
)

describe.each(callersAtA)('%s', (_name, callerAtA) => {
  test("an ingredient shows only A's stock, by id, in the list and after a write", async () => {
    const as = await callerAtA()
    const got = await t.request('GET', `/inventory/ingredients/${flour.id}`, { as })
    expect(locationsOf(got.body.stocks)).toEqual([t.tenant.locationId])
    const listed = await t.request('GET', '/inventory/ingredients', { as })
    expect(listed.body.items.map((i: any) => locationsOf(i.stocks))).toEqual([[t.tenant.locationId]])
    const renamed = await t.request('PUT', `/inventory/ingredients/${flour.id}`, {
      as,
      body: { name: 'Flour 00' },
    })
    expect(locationsOf(renamed.body.stocks)).toEqual([t.tenant.locationId])
    const received = await t.request('POST', `/inventory/ingredients/${flour.id}/receivings`, {
      as,
      body: { locationId: t.tenant.locationId, quantity: 5, unitCost: 2 },
    })
    expect(received.status).toBe(201)
    expect(received.body.stock.onHandQuantity).toBe(15)
    expect(locationsOf(received.body.ingredient.stocks)).toEqual([t.tenant.locationId])
    // The event is the tenant's, not the caller's: it carries every location's stock.
    const event = t.tenant.db.$client
      .query(
        "SELECT payload FROM outbox_events WHERE object = 'ingredient' AND action = 'receive' ORDER BY seq DESC",
      )
      .get() as { payload: string }
    expect(locationsOf(JSON.parse(event.payload).ingredient.stocks).sort()).toEqual(
      [t.tenant.locationId, locationB].sort(),
    )
  })

  test("movements and low stock list only A's, and their totals count only A's", async () => {
    const as = await callerAtA()
    const movements = await t.request('GET', `/inventory/ingredients/${flour.id}/movements`, { as })
    expect(locationsOf(movements.body.movements)).toEqual([t.tenant.locationId])
    expect(movements.body.page.total).toBe(1)
    const low = await t.request('GET', '/inventory/low-stock', { as })
    expect(low.body.items.map((i: any) => i.stock.locationId)).toEqual([t.tenant.locationId])
    expect(low.body.page.total).toBe(1)
    // The owner sees both.
    expect((await t.request('GET', '/inventory/low-stock')).body.page.total).toBe(2)
    for (const path of [
      `/inventory/ingredients/${flour.id}/movements?locationId=${locationB}`,
      `/inventory/low-stock?locationId=${locationB}`,
      `/inventory/ingredients?locationId=${locationB}`,
    ]) {
      const res = await t.request('GET', path, { as })
      expect({ path, status: res.status }).toEqual({ path, status: 403 })
    }
  })

  test('stock writes naming B are 403 and write nothing', async () => {
    const as = await callerAtA()
    const before = written()
    for (const [method, path, body] of [
      ['POST', 'receivings', { locationId: locationB, quantity: 1, unitCost: 1 }],
      ['POST', 'waste', { locationId: locationB, quantity: 1 }],
      ['POST', 'counts', { locationId: locationB, countedQuantity: 0 }],
      ['PUT', `stocks/${locationB}`, { parQuantity: 1 }],
    ] as const) {
      const res = await t.request(method, `/inventory/ingredients/${flour.id}/${path}`, { as, body })
      expect({ path, status: res.status, code: res.body.code }).toEqual({
        path,
        status: 403,
        code: 'forbidden',
      })
    }
    expect(written()).toEqual(before)
  })
})
