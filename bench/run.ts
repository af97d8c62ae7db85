// The benchmark suite: every scenario against a bare Bun.serve baseline measured in the same run
// on the same machine, reported as ratios. Usage: npm run bench [-- --duration 10 --connections 32]
// Writes bench/results/latest.json and prints a Markdown table for bench/README.md.

import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { configFor } from '../src/config'
import { accessSources } from '../src/modules/access'
import { openPlatform } from '../src/platform/platform'
import { type RunningServer, sourceCommand, startListening, startServer } from '../tests/e2e/cli'
import { type LoadResult, load, rssMb } from './lib'
import { OWNER_SUBJECT, prepareManyTenants, prepareSingleTenant } from './prepare'

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '32' },
    orders: { type: 'string', default: '100000' },
    tenants: { type: 'string', default: '1000' },
  },
})
const duration = Number(values.duration)
const connections = Number(values.connections)
const orderCount = Number(values.orders)
const tenantCount = Number(values.tenants)
const serverEnv = { LOG_LEVEL: 'error', BACKUP_INTERVAL: '0' }

async function tokenFor(dataDir: string) {
  const platform = await openPlatform(configFor({ dataDir }), { access: accessSources })
  try {
    return await platform.devIssuer!.mint({ subject: OWNER_SUBJECT, ttlSeconds: 86_400 })
  } finally {
    platform.close()
  }
}

async function withServer<T>(
  server: Promise<RunningServer>,
  work: (s: RunningServer) => Promise<T>,
): Promise<T> {
  const running = await server
  try {
    return await work(running)
  } finally {
    await running.stop()
  }
}

/** Compiled binary, started repeatedly on the 1000-tenant directory: ms until /health/ready is 200. */
async function startupMs(dataDir: string, runs = 5): Promise<number[]> {
  const binary = join(mkdtempSync(join(tmpdir(), 'restaurant-ops-bench-bin-')), 'restaurant-ops')
  const root = join(import.meta.dir, '..')
  const build = Bun.spawnSync(
    [
      process.execPath,
      'build',
      'src/main.ts',
      '--compile',
      '--minify-whitespace',
      '--minify-syntax',
      '--outfile',
      binary,
    ],
    { cwd: root, stdout: 'ignore', stderr: 'pipe' },
  )
  if (build.exitCode !== 0) throw new Error(build.stderr.toString())
  const times: number[] = []
  for (let i = 0; i < runs; i++) {
    const port = 39_000 + i
    const started = performance.now()
    const proc = Bun.spawn([binary, 'serve'], {
      env: { ...process.env, ...serverEnv, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1' },
      stdout: 'ignore',
      stderr: 'ignore',
    })
    for (;;) {
      try {
        const res = await fetch(`http://127.0.0.1:${port}/health/ready`)
        if (res.status === 200) break
      } catch {}
      await Bun.sleep(2)
    }
    times.push(Math.round(performance.now() - started))
    proc.kill('SIGTERM')
    await proc.exited
  }
  return times
}

const results: Record<string, LoadResult> = {}
const extra: Record<string, unknown> = {}
const run = { connections, duration }

console.error('preparing data…')
const singleDir = mkdtempSync(join(tmpdir(), 'restaurant-ops-bench-single-'))
const single = await prepareSingleTenant(singleDir, orderCount)
const manyDir = mkdtempSync(join(tmpdir(), 'restaurant-ops-bench-many-'))
const many = await prepareManyTenants(manyDir, tenantCount)
const singleToken = await tokenFor(singleDir)
const manyToken = await tokenFor(manyDir)

await withServer(
  startListening([process.execPath, join(import.meta.dir, 'baseline.ts')], {}),
  async (baseline) => {
    console.error('baseline…')
    results.baseline = await load({ ...run, url: `${baseline.url}/` })
  },
)

await withServer(startServer(sourceCommand, { ...serverEnv, DATA_DIR: singleDir }), async (server) => {
  const headers = {
    authorization: `Bearer ${singleToken}`,
    'x-tenant-id': single.tenantId,
    'content-type': 'application/json',
  }
  const vendor = await fetch(`${server.url}/vendor`, {
    method: 'POST',
    headers,
    body: '{"name":"Bench Vendor"}',
  })
  const vendorId = ((await vendor.json()) as { id: string }).id
  console.error('reads and writes…')
  results.getVendor = await load({ ...run, url: `${server.url}/vendor/${vendorId}`, headers })
  results.postVendor = await load({
    ...run,
    url: `${server.url}/vendor`,
    method: 'POST',
    headers,
    body: '{"name":"v-[<id>]"}',
  })
  results.getCustomer = await load({ ...run, url: `${server.url}/customers/${single.customerId}`, headers })
  results.postCustomer = await load({
    ...run,
    url: `${server.url}/customers`,
    method: 'POST',
    headers,
    body: '{"firstName":"Load","lastName":"Test","email":"c-[<id>]@bench.test"}',
  })
  results.listOrders = await load({ ...run, url: `${server.url}/order?limit=50`, headers })
})

await withServer(
  startServer(sourceCommand, { ...serverEnv, DATA_DIR: manyDir, TENANT_POOL_SIZE: '256' }),
  async (server) => {
    console.error(`${tenantCount} tenants…`)
    const targets = many.map((t) => ({
      path: `/customers/${t.customerId}`,
      headers: { authorization: `Bearer ${manyToken}`, 'x-tenant-id': t.tenantId },
    }))
    // Shuffled so consecutive requests hit different tenants, more than the pool holds.
    targets.sort(() => Math.random() - 0.5)
    results.manyTenants = await load({ ...run, url: server.url, targets })
    extra.rssAfterManyTenantsMb = rssMb(server.pid)
  },
)

console.error('start-up…')
extra.startupMs = await startupMs(manyDir)

const ratio = (name: string) => Math.round((results[name]!.rps / results.baseline!.rps) * 1000) / 1000
const report = {
  date: new Date().toISOString(),
  machine: {
    cpus: navigator.hardwareConcurrency,
    bun: Bun.version,
    load: (await Bun.file('/proc/loadavg').text()).trim(),
  },
  duration,
  connections,
  orderCount,
  tenantCount,
  results,
  ratios: Object.fromEntries(Object.keys(results).map((name) => [name, ratio(name)])),
  manyTenantsVsSingleRead: Math.round((results.manyTenants!.rps / results.getCustomer!.rps) * 1000) / 1000,
  ...extra,
}
mkdirSync(join(import.meta.dir, 'results'), { recursive: true })
writeFileSync(join(import.meta.dir, 'results', 'latest.json'), JSON.stringify(report, null, 2))

console.log('| scenario | req/s | p50 ms | p99 ms | non-2xx | ratio to baseline |')
console.log('|---|---|---|---|---|---|')
for (const [name, r] of Object.entries(results)) {
  console.log(`| ${name} | ${r.rps} | ${r.p50} | ${r.p99} | ${r.non2xx} | ${ratio(name).toFixed(3)} |`)
}
console.log(`\nmany tenants / single-tenant read: ${report.manyTenantsVsSingleRead}`)
console.log(`RSS after many-tenant load: ${extra.rssAfterManyTenantsMb} MB`)
console.log(
  `compiled binary start-up to ready with ${tenantCount} tenants (ms): ${(extra.startupMs as number[]).join(', ')}`,
)
