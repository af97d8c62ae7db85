// One tenant's writes (or reads) with one worker and with two, in alternation: the driver of issue
// 39's passes (bench/README.md, tenth to fourteenth; `write-driver.ts` until the fourteenth). Each
// run starts `serve` on a fresh data directory, warms up, then measures wrk `create` (or `GET
// /customers/{id}`) and, beside it, what the suite does not show: the tenant's WAL log (sampled every
// 200 ms, to see it start over), the CPU of each process, and how the kernel split wrk's
// connections between the workers (SO_REUSEPORT hashes each connection to one of them).
//
//   bun bench/workers-driver.ts [pairs=3] [--scenario create|read] [--seconds 10] [--connections 32]
//                               [--rate N] [--tenants N]
//
// `--rate N` paces wrk at N requests a second in all (bench/wrk/paced.lua): both set-ups then meet
// the same traffic, and their tails compare at it rather than each at its own saturation.
// `--tenants N` (create only) spreads the writes uniformly over N tenants, as a host's are; the WAL
// column is then the first tenant's.
//
// Each line is one run: WORKERS, req/s, p50 and p99 (ms), the WAL's mean and largest size (MB),
// the CPU seconds of the primary and each worker, and each worker's connections half-way through.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { tenantDatabasePath } from '../src/platform/tenancy/databases'
import { walLogBytes } from '../src/platform/tenancy/wal-log'
import { sourceCommand, startServer } from '../tests/e2e/cli'
import { processCpuSeconds, processTree, requireWrk, wrk } from './lib'
import { prepareManyTenants, prepareSingleTenant, writeTargets } from './prepare'

const { values, positionals } = parseArgs({
  options: {
    scenario: { type: 'string', default: 'create' },
    seconds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '32' },
    rate: { type: 'string' },
    tenants: { type: 'string', default: '1' },
  },
  allowPositionals: true,
})
const pairs = Number(positionals[0] ?? 3)
const seconds = Number(values.seconds)
const connections = Number(values.connections)
const rate = values.rate === undefined ? undefined : Number(values.rate)
if (values.scenario !== 'create' && values.scenario !== 'read')
  throw new Error(`--scenario is create or read, not ${values.scenario}`)
const reads = values.scenario === 'read'
const tenantCount = Number(values.tenants)
if (reads && tenantCount !== 1) throw new Error('--tenants is for --scenario create')

/** How many established connections on `port` each process holds, in the order of `pids`. */
function connectionsByProcess(port: string, pids: number[]): number[] {
  const sockets = Bun.spawnSync(['ss', '-tnpH', 'state', 'established', `( sport = :${port} )`])
  const owners = [...sockets.stdout.toString().matchAll(/pid=(\d+)/g)].map((match) => Number(match[1]))
  return pids.map((pid) => owners.filter((owner) => owner === pid).length)
}

/** CPU seconds used so far by each process of a `serve` (the primary first), by pid. */
const cpuByProcess = (pid: number) =>
  new Map(processTree(pid).map((member) => [member, processCpuSeconds(member)]))

async function measure(workers: number, run: number) {
  const dataDir = mkdtempSync(join(tmpdir(), 'restaurant-ops-workers-driver-'))
  try {
    const tenants =
      tenantCount === 1
        ? [await prepareSingleTenant(dataDir, 100)]
        : await prepareManyTenants(dataDir, tenantCount)
    const tenant = tenants[0]!
    const spread = tenantCount > 1 ? writeTargets(join(dataDir, 'targets.tsv'), tenants) : null
    const server = await startServer(sourceCommand, {
      DATA_DIR: dataDir,
      WORKERS: String(workers),
      LOG_LEVEL: 'error',
      BACKUP_INTERVAL: '0',
    })
    try {
      const load = (secondsOfLoad: number, prefix: string, paced?: number) =>
        wrk({
          rate: paced,
          ...(reads
            ? {
                url: `${server.url}/customers/${tenant.customerId}`,
                script: 'fixed',
                args: [tenant.token, tenant.tenantId],
              }
            : spread
              ? { url: `${server.url}/`, script: 'spread-create', args: [spread, prefix] }
              : { url: `${server.url}/`, script: 'create', args: [tenant.token, tenant.tenantId, prefix] }),
          seconds: secondsOfLoad,
          threads: 2,
          connections,
        })
      await load(3, `warm${run}-`)
      const database = tenantDatabasePath(dataDir, tenant.tenantId)
      const walMb: number[] = []
      const sampler = setInterval(() => walMb.push(walLogBytes(database) / 1e6), 200)
      const before = cpuByProcess(server.pid)
      const measured = load(seconds, `run${run}-`, rate)
      await Bun.sleep((seconds * 1000) / 2)
      const split = connectionsByProcess(
        new URL(server.url).port,
        [...before.keys()].slice(workers > 1 ? 1 : 0),
      )
      const result = await measured
      const after = cpuByProcess(server.pid)
      clearInterval(sampler)
      const cpu = [...after].map(([pid, used]) => (used - (before.get(pid) ?? 0)).toFixed(1))
      const mean = walMb.reduce((sum, size) => sum + size, 0) / Math.max(1, walMb.length)
      console.log(
        `WORKERS=${workers}  ${result.rps} req/s  p50 ${result.p50Ms} ms  p99 ${result.p99Ms} ms  ` +
          `WAL ${mean.toFixed(0)} MB mean, ${Math.max(0, ...walMb).toFixed(0)} MB most  CPU s ${cpu.join(' / ')}  connections ${split.join('/')}` +
          (result.non2xx || result.socketErrors
            ? `  (${result.non2xx} non-2xx, ${result.socketErrors} socket errors)`
            : ''),
      )
    } finally {
      await server.stop()
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
  }
}

requireWrk()
for (let run = 0; run < pairs; run++) for (const workers of [1, 2]) await measure(workers, run)
