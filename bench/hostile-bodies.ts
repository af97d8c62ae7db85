// Hostile JSON bodies against a running server: each kind sent to three routes, 10 in a row and
// then 8 at once to a warm server, reporting each kind's slowest lone request and p99 (bursts included) and the
// server's peak resident memory over the whole run. The goals (issue "Holes found from outside"):
// a lone request <= 10 ms, p99 <= 50 ms, peak RSS <= 300 MB.
// Usage: bun bench/hostile-bodies.ts [--source | --compiled]  (source by default)
import { parseArgs } from 'node:util'
import { compiledCommand, runCli, sourceCommand, startServer } from '../tests/e2e/cli'
import { hostileBodies } from '../tests/e2e/hostile-bodies'
import { makeTestDir, removeTestDir } from '../tests/temp-dirs'
import { rssMb } from './lib'

const { values } = parseArgs({
  options: { compiled: { type: 'boolean', default: false }, source: { type: 'boolean', default: false } },
})
const command = values.compiled ? compiledCommand() : sourceCommand

const dataDir = makeTestDir('bench')
const env = { DATA_DIR: dataDir, LOG_LEVEL: 'error', DEFAULT_TENANT_SEED: 'empty' }
const server = await startServer(command, env)
let peakRss = 0
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, rssMb(server.pid))
}, 5)
try {
  const token = (await runCli(command, ['token', '--tenant', 'default', '--subject', 'owner'], env)).json
    .token
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
  const vendor = await fetch(`${server.url}/vendor`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ name: 'Hostile Glass', code: 'HG' }),
  }).then((r) => r.json() as Promise<{ id: string }>)
  const routes: [method: string, path: string][] = [
    ['POST', '/customers'],
    ['POST', '/order'],
    ['PUT', `/vendor/${vendor.id}`],
  ]
  const send = async (method: string, path: string, body: string) => {
    const started = performance.now()
    const res = await fetch(`${server.url}${path}`, { method, headers, body })
    await res.arrayBuffer()
    return { ms: performance.now() - started, status: res.status }
  }
  // A warm server: each route's first request composes its handler and compiles its checks.
  for (const [method, path] of routes) await send(method, path, '{}')
  console.log('| kind | answers | slowest alone (ms) | p99 with bursts of 8 (ms) |')
  console.log('|---|---|---:|---:|')
  for (const { kind, body } of hostileBodies()) {
    const alone: number[] = []
    const all: number[] = []
    const statuses = new Set<number>()
    for (const [method, path] of routes) {
      for (let i = 0; i < 10; i++) {
        const { ms, status } = await send(method, path, body)
        alone.push(ms)
        statuses.add(status)
      }
      const burst = await Promise.all(Array.from({ length: 8 }, () => send(method, path, body)))
      for (const { ms, status } of burst) {
        all.push(ms)
        statuses.add(status)
      }
    }
    all.push(...alone)
    all.sort((a, b) => a - b)
    const p99 = all[Math.min(all.length - 1, Math.ceil(all.length * 0.99) - 1)]!
    console.log(
      `| ${kind} (${Math.round(body.length / 1024)} KB) | ${[...statuses].join(', ')} | ${Math.max(...alone).toFixed(1)} | ${p99.toFixed(1)} |`,
    )
  }
  console.log(`\npeak resident memory of the server: ${peakRss} MB`)
} finally {
  clearInterval(sampler)
  await server.stop()
  removeTestDir(dataDir)
}
