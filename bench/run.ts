// Load benchmark: the real server against a bare Bun.serve baseline, in the same run, on the
// same machine, reported as ratios. Usage: npm run bench [-- --duration 10 --connections 32]
// Load comes from autocannon running under Node in its own process.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { runCli, sourceCommand, startListening, startServer } from '../tests/e2e/cli'

const { values } = parseArgs({
  options: { duration: { type: 'string', default: '10' }, connections: { type: 'string', default: '32' } },
})
const duration = Number(values.duration)
const connections = Number(values.connections)
const root = join(import.meta.dir, '..')

interface LoadResult {
  rps: number
  p50: number
  p99: number
  requests: number
  non2xx: number
  errors: number
}

async function load(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
) {
  const args = [
    join(root, 'node_modules', 'autocannon', 'autocannon.js'),
    '--json',
    '-c',
    String(connections),
  ]
  args.push('-d', String(duration), '-m', options.method ?? 'GET')
  for (const [k, v] of Object.entries(options.headers ?? {})) args.push('-H', `${k}=${v}`)
  // [<id>] in the body becomes a unique id per request, so every POST creates a new record.
  if (options.body) args.push('-b', options.body, '--idReplacement')
  args.push(url)
  const proc = Bun.spawn(['node', ...args], { stdout: 'pipe', stderr: 'ignore' })
  const out = JSON.parse(await new Response(proc.stdout).text())
  await proc.exited
  return {
    rps: Math.round(out.requests.average),
    p50: out.latency.p50,
    p99: out.latency.p99,
    requests: out.requests.total,
    non2xx: out.non2xx,
    errors: out.errors,
  } satisfies LoadResult
}

const dataDir = mkdtempSync(join(tmpdir(), 'restaurant-ops-bench-'))
const env = { DATA_DIR: dataDir, LOG_LEVEL: 'error' }
const cli = (...args: string[]) => runCli(sourceCommand, args, env)
await cli('tenant', 'create', '--slug', 'bench', '--name', 'Bench')
await cli(
  'staff',
  'create',
  '--tenant',
  'bench',
  '--email',
  'b@bench.test',
  '--first-name',
  'B',
  '--last-name',
  'B',
  '--subject',
  'bench-owner',
  '--role',
  'owner',
)
const token = (await cli('token', '--tenant', 'bench', '--subject', 'bench-owner', '--ttl', '86400')).json
  .token as string

const baseline = await startListening([process.execPath, join(import.meta.dir, 'baseline.ts')], {})
const server = await startServer(sourceCommand, { ...env, DEFAULT_TENANT_SLUG: 'bench' })
const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
try {
  const created = await fetch(`${server.url}/vendor`, {
    method: 'POST',
    headers,
    body: '{"name":"Bench Vendor"}',
  })
  const vendorId = ((await created.json()) as { id: string }).id

  const results: Record<string, LoadResult> = {}
  results.baseline = await load(`${baseline.url}/`)
  results.getVendor = await load(`${server.url}/vendor/${vendorId}`, { headers })
  results.postVendor = await load(`${server.url}/vendor`, {
    method: 'POST',
    headers,
    body: '{"name":"v-[<id>]"}',
  })

  const ratio = (r: LoadResult) => Math.round((r.rps / results.baseline!.rps) * 1000) / 1000
  const report = {
    date: new Date().toISOString(),
    machine: { cpus: navigator.hardwareConcurrency, bun: Bun.version },
    duration,
    connections,
    results,
    ratios: { getVendor: ratio(results.getVendor), postVendor: ratio(results.postVendor) },
  }
  mkdirSync(join(import.meta.dir, 'results'), { recursive: true })
  writeFileSync(join(import.meta.dir, 'results', 'latest.json'), JSON.stringify(report, null, 2))
  console.log('| scenario | req/s | p50 ms | p99 ms | non-2xx | ratio to baseline |')
  console.log('|---|---|---|---|---|---|')
  for (const [name, r] of Object.entries(results)) {
    const rel = name === 'baseline' ? '1.000' : ratio(r).toFixed(3)
    console.log(`| ${name} | ${r.rps} | ${r.p50} | ${r.p99} | ${r.non2xx} | ${rel} |`)
  }
} finally {
  await server.stop()
  await baseline.stop()
}
