// The running invariant under concurrency: the sum of movement deltas equals on-hand, every
// resulting on-hand is the running sum, and the weighted average replays exactly in recording
// order, whether the writes come as concurrent requests, from several connections, or from
// several processes writing the same tenant file.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { drizzle } from 'drizzle-orm/bun-sqlite'
import { weightedAverageAfterReceiving } from '../../../src/modules/inventory/costing'
import { depleteForOrderLines } from '../../../src/modules/inventory/depletion'
import { receiveStock, wasteStock } from '../../../src/modules/inventory/stock'
import { everyLocation } from '../../../src/platform/auth/location-scope'
import { systemActor } from '../../../src/platform/foundation/actor'
import type { ApiError } from '../../../src/platform/foundation/problem'
import { type Db, tenantDatabasePath } from '../../../src/platform/tenancy/databases'
import { openSqlite } from '../../../src/platform/tenancy/sqlite'
import { inWriteTransaction } from '../../../src/platform/tenancy/transaction'
import { createTestApp, type TestApp } from '../../harness'
import { makeTestDir, removeTestDir } from '../../temp-dirs'
import { addLocation, expectLedgerConsistent, makeIngredient, makeProduct } from './helpers'

interface Row {
  location_id: string
  movement_type: string
  quantity_delta: number
  unit_cost: number | null
}

/** Replays the ingredient's ledger in recording order and checks every cost against the rules. */
function expectAverageReplays(db: Db, ingredientId: string) {
  const rows = db.$client
    .query(
      'SELECT location_id, movement_type, quantity_delta, unit_cost FROM inventory_movements WHERE ingredient_id = ? ORDER BY seq',
    )
    .all(ingredientId) as Row[]
  let average: number | null = null
  let total = 0
  for (const m of rows) {
    if (m.movement_type === 'receiving') {
      average = weightedAverageAfterReceiving({
        average,
        onHand: total,
        quantity: m.quantity_delta,
        unitCost: m.unit_cost!,
      })
    } else if (m.movement_type !== 'sale_reversal') {
      expect(m.unit_cost).toBe(average)
    }
    total += m.quantity_delta
  }
  const stored = db.$client
    .query('SELECT weighted_average_unit_cost AS avg FROM ingredients WHERE id = ?')
    .get(ingredientId) as { avg: number | null }
  expect(stored.avg).toBe(average)
  return { total, movements: rows.length }
}

