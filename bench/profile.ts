// In-process request loops for profiling one scenario without HTTP or wrk in the way:
//
//   bun --cpu-prof --cpu-prof-dir=/tmp/prof bench/profile.ts read 20000
//   bun bench/profile-summary.ts /tmp/prof/*.cpuprofile
//
// Scenarios: read (GET /customers/{id}), create (POST /customers), orders (GET /order?limit=50).
// Prints microseconds per request (a rough figure: one loop, no concurrency, the profiler on).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { configFor } from '../src/config'
import { createApp } from '../src/server'
import { prepareSingleTenant } from './prepare'

const [scenario = 'read', countArg = '20000', ordersArg = '20000'] = process.argv.slice(2)
const count = Number(countArg)
const dataDir = mkdtempSync(join(tmpdir(), 'ro-profile-'))
try {
  const bench = await prepareSingleTenant(dataDir, Number(ordersArg))
  const { app, platform } = await createApp({
    config: configFor({ dataDir, logLevel: 'error', backupIntervalSeconds: 0 }),
  })
  const headers = {
    authorization: `Bearer ${bench.token}`,
    'x-tenant-id': bench.tenantId,
    'content-type': 'application/json',
  }
  let n = 0
  const requestFor: Record<string, () => Request> = {
    read: () => new Request(`http://localhost/customers/${bench.customerId}`, { headers }),
    create: () =>
      new Request('http://localhost/customers', {
        method: 'POST',
        headers,
        body: JSON.stringify({ firstName: 'Grace', lastName: 'Hopper', email: `g${++n}@profile.test` }),
      }),
    orders: () => new Request('http://localhost/order?limit=50', { headers }),
  }
  const make = requestFor[scenario]
  if (!make) throw new Error(`unknown scenario ${scenario}: read, create or orders`)
  const first = await app.handle(make())
  if (first.status >= 300) throw new Error(`${scenario}: ${first.status} ${await first.text()}`)
  const started = performance.now()
  for (let i = 0; i < count; i++) await (await app.handle(make())).arrayBuffer()
  const us = ((performance.now() - started) * 1000) / count
  console.log(`${scenario}: ${count} requests, ${us.toFixed(1)} µs each`)
  platform.close()
} finally {
  rmSync(dataDir, { recursive: true, force: true })
}
