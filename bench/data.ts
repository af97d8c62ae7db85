// The data-in-and-out benchmark (issue 40), against the service run from source on a prepared
// tenant (bench/prepare.ts: 100,000 orders):
//  - import: POST /imports of N customers (CSV, with an address each), applied by the server's job,
//    while wrk reads one customer (GET /customers/{id}) in 5-second slices; the read's p99 during the
//    import against its p99 on the idle server, in the same run;
//  - export: GET /exports/orders (one row per line item) read to its end, the server's resident
//    memory sampled every 100 ms: its growth against the bytes streamed.
// Usage: bun bench/data.ts [--customers 100000] [--orders 100000] [--threads 2] [--connections 16]
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { sourceCommand, startServer } from '../tests/e2e/cli'
import { type LoadResult, loadAverage, rssMb, wrk } from './lib'
import { prepareSingleTenant } from './prepare'

const { values } = parseArgs({
  options: {
    customers: { type: 'string', default: '100000' },
    orders: { type: 'string', default: '100000' },
    threads: { type: 'string', default: '2' },
    connections: { type: 'string', default: '16' },
  },
})
const customers = Number(values.customers)
const orders = Number(values.orders)
const load = { threads: Number(values.threads), connections: Number(values.connections) }
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const dataDir = mkdtempSync(join(tmpdir(), 'restaurant-ops-bench-data-'))
try {
  const started = performance.now()
  const tenant = await prepareSingleTenant(dataDir, orders)
  console.error(`prepared ${orders} orders in ${((performance.now() - started) / 1000).toFixed(1)} s`)
  const server = await startServer(sourceCommand, {
    LOG_LEVEL: 'error',
    BACKUP_INTERVAL: '0',
    DATA_DIR: dataDir,
  })
  const headers = { authorization: `Bearer ${tenant.token}`, 'x-tenant-id': tenant.tenantId }
  const read = (seconds: number) =>
    wrk({
      url: `${server.url}/customers/${tenant.customerId}`,
      script: 'fixed',
      args: [tenant.token, tenant.tenantId],
      seconds,
      ...load,
    })
  try {
    await read(3)
    const idle = await read(10)

    // 1. Import N customers while reads go on.
    const rows = ['External ID,First Name,Last Name,Email,Address 1,City,State,Zip,Country,Created At']
    for (let i = 0; i < customers; i++)
      rows.push(
        `b-${i},Guest,Number ${i},guest${i}@bench.example,${i} Vine St,Napa,CA,94558,US,2020-01-01T00:00:00.000Z`,
      )
    const file = new File([`${rows.join('\n')}\n`], 'customers.csv', { type: 'text/csv' })
    const form = new FormData()
    form.set('file', file)
    form.set('kind', 'customers')
    form.set('mode', 'apply')
    const posted = await fetch(`${server.url}/imports`, { method: 'POST', headers, body: form })
    if (posted.status !== 202) throw new Error(`POST /imports: ${posted.status} ${await posted.text()}`)
    const { id } = (await posted.json()) as { id: string }
    const during: LoadResult[] = []
    type ImportState = {
      state: string
      rowsApplied: number
      rowsFailed: number
      createdAt: string
      finishedAt: string | null
    }
    let state: ImportState
    for (;;) {
      during.push(await read(5))
      state = (await (await fetch(`${server.url}/imports/${id}`, { headers })).json()) as ImportState
      if (state.state === 'succeeded' || state.state === 'failed') break
    }
    const importSeconds = (Date.parse(state.finishedAt!) - Date.parse(state.createdAt)) / 1000
    const worstP99 = Math.max(...during.map((r) => r.p99Ms))
    const p99s = during.map((r) => r.p99Ms).sort((a, b) => a - b)
    const medianP99 = p99s[Math.floor(p99s.length / 2)]!

    // 2. Export every order, one row per line, reading as fast as the client can.
    const rssBefore = rssMb(server.pid)
    let rssPeak = rssBefore
    let sampling = true
    const sampler = (async () => {
      while (sampling) {
        rssPeak = Math.max(rssPeak, rssMb(server.pid))
        await sleep(100)
      }
    })()
    const exportStarted = performance.now()
    const response = await fetch(`${server.url}/exports/orders`, { headers })
    let bytes = 0
    let lines = 0
    for await (const chunk of response.body!) {
      bytes += chunk.byteLength
      for (const byte of chunk) if (byte === 0x0a) lines++
    }
    const exportSeconds = (performance.now() - exportStarted) / 1000
    sampling = false
    await sampler

    console.log(
      `load average at start: ${loadAverage()}; ${load.threads} wrk threads, ${load.connections} connections\n`,
    )
    console.log('| measure | figure | against |')
    console.log('| --- | --- | --- |')
    console.log(
      `| import of ${customers.toLocaleString('en')} customers (${(file.size / 1e6).toFixed(1)} MB CSV) | ${importSeconds.toFixed(1)} s, ${state.rowsApplied.toLocaleString('en')} applied, ${state.rowsFailed} failed (${Math.round(state.rowsApplied / importSeconds).toLocaleString('en')} rows/s) | goal ≤ 60 s |`,
    )
    console.log(
      `| \`GET /customers/{id}\` p99, idle | ${idle.p99Ms.toFixed(2)} ms (${Math.round(idle.rps).toLocaleString('en')} req/s) | |`,
    )
    console.log(
      `| same, during the import: median of ${during.length} 5-s slices' p99 | ${medianP99.toFixed(2)} ms | ${(medianP99 / idle.p99Ms).toFixed(1)}× idle |`,
    )
    console.log(
      `| same, the worst slice (number ${during.findIndex((r) => r.p99Ms === worstP99) + 1}; the first holds the upload, read, checked and stored) | ${worstP99.toFixed(2)} ms (${Math.round(Math.min(...during.map((r) => r.rps))).toLocaleString('en')}–${Math.round(Math.max(...during.map((r) => r.rps))).toLocaleString('en')} req/s) | ${(worstP99 / idle.p99Ms).toFixed(1)}× idle; goal < 50 ms |`,
    )
    console.log(
      `| export of ${orders.toLocaleString('en')} orders (\`GET /exports/orders\`, ${(lines - 1).toLocaleString('en')} line rows, ${(bytes / 1e6).toFixed(1)} MB) | ${exportSeconds.toFixed(1)} s | |`,
    )
    console.log(
      `| server resident memory during the export | ${rssBefore.toFixed(0)} → peak ${rssPeak.toFixed(0)} MB (+${(rssPeak - rssBefore).toFixed(0)} MB) | ${((rssPeak - rssBefore) / (bytes / 1e6)).toFixed(2)} MB per MB streamed; goal ≤ +50 MB |`,
    )
  } finally {
    await server.stop()
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true })
}
