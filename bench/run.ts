// The benchmark suite. Every scenario is measured, in the same run, against a bare Bun.serve
// constant (bare), a hand-written Fastify + better-sqlite3 + jose peer (peer) and a minimal
// Elysia + bun:sqlite ceiling (ceiling) where those implement the route, the service in one process
// (single: WORKERS=1), then the service as it starts by default (WORKERS = the cores); each
// server its own process, one at a time, warmed up, then measured with wrk. Prints one Markdown
// table with ratios and writes bench/results/latest.json.
// Usage: npm run bench [-- --duration 10 --warmup 3 --threads 2 --connections 32 --only read,create]
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { parseArgs } from 'node:util'
import { configFor } from '../src/config'
import { tenantDatabasePath } from '../src/platform/tenancy/databases'
import {
  compiledCommand,
  type RunningServer,
  runCli,
  sourceCommand,
  startListening,
  startServer,
} from '../tests/e2e/cli'
import { cpuSeconds, type LoadResult, loadAverage, requireWrk, rssMb, type ScriptKind, wrk } from './lib'
import { type BenchTenant, prepareManyTenants, prepareSingleTenant, writeTargets } from './prepare'

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
    threads: { type: 'string', default: '2' },
    connections: { type: 'string', default: '32' },
    orders: { type: 'string', default: '100000' },
    tenants: { type: 'string', default: '1000' },
    /** Tenants the writes of scenario create-spread go to. */
    'write-tenants': { type: 'string', default: '16' },
    'zipf-tenants': { type: 'string', default: '10000' },
    'zipf-s': { type: 'string', default: '1.1' },
    'startup-runs': { type: 'string', default: '5' },
    /** One-second slices of the read measured right after a start (scenario after-start). */
    'after-start-seconds': { type: 'string', default: '10' },
    /** TENANT_POOL_MEMORY values for the many-tenant scenarios (`default`: unset), comma-separated: one row each. */
    pools: { type: 'string', default: 'default,512MiB' },
    /** Comma-separated scenario keys (read, create, create-ungrouped, create-spread, orders, zipf, uniform, after-start, startup). */
    only: { type: 'string' },
    /** Keep the prepared data directories (they are removed otherwise: 10,000 tenants are ~15 GB). */
    keep: { type: 'boolean', default: false },
  },
})
const options = {
  duration: Number(values.duration),
  warmup: Number(values.warmup),
  threads: Number(values.threads),
  connections: Number(values.connections),
  orders: Number(values.orders),
  tenants: Number(values.tenants),
  writeTenants: Number(values['write-tenants']),
  zipfTenants: Number(values['zipf-tenants']),
  zipfS: Number(values['zipf-s']),
  startupRuns: Number(values['startup-runs']),
  afterStartSeconds: Number(values['after-start-seconds']),
  pools: values.pools.split(','),
}
const selected = values.only?.split(',')
const wanted = (key: string) => !selected || selected.includes(key)
const serverEnv = { LOG_LEVEL: 'error', BACKUP_INTERVAL: '0' }
const scratch: string[] = []
const scratchDir = (name: string) => {
  const dir = mkdtempSync(join(tmpdir(), `restaurant-ops-bench-${name}-`))
  scratch.push(dir)
  return dir
}

requireWrk()
const peerDir = join(import.meta.dir, 'peer')
// The peer's packages stay out of the root lockfile; better-sqlite3 builds from source here.
const peerWanted = wanted('read') || wanted('create')
if (peerWanted && !existsSync(join(peerDir, 'node_modules', 'better-sqlite3', 'build', 'Release'))) {
  console.error('installing the peer (npm ci --prefix bench/peer)…')
  const install = Bun.spawnSync(['npm', 'ci', '--prefix', peerDir, '--no-audit', '--no-fund'], {
    stdout: 'inherit',
    stderr: 'inherit',
  })
  if (install.exitCode !== 0) throw new Error('npm ci --prefix bench/peer failed (the peer runs on Node 20+)')
}

