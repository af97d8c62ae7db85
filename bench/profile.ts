// In-process request loops for profiling one scenario without HTTP or wrk in the way:
//
//   bun --cpu-prof --cpu-prof-dir=/tmp/prof bench/profile.ts read 20000
//   bun bench/profile-summary.ts /tmp/prof/*.cpuprofile
//
// Scenarios: read (GET /customers/{id}), create (POST /customers), orders (GET /order?limit=50),
// spread (GET /customers/{id} uniformly over many tenants; third argument the tenant count,
// TENANT_POOL_SIZE from the environment, default 192). PROFILE_DATA=<dir> keeps the prepared data
// there and reuses it on the next run, so a profile of the loop is not mostly preparation.
// Prints microseconds per request (a rough figure: one loop, no concurrency, the profiler on).
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { configFor } from '../src/config'
import { createApp } from '../src/server'
import { type BenchTenant, prepareManyTenants, prepareSingleTenant } from './prepare'

const [scenario = 'read', countArg = '20000', ordersArg = '20000'] = process.argv.slice(2)

/** GET /customers/{id} of a tenant, as its owner. */
const customerReadOf = (t: BenchTenant) =>
  new Request(`http://localhost/customers/${t.customerId}`, {
    headers: { authorization: `Bearer ${t.token}`, 'x-tenant-id': t.tenantId },
  })
const count = Number(countArg)
const kept = process.env.PROFILE_DATA
const dataDir = kept ?? mkdtempSync(join(tmpdir(), 'ro-profile-'))
const preparedList = join(dataDir, 'prepared.json')
try {
  let spread: BenchTenant[] = []
  let bench: BenchTenant
  if (kept && existsSync(preparedList)) {
    ;({ spread, bench } = JSON.parse(readFileSync(preparedList, 'utf8')))
  } else {
    if (scenario === 'spread') spread = await prepareManyTenants(dataDir, Number(ordersArg))
    bench = spread[0] ?? (await prepareSingleTenant(dataDir, Number(ordersArg)))
    if (kept) writeFileSync(preparedList, JSON.stringify({ spread, bench }))
  }
  const { app, platform } = await createApp({
    config: configFor({
      dataDir,
      logLevel: 'error',
      backupIntervalSeconds: 0,
      tenantPoolSize: Number(process.env.TENANT_POOL_SIZE ?? 192),
    }),
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
    spread: () => customerReadOf(spread[Math.floor(Math.random() * spread.length)]!),
  }
  const make = requestFor[scenario]
  if (!make) throw new Error(`unknown scenario ${scenario}: read, create, orders or spread`)
  const first = await app.handle(make())
  if (first.status >= 300) throw new Error(`${scenario}: ${first.status} ${await first.text()}`)
  // WARM=1: every tenant of the spread answered once first, so the loop measures steady state.
  if (process.env.WARM) for (const t of spread) await app.handle(customerReadOf(t))
  const started = performance.now()
  const each: number[] = []
  for (let i = 0; i < count; i++) {
    const at = performance.now()
    await (await app.handle(make())).arrayBuffer()
    each.push(performance.now() - at)
    // Let timers run between requests, as a server's event loop would.
    if (i % 8 === 0) await new Promise((resolve) => setImmediate(resolve))
  }
  const us = ((performance.now() - started) * 1000) / count
  each.sort((a, b) => a - b)
  const quantile = (q: number) => `${each[Math.floor(q * (each.length - 1))]!.toFixed(2)} ms`
  console.log(`p50 ${quantile(0.5)}, p99 ${quantile(0.99)}, p99.9 ${quantile(0.999)}, max ${quantile(1)}`)
  const wal = Bun.file(`${dataDir}/${bench.tenantId}.sqlite-wal`)
  if (await wal.exists()) console.log(`WAL ${Math.round(wal.size / 1024)} KB`)
  Bun.gc(true)
  const rssMb = Math.round(process.memoryUsage().rss / 2 ** 20)
  console.log(
    `${scenario}: ${count} requests, ${us.toFixed(1)} µs each, ${platform.pool.openCount} open, RSS ${rssMb} MB`,
  )
  platform.close()
} finally {
  if (!kept) rmSync(dataDir, { recursive: true, force: true })
}
