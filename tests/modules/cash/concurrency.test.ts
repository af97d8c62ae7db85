// Lost updates: several processes, each with its own bun:sqlite connection to the tenant file,
// recording entries on one drawer at once while this process does too.
import { afterEach, beforeEach, expect, test } from 'bun:test'
import { join } from 'node:path'
import { tenantDatabasePath } from '../../../src/platform/tenancy/databases'
import { createTestApp, type TestApp } from '../../harness'
import { addEntry, drawer, openDrawer } from './helpers'

let t: TestApp
beforeEach(async () => {
  t = await createTestApp()
})
afterEach(() => t.close())

test('entries from several connections at once: every one kept, expectedBalance is their sum', async () => {
  const d = await openDrawer(t, { startingBalance: 50_000 })
  const path = tenantDatabasePath(t.dataDir, t.tenant.id)
  const worker = join(import.meta.dir, 'entry-worker.ts')
  const perWorker = 20
  const workers = Array.from({ length: 3 }, () =>
    Bun.spawn([process.execPath, worker, path, t.tenant.id, d.id, String(perWorker)], {
      stdout: 'pipe',
      stderr: 'pipe',
    }),
  )
  const here = await Promise.all(
    Array.from({ length: 10 }, (_, i) => addEntry(t, d.id, { entryType: 'cash_in', amount: 100 + i })),
  )
  expect(here.every((r) => r.status === 201)).toBe(true)
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
  const deltas = [...outputs.flat(), ...here.map((r) => r.body.entry.balanceDelta as number)]
  expect(deltas).toHaveLength(3 * perWorker + 10)
  const detail = await drawer(t, d.id)
  expect(detail.entries).toHaveLength(deltas.length)
  expect(detail.drawer.expectedBalance).toBe(50_000 + deltas.reduce((a, b) => a + b, 0))
})