describe('inventory ledger under concurrency', () => {
  let t: TestApp
  beforeEach(async () => {
    t = await createTestApp()
  })
  afterEach(() => t.close())

  test('concurrent receivings and waste requests keep the invariant; no waste takes stock below zero', async () => {
    const second = addLocation(t.tenant)
    const flour = await makeIngredient(t)
    const requests = Array.from({ length: 60 }, (_, i) => {
      const locationId = i % 3 === 0 ? second : t.tenant.locationId
      return i % 2 === 0
        ? t.request('POST', `/inventory/ingredients/${flour.id}/receivings`, {
            body: { locationId, quantity: 1 + (i % 7), unitCost: 100 + i },
          })
        : t.request('POST', `/inventory/ingredients/${flour.id}/waste`, {
            body: { locationId, quantity: 1 + (i % 5) },
          })
    })
    const responses = await Promise.all(requests)
    const statuses = responses.map((r) => r.status)
    expect(statuses.every((s) => s === 201 || s === 409)).toBe(true)
    expect(statuses.filter((s) => s === 201).length).toBeGreaterThanOrEqual(30)
    const movements = expectLedgerConsistent(t.tenant.db)
    expect(movements).toBe(statuses.filter((s) => s === 201).length)
    expectAverageReplays(t.tenant.db, flour.id)
    const negative = t.tenant.db.$client
      .query('SELECT count(*) AS n FROM ingredient_stocks WHERE on_hand_quantity < 0')
      .get() as { n: number }
    expect(negative.n).toBe(0)
    // Every accepted waste is in the ledger exactly once, with the cost its response showed.
    for (const r of responses.filter((r) => r.status === 201)) {
      const row = t.tenant.db.$client
        .query('SELECT quantity_delta, total_cost FROM inventory_movements WHERE id = ?')
        .get(r.body.movement.id)
      expect(row).toEqual({
        quantity_delta: r.body.movement.quantityDelta,
        total_cost: r.body.movement.totalCost,
      })
    }
  })

  test('several connections to the tenant file interleave receivings, waste and sales consistently', async () => {
    const flour = await makeIngredient(t)
    const bread = await makeProduct(t, 'Bread')
    await t.request('POST', '/inventory/recipes', {
      body: {
        kind: 'menu_item',
        title: 'Bread',
        productId: bread,
        yieldQuantity: 1,
        components: [{ ingredientId: flour.id, quantity: 3 }],
      },
    })
    const path = tenantDatabasePath(t.dataDir, t.tenant.id)
    const connections = Array.from({ length: 3 }, () => {
      const sqlite = openSqlite(path, { synchronous: 'NORMAL', busyTimeoutMs: 5_000 })
      return { sqlite, db: drizzle({ client: sqlite }) as Db }
    })
    try {
      const actor = systemActor(t.tenant.id, 'test')
      const locationId = t.tenant.locationId
      let expected = 0
      for (let i = 0; i < 45; i++) {
        const { db } = connections[i % 3]!
        if (i % 5 === 4) {
          inWriteTransaction(db, (tx) =>
            depleteForOrderLines(tx, actor, {
              orderId: `o${i}`,
              locationId,
              lines: [{ lineId: 'l', productId: bread, quantity: 2 }],
            }),
          )
          expected -= 6
        } else if (i % 5 === 3) {
          try {
            wasteStock(db, actor, everyLocation, flour.id, { locationId, quantity: 4 })
            expected -= 4
          } catch (error) {
            expect((error as ApiError).code).toBe('conflict')
          }
        } else {
          // Each receiving must see the others' stock to get the average right.
          receiveStock(db, actor, everyLocation, flour.id, {
            locationId,
            quantity: 5 + i,
            unitCost: 90 + (i % 17),
          })
          expected += 5 + i
        }
      }
      const { total } = expectAverageReplays(t.tenant.db, flour.id)
      expect(total).toBe(expected)
      expect(
        (await t.request('GET', `/inventory/ingredients/${flour.id}`)).body.stocks[0].onHandQuantity,
      ).toBe(expected)
      expectLedgerConsistent(t.tenant.db)
    } finally {
      for (const c of connections) c.sqlite.close()
    }
  })

  test('several processes writing the same tenant file at once keep the invariant and the average exact', async () => {
    const flour = await makeIngredient(t)
    const path = tenantDatabasePath(t.dataDir, t.tenant.id)
    const barrier = makeTestDir('ledger-barrier')
    const writers = Array.from({ length: 4 }, (_, seed) =>
      Bun.spawn(
        [
          process.execPath,
          join(import.meta.dir, 'ledger-writer.ts'),
          path,
          t.tenant.id,
          flour.id,
          t.tenant.locationId,
          '30',
          String(seed + 1),
          barrier,
        ],
        { stdout: 'pipe', stderr: 'pipe' },
      ),
    )
    // All four loaded and connected (or one failed first: its error is asserted below), they begin together.
    while (readdirSync(barrier).length < 4 && writers.every((writer) => writer.exitCode === null))
      await Bun.sleep(5)
    writeFileSync(join(barrier, 'go'), '')
    let results: { received: number; wasted: number; refused: number }[]
    try {
      results = await Promise.all(
        writers.map(async (p) => {
          const [out, err, code] = await Promise.all([
            new Response(p.stdout).text(),
            new Response(p.stderr).text(),
            p.exited,
          ])
          expect({ code, err: code === 0 ? '' : err }).toEqual({ code: 0, err: '' })
          return JSON.parse(out.trim()) as { received: number; wasted: number; refused: number }
        }),
      )
    } finally {
      removeTestDir(barrier)
    }
    const net = results.reduce((sum, r) => sum + r.received - r.wasted, 0)
    const movements = expectLedgerConsistent(t.tenant.db)
    const { total } = expectAverageReplays(t.tenant.db, flour.id)
    expect(total).toBe(net)
    expect(movements).toBe(4 * 30 - results.reduce((n, r) => n + r.refused, 0))
    // Every process wrote, and their transactions overlapped in time: run one after another,
    // four writers would change hands only three times in the audit order.
    const subjects = t.tenant.db.$client
      .query(
        "SELECT subject FROM audit_entries WHERE action IN ('ingredient.receive', 'ingredient.waste') ORDER BY seq",
      )
      .all()
      .map((r: any) => r.subject)
    expect(new Set(subjects).size).toBe(4)
    const handovers = subjects.filter((s: string, i: number) => i > 0 && s !== subjects[i - 1]).length
    expect(handovers).toBeGreaterThan(3)
  })
})