type Comparator = 'bare' | 'peer' | 'ceiling' | 'single' | 'service'
const comparators: Comparator[] = ['bare', 'peer', 'ceiling', 'single', 'service']
const isService = (comparator: Comparator) => comparator === 'single' || comparator === 'service'

interface Scenario {
  key: string
  title: string
  servers: Partial<Record<Comparator, () => Promise<RunningServer>>>
  /** The path of a fixed request; `/` for scripts that make their own. */
  path: string
  script: ScriptKind
  args: () => string[]
  /** One request checked before the load, so a misconfigured server fails loudly. */
  probe: { path: string; init: RequestInit }
  /** Called on the service (single or default) before its warm-up, with the key its figures go under. */
  beforeService?: (server: RunningServer, key: string) => Promise<void>
  /** Called on the service (single or default) after its measured run. */
  afterService?: (server: RunningServer, key: string) => Promise<void> | void
}

interface Measured {
  key: string
  title: string
  results: Partial<Record<Comparator, LoadResult>>
}

let nonce = 0
const nextNonce = () => `${Date.now().toString(36)}${nonce++}`

/**
 * Waits until every background job of the service has finished its first run: the first runs
 * visit every tenant (a restart knows nothing of them yet), which a long-running server has long
 * done. Answers the seconds it took.
 */
async function firstJobPass(url: string): Promise<number> {
  const begun = performance.now()
  for (;;) {
    const health = (await (await fetch(`${url}/health`)).json()) as {
      jobs: {
        runs: number
        lastSuccessAt: string | null
        lastErrorAt: string | null
        nextRunAt: string | null
      }[]
    }
    const pending = health.jobs.filter(
      (job) =>
        !(job.lastSuccessAt || job.lastErrorAt) &&
        !(job.runs === 0 && job.nextRunAt && Date.parse(job.nextRunAt) > Date.now() + 5000),
    )
    if (pending.length === 0) return Math.round((performance.now() - begun) / 100) / 10
    await Bun.sleep(100)
  }
}

async function measure(scenario: Scenario, comparator: Comparator): Promise<LoadResult> {
  const server = await scenario.servers[comparator]!()
  try {
    const key = comparator === 'service' ? scenario.key : `${scenario.key} single`
    if (isService(comparator)) {
      extra.firstJobPassSeconds[key] = await firstJobPass(server.url)
      extra.cpuAfterFirstPassSeconds[key] = cpuSeconds(server.pid)
    }
    const probe = await fetch(`${server.url}${scenario.probe.path}`, scenario.probe.init)
    if (!probe.ok) throw new Error(`${scenario.key} on ${comparator}: ${probe.status} ${await probe.text()}`)
    if (isService(comparator)) await scenario.beforeService?.(server, key)
    const run = {
      url: `${server.url}${scenario.path}`,
      script: scenario.script,
      threads: options.threads,
      connections: options.connections,
    }
    await wrk({ ...run, seconds: options.warmup, args: scenario.args() })
    const result = await wrk({ ...run, seconds: options.duration, args: scenario.args() })
    if (isService(comparator)) await scenario.afterService?.(server, key)
    // The primary and its workers together.
    if (isService(comparator)) extra.rssMb[`${scenario.key} ${comparator}`] ??= rssMb(server.pid)
    return result
  } finally {
    await server.stop()
  }
}

/**
 * Reads every tenant's customer once, 32 at a time, before the warm-up: a server that has been up
 * has seen its tenants (their files opened, their owners' tokens verified and principals built).
 * Answers the seconds it took.
 */
async function readEachTenant(url: string, tenants: BenchTenant[]): Promise<number> {
  const begun = performance.now()
  let next = 0
  const reader = async () => {
    for (let tenant = tenants[next++]; tenant; tenant = tenants[next++]) {
      const res = await fetch(`${url}/customers/${tenant.customerId}`, { headers: bearer(tenant) })
      if (!res.ok) throw new Error(`first read of ${tenant.tenantId}: ${res.status} ${await res.text()}`)
      await res.arrayBuffer()
    }
  }
  await Promise.all(Array.from({ length: 32 }, reader))
  return Math.round((performance.now() - begun) / 100) / 10
}

