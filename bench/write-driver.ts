// One tenant's writes with one worker and with two, in alternation: the driver of issue 39's write
// passes (bench/README.md, tenth to thirteenth). Each run starts `serve` on a fresh data directory,
// warms up, then measures wrk `create` and, beside it, what the suite does not show: the tenant's
// WAL (sampled every 200 ms, to see it start over) and the CPU of each process.
//
//   bun bench/write-driver.ts [pairs=3] [--seconds 10] [--connections 32]
//
// Each line is one run: WORKERS, req/s, p50 and p99 (ms), the WAL's mean and largest size (MB),
// and the CPU seconds of the primary and each worker.
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { tenantDatabasePath } from '../src/platform/tenancy/databases'
import { sourceCommand, startServer } from '../tests/e2e/cli'
import { processCpuSeconds, processTree, requireWrk, wrk } from './lib'
import { prepareSingleTenant } from './prepare'

const { values, positionals } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '32' },
  },
  allowPositionals: true,
})
const pairs = Number(positionals[0] ?? 3)
const seconds = Number(values.seconds)
const connections = Number(values.connections)

/** CPU seconds used so far by each process of a `serve` (the primary first), by pid. */
const cpuByProcess = (pid: number) =>
  new Map(processTree(pid).map((member) => [member, processCpuSeconds(member)]))

async function measure(workers: number, run: number) {
  const dataDir = mkdtempSync(join(tmpdir(), 'restaurant-ops-write-driver-'))
  try {
    const tenant = await prepareSingleTenant(dataDir, 100)
    const server = await startServer(sourceCommand, {
      DATA_DIR: dataDir,
      WORKERS: String(workers),
      LOG_LEVEL: 'error',
      BACKUP_INTERVAL: '0',
    })
    try {
      const load = (secondsOfLoad: number, prefix: string) =>
        wrk({
          url: `${server.url}/`,
          script: 'create',
          args: [tenant.token, tenant.tenantId, prefix],
          seconds: secondsOfLoad,
          threads: 2,
          connections,
        })
      await load(3, `warm${run}-`)
      const wal = `${tenantDatabasePath(dataDir, tenant.tenantId)}-wal`
      const walMb: number[] = []
      const sampler = setInterval(
        () => walMb.push((statSync(wal, { throwIfNoEntry: false })?.size ?? 0) / 1e6),
        200,
      )
      const before = cpuByProcess(server.pid)
      const result = await load(seconds, `run${run}-`)
      const after = cpuByProcess(server.pid)
      clearInterval(sampler)
      const cpu = [...after].map(([pid, used]) => (used - (before.get(pid) ?? 0)).toFixed(1))
      const mean = walMb.reduce((sum, size) => sum + size, 0) / Math.max(1, walMb.length)
      console.log(
        `WORKERS=${workers}  ${result.rps} req/s  p50 ${result.p50Ms} ms  p99 ${result.p99Ms} ms  ` +
          `WAL ${mean.toFixed(0)} MB mean, ${Math.max(0, ...walMb).toFixed(0)} MB most  CPU s ${cpu.join(' / ')}` +
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
