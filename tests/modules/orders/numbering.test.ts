// Order numbers: per tenant, from 1, without gaps or duplicates under concurrent creates, in one
// process (concurrent requests) and across processes writing the same tenant file.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { tenantDatabasePath } from '../../../src/platform/tenancy/databases'
import { createOrdersTestApp, type OrdersTestApp } from './helpers'

let t: OrdersTestApp
beforeEach(async () => {
  t = await createOrdersTestApp()
})
afterEach(() => t.close())

const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1)

describe('order numbers', () => {
  test('concurrent requests get 1..n exactly once; another tenant counts on its own', async () => {
    const responses = await Promise.all(
      range(25).map(() => t.request('POST', '/order', { body: { locationId: t.tenant.locationId } })),
    )
    expect(responses.every((r) => r.status === 201)).toBe(true)
    expect(responses.map((r) => r.body.orderNumber).sort((a, b) => a - b)).toEqual(range(25))
    const other = await t.addTenant('other')
    const first = await t.request('POST', '/order', {
      as: other.owner,
      tenant: other,
      body: { locationId: other.locationId },
    })
    expect(first.body.orderNumber).toBe(1)
  })

  test('several processes creating on the same tenant file never share or skip a number', async () => {
    const path = tenantDatabasePath(t.dataDir, t.tenant.id)
    const worker = join(import.meta.dir, 'number-worker.ts')
    const perWorker = 15
    const workers = range(4).map(() =>
      Bun.spawn([process.execPath, worker, path, t.tenant.id, t.tenant.locationId, String(perWorker)], {
        stdout: 'pipe',
        stderr: 'pipe',
      }),
    )
    // And this process creates at the same time.
    const here = await Promise.all(
      range(10).map(() => t.request('POST', '/order', { body: { locationId: t.tenant.locationId } })),
    )
    const outputs = await Promise.all(
      workers.map(async (w) => {
        const [out, err, code] = await Promise.all([
          new Response(w.stdout).text(),
          new Response(w.stderr).text(),
          w.exited,
        ])
        if (code !== 0) throw new Error(`worker failed (${code}): ${err}`)
        return JSON.parse(out) as number[]
      }),
    )
    for (const numbers of outputs) expect(numbers).toEqual([...numbers].sort((a, b) => a - b))
    const all = [...outputs.flat(), ...here.map((r) => r.body.orderNumber as number)].sort((a, b) => a - b)
    expect(all).toEqual(range(4 * perWorker + 10))
    const stored = t.tenant.db.$client.query('SELECT order_number AS n FROM orders ORDER BY n').all() as {
      n: number
    }[]
    expect(stored.map((r) => r.n)).toEqual(range(4 * perWorker + 10))
  })
})