/** The pool's figures from /health, as operators see them. */
async function poolStats(url: string, operatorKey: string): Promise<unknown> {
  const health = (await (
    await fetch(`${url}/health`, { headers: { authorization: `Bearer ${operatorKey}` } })
  ).json()) as {
    tenantPool: unknown
  }
  return health.tenantPool
}

/** Compiled binary, started repeatedly on a tenant directory: ms until /health/ready is 200. */
async function startupMs(dataDir: string, runs: number): Promise<number[]> {
  const [binary] = compiledCommand()
  const times: number[] = []
  for (let i = 0; i < runs; i++) {
    const port = 39_000 + i
    const started = performance.now()
    const proc = Bun.spawn([binary!, 'serve'], {
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
  rmSync(dirname(binary!), { recursive: true, force: true })
  return times
}

const targetsFile = (tenants: BenchTenant[]) =>
  writeTargets(join(scratchDir('targets'), 'targets.tsv'), tenants)

const bearer = (tenant: BenchTenant) => ({
  authorization: `Bearer ${tenant.token}`,
  'x-tenant-id': tenant.tenantId,
})

const loadAtStart = loadAverage()
const started = Date.now()
const measured: Measured[] = []
const extra: {
  prepareSeconds: Record<string, number>
  rssMb: Record<string, number>
  firstJobPassSeconds: Record<string, number>
  /** How long the first read of every tenant took, before the measured runs (32 at a time). */
  firstReadOfEachSeconds: Record<string, number>
  /** The pool's figures from /health after each many-tenant run. */
  pool: Record<string, unknown>
  /** CPU the service used from its start until its jobs' first runs were over (start-up included). */
  cpuAfterFirstPassSeconds: Record<string, number>
  startupMs?: number[]
  /** Requests per second of one tenant's read in each second after a start over the Zipf tenants. */
  afterStartRps?: number[]
} = {
  prepareSeconds: {},
  rssMb: {},
  firstJobPassSeconds: {},
  cpuAfterFirstPassSeconds: {},
  firstReadOfEachSeconds: {},
  pool: {},
}

/** Runs a preparation step and records how long it took. */
async function timed<T>(name: string, step: () => Promise<T>): Promise<T> {
  console.error(`preparing ${name}…`)
  const begun = performance.now()
  const result = await step()
  extra.prepareSeconds[name] = Math.round((performance.now() - begun) / 100) / 10
  console.error(`  ${extra.prepareSeconds[name]} s`)
  return result
}

try {
  const singleDir = scratchDir('single')
  const single = await timed('single', () => prepareSingleTenant(singleDir, options.orders))
  // Peer and ceiling each write into their own copy of the prepared tenant file.
  const copyOfTenant = (name: string) => {
    const path = join(scratchDir(name), 'tenant.sqlite')
    copyFileSync(tenantDatabasePath(singleDir, single.tenantId), path)
    return path
  }
  const peerDb = copyOfTenant('peer')
  const ceilingDb = copyOfTenant('ceiling')
  const jwksPath = join(scratchDir('jwks'), 'jwks.json')
  writeFileSync(jwksPath, JSON.stringify(single.jwks))
  const config = configFor({ dataDir: singleDir })

  const singleServers: Scenario['servers'] = {
    bare: () => startListening([process.execPath, join(import.meta.dir, 'baseline.ts')], {}),
    peer: () =>
      startListening(['node', join(peerDir, 'server.mjs')], {
        DB_PATH: peerDb,
        TENANT_ID: single.tenantId,
        JWKS_PATH: jwksPath,
        AUTH_ISSUER: config.authIssuer,
        AUTH_AUDIENCE: config.authAudience,
      }),
    ceiling: () =>
      startListening([process.execPath, join(import.meta.dir, 'ceiling', 'server.ts')], {
        DB_PATH: ceilingDb,
        TENANT_ID: single.tenantId,
        BENCH_TOKEN: single.token,
        BENCH_SUBJECT: single.subject,
      }),
    single: () => startServer(sourceCommand, { ...serverEnv, DATA_DIR: singleDir, WORKERS: '1' }),
    service: () => startServer(sourceCommand, { ...serverEnv, DATA_DIR: singleDir }),
  }
  const customerPath = `/customers/${single.customerId}`
  const fixedArgs = () => [single.token, single.tenantId]

  /** POST /customers with a unique email each (the probe's too). */
  const customerCreates = () => ({
    path: '/',
    script: 'create' as const,
    args: () => [...fixedArgs(), nextNonce()],
    probe: {
      path: '/customers',
      // A fresh email for each server measured (single and service write to one tenant).
      get init() {
        return {
          method: 'POST',
          headers: { ...bearer(single), 'content-type': 'application/json' },
          body: JSON.stringify({
            firstName: 'Probe',
            lastName: 'Test',
            email: `p-${nextNonce()}@bench.test`,
          }),
        }
      },
    },
  })

  const scenarios: Scenario[] = [
    {
      key: 'read',
      title: '(a) `GET /customers/{id}` (JWT)',
      servers: singleServers,
      path: customerPath,
      script: 'fixed',
      args: fixedArgs,
      probe: { path: customerPath, init: { headers: bearer(single) } },
    },
    {
      key: 'create',
      title: '(b) `POST /customers` (JWT, audit + outbox)',
      servers: singleServers,
      ...customerCreates(),
    },
    {
      // The same writes committed one by one, for comparison with group commit (the default).
      key: 'create-ungrouped',
      title: '(b) `POST /customers`, `GROUP_COMMIT=false`',
      servers: {
        service: () =>
          startServer(sourceCommand, { ...serverEnv, DATA_DIR: singleDir, GROUP_COMMIT: 'false' }),
      },
      ...customerCreates(),
    },
    {
      key: 'orders',
      title: `(c) \`GET /order?limit=50\`, ${options.orders.toLocaleString('en')} orders`,
      servers: { bare: singleServers.bare, ceiling: singleServers.ceiling, service: singleServers.service },
      path: '/order?limit=50',
      script: 'fixed',
      args: fixedArgs,
      probe: { path: '/order?limit=50', init: { headers: bearer(single) } },
    },
  ]

  // Writes spread over tenants, as a host's are: few writes share a tenant's group commit.
  if (wanted('create-spread')) {
    const dir = scratchDir('create-spread')
    const tenants = await timed('create-spread', () => prepareManyTenants(dir, options.writeTenants))
    const targets = targetsFile(tenants)
    const server = (workers: Record<string, string>) => () =>
      startServer(sourceCommand, { ...serverEnv, DATA_DIR: dir, ...workers })
    scenarios.push({
      key: 'create-spread',
      title: `(b″) \`POST /customers\`, uniform over ${options.writeTenants.toLocaleString('en')} tenants`,
      servers: { single: server({ WORKERS: '1' }), service: server({}) },
      path: '/',
      script: 'spread-create',
      args: () => [targets, nextNonce()],
      probe: { path: `/customers/${tenants[0]!.customerId}`, init: { headers: bearer(tenants[0]!) } },
    })
  }

  let zipfTenants: BenchTenant[] | undefined
  const spread = async (key: string, count: number, distribution: string[], title: string) => {
    if (!wanted(key) && !(key === 'zipf' && wanted('after-start'))) return
    const dir = scratchDir(key)
    const tenants = await timed(key, () => prepareManyTenants(dir, count))
    if (key === 'zipf') zipfTenants = tenants
    const targets = targetsFile(tenants)
    const operatorKey = (
      await runCli(sourceCommand, ['operator-key', 'create', '--name', 'bench'], { DATA_DIR: dir })
    ).json.token as string
    for (const pool of options.pools) {
      // The first pool size keeps the plain key (`zipf`), further ones are `zipf@1024`.
      const pooled = pool === options.pools[0] ? key : `${key}@${pool}`
      scenarios.push({
        key: pooled,
        title: options.pools.length > 1 ? `${title}, pool ${pool}` : title,
        servers: {
          bare: singleServers.bare,
          ...Object.fromEntries(
            (['single', 'service'] as const).map((comparator) => [
              comparator,
              () =>
                startServer(sourceCommand, {
                  ...serverEnv,
                  DATA_DIR: dir,
                  ...(pool === 'default' ? {} : { TENANT_POOL_MEMORY: pool }),
                  ...(comparator === 'single' ? { WORKERS: '1' } : {}),
                }),
            ]),
          ),
        },
        path: '/',
        script: 'spread',
        args: () => [targets, ...distribution],
        probe: { path: `/customers/${tenants[0]!.customerId}`, init: { headers: bearer(tenants[0]!) } },
        beforeService: async (server, measuredKey) => {
          extra.firstReadOfEachSeconds[measuredKey] = await readEachTenant(server.url, tenants)
        },
        afterService: async (server, measuredKey) => {
          // With workers: the pool of the worker that answered.
          extra.pool[measuredKey] = await poolStats(server.url, operatorKey)
        },
      })
    }
    return dir
  }
  const zipfDir = await spread(
    'zipf',
    options.zipfTenants,
    ['zipf', String(options.zipfS)],
    `(d) \`GET /customers/{id}\`, Zipf s=${options.zipfS} over ${options.zipfTenants.toLocaleString('en')} tenants`,
  )
  const uniformDir = await spread(
    'uniform',
    options.tenants,
    ['uniform'],
    `(d) \`GET /customers/{id}\`, uniform over ${options.tenants.toLocaleString('en')} tenants`,
  )

  for (const scenario of scenarios.filter((s) => wanted(s.key.split('@')[0]!))) {
    const results: Measured['results'] = {}
    for (const comparator of comparators.filter((c) => scenario.servers[c])) {
      console.error(`${scenario.key}: ${comparator}…`)
      results[comparator] = await measure(scenario, comparator)
    }
    measured.push({ key: scenario.key, title: scenario.title, results })
  }

  // A restart over the Zipf tenants: one tenant's read in one-second slices from the moment the
  // server listens, while its jobs' first runs go on (issue 38: full speed within 5 s).
  if (wanted('after-start') && zipfTenants) {
    console.error('reads after a start…')
    const server = await startServer(sourceCommand, { ...serverEnv, DATA_DIR: zipfDir! })
    try {
      const first = zipfTenants[0]!
      extra.afterStartRps = []
      for (let slice = 0; slice < options.afterStartSeconds; slice++)
        extra.afterStartRps.push(
          (
            await wrk({
              url: `${server.url}/customers/${first.customerId}`,
              script: 'fixed',
              args: [first.token, first.tenantId],
              seconds: 1,
              threads: options.threads,
              connections: options.connections,
            })
          ).rps,
        )
    } finally {
      await server.stop()
    }
  }

  if (wanted('startup')) {
    console.error('start-up…')
    extra.startupMs = await startupMs(
      zipfDir ?? uniformDir ?? (await prepareStartupDir()),
      options.startupRuns,
    )
  }
} finally {
  if (!values.keep) for (const dir of scratch) rmSync(dir, { recursive: true, force: true })
}

async function prepareStartupDir() {
  const dir = scratchDir('startup')
  await timed('startup', () => prepareManyTenants(dir, options.tenants))
  return dir
}

const ratio = (a: LoadResult | undefined, b: LoadResult | undefined) =>
  a && b ? Math.round((a.rps / b.rps) * 1000) / 1000 : null
const withRatios = measured.map((m) => ({
  ...m,
  ratios: Object.fromEntries(
    Object.entries(m.results).map(([name, r]) => [
      name,
      {
        bare: ratio(r, m.results.bare),
        peer: ratio(r, m.results.peer),
        ceiling: ratio(r, m.results.ceiling),
        single: ratio(r, m.results.single),
      },
    ]),
  ),
}))
const serviceRps = (key: string) => measured.find((m) => m.key === key)?.results.service?.rps
const versusRead = (key: string) => {
  const spreadRps = serviceRps(key)
  const readRps = serviceRps('read')
  return spreadRps && readRps ? Math.round((spreadRps / readRps) * 1000) / 1000 : null
}

const report = {
  date: new Date(started).toISOString(),
  minutes: Math.round((Date.now() - started) / 6000) / 10,
  machine: {
    cpus: navigator.hardwareConcurrency,
    bun: Bun.version,
    node: Bun.spawnSync(['node', '--version']).stdout.toString().trim(),
    wrk: Bun.spawnSync(['wrk', '--version']).stdout.toString().split('\n')[0]!.trim(),
    loadAtStart,
    loadAtEnd: loadAverage(),
  },
  options,
  scenarios: withRatios,
  serviceSpreadVersusSingleRead: Object.fromEntries(
    measured.filter((m) => /^(zipf|uniform)/.test(m.key)).map((m) => [m.key, versusRead(m.key)]),
  ),
  ...extra,
}
mkdirSync(join(import.meta.dir, 'results'), { recursive: true })
writeFileSync(join(import.meta.dir, 'results', 'latest.json'), JSON.stringify(report, null, 2))

const cell = (value: number | null) => (value === null ? '' : value.toFixed(3))
console.log(
  '| scenario | server | req/s | p50 ms | p99 ms | non-2xx | × bare | × peer | × ceiling | × single | load |',
)
console.log('|---|---|---|---|---|---|---|---|---|---|---|')
for (const m of withRatios) {
  for (const [name, r] of Object.entries(m.results)) {
    const x = m.ratios[name]!
    console.log(
      `| ${m.title} | ${name} | ${r.rps.toLocaleString('en')} | ${r.p50Ms} | ${r.p99Ms} | ${r.non2xx}${r.socketErrors ? ` + ${r.socketErrors} socket errors` : ''} | ${cell(x.bare)} | ${cell(x.peer)} | ${cell(x.ceiling)} | ${cell(x.single)} | ${r.load} |`,
    )
  }
}
console.log(
  `\nservice, spread over tenants / single-tenant read: ${Object.entries(report.serviceSpreadVersusSingleRead)
    .map(([key, ratio]) => `${key} ${ratio}`)
    .join(', ')}`,
)
for (const [key, mb] of Object.entries(extra.rssMb))
  console.log(`service RSS (primary and workers, summed) after ${key}: ${mb} MB`)
for (const [key, seconds] of Object.entries(extra.firstReadOfEachSeconds))
  console.log(`${key}: first read of every tenant, 32 at a time, before the warm-up: ${seconds} s`)
for (const [key, stats] of Object.entries(extra.pool)) console.log(`${key}: pool ${JSON.stringify(stats)}`)
console.log(
  `CPU of the service from its start to the end of its jobs' first runs (s): ${Object.entries(
    extra.cpuAfterFirstPassSeconds,
  )
    .map(([key, seconds]) => `${key} ${seconds}`)
    .join(', ')}`,
)
console.log(
  `jobs' first run after the service started, waited for before measuring (s): ${Object.entries(
    extra.firstJobPassSeconds,
  )
    .map(([key, seconds]) => `${key} ${seconds}`)
    .join(', ')}`,
)
if (extra.afterStartRps)
  console.log(`one tenant's read, req/s in each second after a start: ${extra.afterStartRps.join(', ')}`)
if (extra.startupMs) console.log(`compiled binary start-up to ready (ms): ${extra.startupMs.join(', ')}`)
console.log(
  `preparation (s): ${Object.entries(extra.prepareSeconds)
    .map(([name, seconds]) => `${name} ${seconds}`)
    .join(', ')}`,
)
console.log(`load average at start ${loadAtStart}, at end ${report.machine.loadAtEnd}`)
