// Shared set-up for the inventory tests: ingredients, a second location, and the ledger invariant.
import { expect } from 'bun:test'
import { createLocation } from '../../../src/modules/locations/service'
import { systemActor } from '../../../src/platform/foundation/actor'
import type { Db } from '../../../src/platform/tenancy/databases'
import type { TenantFixture, TestApp } from '../../harness'

let codes = 0

export async function makeIngredient(t: TestApp, body: Record<string, unknown> = {}, tenant?: TenantFixture) {
  const res = await t.request('POST', '/inventory/ingredients', {
    as: tenant?.owner,
    tenant,
    body: { code: `ING-${++codes}`, name: `Ingredient ${codes}`, baseUnit: 'g', ...body },
  })
  expect(res.status).toBe(201)
  return res.body
}

/** A product (`POST /product`) for menu-item recipes to name; answers its id. */
export async function makeProduct(t: TestApp, title = 'Margherita', tenant?: TenantFixture): Promise<string> {
  const res = await t.request('POST', '/product', {
    as: tenant?.owner,
    tenant,
    body: { title, type: 'Food', variants: [{ title, sku: `SKU-${++codes}`, price: 1200 }] },
  })
  expect(res.status).toBe(201)
  return res.body.id
}

export function addLocation(tenant: TenantFixture, name = 'Second') {
  return createLocation(tenant.db, systemActor(tenant.id, 'test'), { name, timezone: 'America/Los_Angeles' })
    .id
}

export async function receive(t: TestApp, ingredientId: string, body: Record<string, unknown>) {
  const res = await t.request('POST', `/inventory/ingredients/${ingredientId}/receivings`, {
    body: { locationId: t.tenant.locationId, ...body },
  })
  expect(res.status).toBe(201)
  return res.body
}

interface LedgerRow {
  ingredient_id: string
  location_id: string
  quantity_delta: number
  resulting_on_hand_quantity: number
}

/**
 * The ledger invariant over a whole tenant database: for every stock, the sum of its movement
 * deltas is its on-hand quantity, and each movement's resulting on-hand is the running sum in
 * recording order. Returns the number of movements checked.
 */
export function expectLedgerConsistent(db: Db): number {
  const movements = db.$client
    .query(
      'SELECT ingredient_id, location_id, quantity_delta, resulting_on_hand_quantity FROM inventory_movements ORDER BY seq',
    )
    .all() as LedgerRow[]
  const running = new Map<string, number>()
  for (const m of movements) {
    const key = `${m.ingredient_id}/${m.location_id}`
    const next = (running.get(key) ?? 0) + m.quantity_delta
    expect(m.resulting_on_hand_quantity).toBe(next)
    running.set(key, next)
  }
  const stocks = db.$client
    .query('SELECT ingredient_id, location_id, on_hand_quantity FROM ingredient_stocks')
    .all() as { ingredient_id: string; location_id: string; on_hand_quantity: number }[]
  for (const s of stocks)
    expect(s.on_hand_quantity).toBe(running.get(`${s.ingredient_id}/${s.location_id}`) ?? 0)
  return movements.length
}
