// `serve`: open the platform, create the embedded default on an empty data directory, start
// replication or scheduled snapshots, listen, and shut down gracefully on SIGTERM/SIGINT.
import { readFileSync } from 'node:fs'
import http from 'node:http'
import { hostname } from 'node:os'
import type { Server } from 'bun'
import type { Config } from '../config'
import { dueWorkSources, registerFamilies } from '../modules'
import { accessSources } from '../modules/access'
import { backedUpDatabases } from '../platform/backup/databases'
import { LitestreamSupervisor, resolveLitestreamBinary } from '../platform/backup/litestream'
import { writeServeLock } from '../platform/backup/restore'
import { ConnectionBalance } from '../platform/http/connection-balance'
import { Drain } from '../platform/http/drain'
import { listenForWorkers } from '../platform/http/worker-affinity'
import { openPlatform, type Platform } from '../platform/platform'
import { PrimaryLink, type ToWorker } from '../platform/primary-link'
import { firstTenant } from '../platform/tenancy/tenants'
import { buildApp } from '../server'
import { backupNow } from './backup'
import { ensureEmbeddedDefault, ensureEmbeddedDefaultInChildProcess } from './bootstrap'
import { poolShare, WorkerProcesses } from './workers'

/** Where Bun's parser refuses a header section; the app's own limits are below it (conventions.ts). */
const PARSER_HEADER_CEILING = 64 * 1024
/**
 * After SIGTERM, the listener closes once no request has arrived for this long: long enough for the
 * requests already sent to be read, and for clients answered just before the signal to send their
 * next request and be told to close.
 */
const QUIET_WINDOW_MS = 250

/** The readiness check (/health/ready) of the embedded demo tenant, done after the server listens. */
const DEFAULT_TENANT_WORK = 'defaultTenant'
/** A worker's readiness check until its primary's first status arrives. */
const PRIMARY_STATUS_WORK = 'primary'
/** How long after SHUTDOWN_TIMEOUT_MS a primary waits for the workers that are cutting their requests. */
const WORKERS_DEADLINE_GRACE_MS = 2000

/** Litestream when LITESTREAM_REPLICA_URL is set, else scheduled snapshots (BACKUP_INTERVAL). */
function startBackups(platform: Platform): void {
  const { config, log, jobs } = platform
  if (!config.litestreamReplicaUrl) {
    if (config.backupIntervalSeconds > 0) {
      jobs.register({
        name: 'backups.snapshot',
        intervalMs: config.backupIntervalSeconds * 1000,
        runAtStart: false,
        run: () => {
          const result = backupNow(platform)
          log.info('snapshot written', {
            dir: result.dir,
            databases: result.databases,
            pruned: result.pruned.length,
          })
        },
      })
    }
    return
  }
  const binary = resolveLitestreamBinary(config.litestreamBin)
  if (!binary)
    throw new Error('LITESTREAM_REPLICA_URL is set but no Litestream binary was found (set LITESTREAM_BIN)')
  const supervisor = new LitestreamSupervisor({
    binary,
    configPath: `${config.dataDir}/litestream.yml`,
    replicaUrl: config.litestreamReplicaUrl,
    s3: config.litestreamS3,
    log,
    intervalMs: config.litestreamSyncIntervalMs,
    shardSize: config.litestreamShardSize,
    listDatabases: () =>
      platform.cluster
        ? platform.cluster.replicatedDatabases()
        : backedUpDatabases(config.dataDir, platform.control.db),
  })
  supervisor.start()
  platform.pool.committed = (path) => supervisor.noteWrite(path)
  platform.replication = supervisor
  if (platform.cluster) platform.cluster.replication = supervisor
  // Tenants may be created by the CLI in another process: pick them up for replication.
  jobs.register({ name: 'litestream.tenants', intervalMs: 5000, run: () => void supervisor.syncDatabases() })
  log.info('litestream replicating', { replica: config.litestreamReplicaUrl, binary })
}

/** The warnings a server logs once at start, about settings never meant for production. */
function warnAboutSettings(platform: Platform): void {
  const { config, log } = platform
  if (platform.devIssuer) {
    log.warn(
      'DEVELOPMENT ISSUER ON: AUTH_JWKS_URL is not set, so this server trusts tokens it mints itself ' +
        '(`bun src/main.ts token ...`). Set AUTH_JWKS_URL to your identity provider before production use.',
      { jwks: '/.well-known/jwks.json', issuer: config.authIssuer, audience: config.authAudience },
    )
  }
  if (config.authTrustIdentityHeaders) {
    log.warn(
      'AUTH_TRUST_IDENTITY_HEADERS=true: x-auth-provider/x-auth-user-id are trusted. Never in production.',
    )
  }
  if (config.webhookAllowPrivateTargets) {
    log.warn(
      'WEBHOOK_ALLOW_PRIVATE_TARGETS=true: webhooks may call private, loopback and link-local addresses, ' +
        'so anyone who can manage webhooks can reach this server’s own network. Never in production.',
    )
  }
}

/**
 * Builds the app and opens the port (shared with the other workers when `reusePort`); `balance`:
 * an HTTP worker's share of the connections.
 */
async function listen(
  platform: Platform,
  drain: Drain,
  port: number,
  reusePort: boolean,
  balance?: ConnectionBalance,
) {
  // Bun's parser answers header sections above its limit with a bare 431 before any code runs:
  // its ceiling goes above the app's own limits, which answer with problem documents.
  // @ts-expect-error Bun lets this be set (Node's types call it read-only)
  http.maxHeaderSize = PARSER_HEADER_CEILING
  const app = buildApp(platform, { drain, balance })
  // Elysia compiles what a route's requests go through on its first request: the probe's is made
  // before the port opens, so that the first probes are answered at once.
  await app.handle(new Request('http://localhost/health/live'))
  app.listen({
    port,
    hostname: platform.config.host,
    reusePort,
    // No ceiling from Bun (it would answer a bare 413): every body reader enforces its own limit as
    // the bytes arrive (MAX_BODY_BYTES, MEDIA_MAX_BYTES), and Bun does not buffer unread bodies.
    maxRequestBodySize: Number.MAX_SAFE_INTEGER,
  })
  return { app, server: app.server as Server<unknown> }
}

/** Linux 5.14+: whether a closing listener's queued connections may move to another of the port. */
const MIGRATE_REQUESTS = '/proc/sys/net/ipv4/tcp_migrate_req'

/**
 * Linux resets the connections still queued on a listener as it closes, unless
 * `net.ipv4.tcp_migrate_req` lets it move them to another listener of the port: the hand-over
 * below reset 0 to 6 of ~35,000 new connections opened during a start, none in 11 starts with it
 * set (`bench/hand-over.ts`, bench/README.md, twelfth pass). A setting of the machine (or the container's network), not the
 * service's to change: said once, with how.
 */
function warnAboutHandOverResets(platform: Platform): void {
  let setting: string
  try {
    setting = readFileSync(MIGRATE_REQUESTS, 'utf8').trim()
  } catch {
    return // Not Linux, or a kernel without it.
  }
  if (setting !== '0') return
  platform.log.warn(
    'net.ipv4.tcp_migrate_req is 0: a connection that reaches the primary just as it hands the port to its ' +
      'workers is reset. Set it to 1 (sysctl -w net.ipv4.tcp_migrate_req=1; docker run --sysctl net.ipv4.tcp_migrate_req=1)',
  )
}

/**
 * The primary's port goes to its workers, which listen beside it: from now on each of its answers
 * closes its connection, and after a moment its listener closes with the connections left idle
 * (a client's next request on one finds it closed, as after an idle timeout).
 */
async function handOver(platform: Platform, drain: Drain, app: { stop(): Promise<unknown> }) {
  drain.closeConnections()
  await Bun.sleep(QUIET_WINDOW_MS)
  await app.stop()
  platform.log.info('port handed over to the workers')
}

/**
 * Requests already on their way are read and answered (or refused) with `Connection: close`
 * before the listener and the idle keep-alive connections close; stopping waits for the requests
 * in flight.
 */
async function stopListening(platform: Platform, drain: Drain, app: { stop(): Promise<unknown> }) {
  await drain.quiet(QUIET_WINDOW_MS)
  await app.stop()
  platform.log.info('requests finished', { refusedAfterSignal: drain.refused })
}

export async function serve(config: Config): Promise<void> {
  if (config.workerId !== undefined) return serveAsWorker(config)
  // Before the default tenant's seed, which runs the families' code as the app will.
  registerFamilies()
  const workers = config.workers > 1 ? config.workers : 0
  const platform = await openPlatform(poolShare(config, 'primary'), {
    access: accessSources,
    dueWork: dueWorkSources,
    serving: true,
    jobsOnly: workers > 0,
  })
  const { log } = platform
  const releaseLock = writeServeLock(config.dataDir)
  // A cluster's tenants are created through the operator API, placed by the cluster. An empty
  // default takes milliseconds: it is in place before the server listens. The demo takes seconds:
  // see below.
  const seed = config.cluster || firstTenant(platform.control.db) ? null : config.defaultTenantSeed
  if (seed === 'empty') ensureEmbeddedDefault(platform)
  startBackups(platform)
  warnAboutSettings(platform)
  if (workers) warnAboutHandOverResets(platform)
  // The demo is made by a child process at the lowest priority (fill-process.ts), started before
  // the port opens (what starting it costs this thread is spent then) and done some seconds after:
  // /health/ready answers 503 until then, /health/live answers throughout.
  const seeding = new AbortController()
  const demo = seed === 'demo' ? ensureEmbeddedDefaultInChildProcess(platform, seeding.signal) : null
  if (demo) platform.startupWork.add(DEFAULT_TENANT_WORK)
  // One process serves and runs the jobs, or a primary runs them beside its HTTP workers. A primary
  // serves the port itself until its workers listen, then hands it over to them: ready as soon as
  // one process (120-170 ms over 10,000 tenants, where its workers took 280-410 ms: bench/README.md,
  // eleventh pass). Building the app registers the families' jobs.
  const drain = new Drain()
  const processes = workers ? new WorkerProcesses(platform, workers) : null
  /** This process's listener while it serves the port: a primary's until its workers take it. */
  let listener: Awaited<ReturnType<typeof listen>> | null = null
  let stopping = false
  const shutdown = async (signal: string, exitCode = 0) => {
    if (stopping) return
    stopping = true
    // A stop during a first start leaves no half-made default tenant behind.
    seeding.abort()
    drain.begin()
    // Open event streams end now (`server_stopping`): they would hold the drain to its deadline.
    platform.stopping()
    log.info('shutting down', { signal, inFlight: listener?.server.pendingRequests ?? 0 })
    // Workers keep the deadline themselves (each cuts its own requests): the primary's comes after.
    setTimeout(
      () => {
        log.error('shutdown took longer than SHUTDOWN_TIMEOUT_MS: exiting anyway', {
          timeoutMs: config.shutdownTimeoutMs,
          cutRequests: listener?.server.pendingRequests ?? 0,
          runningJobs: platform.jobs
            .status()
            .filter((job) => job.running)
            .map((job) => job.name),
        })
        processes?.kill()
        void platform.replication?.stop()
        releaseLock()
        process.exit(1)
      },
      config.shutdownTimeoutMs + (processes ? WORKERS_DEADLINE_GRACE_MS : 0),
    )
    // Every worker drains as one process does; then jobs finish (webhook requests record their
    // attempts), Litestream makes its last sync, and every database closes.
    if (listener) await stopListening(platform, drain, listener.app)
    // A worker that had to cut requests exits 1, and so does `serve`.
    const workersStopped = (await processes?.stop()) ?? true
    await platform.jobs.stop()
    await platform.replication?.stop()
    // After Litestream's last sync: the other nodes claim this node's tenants at once.
    await platform.cluster?.stop()
    await platform.shutdown()
    releaseLock()
    process.exit(workersStopped ? exitCode : 1)
  }
  // From before the port opens: a signal during the start stops it gracefully too.
  process.on('SIGTERM', () => void shutdown('SIGTERM'))
  process.on('SIGINT', () => void shutdown('SIGINT'))
  demo?.then(
    () => platform.startupWork.delete(DEFAULT_TENANT_WORK),
    (error) => {
      if (seeding.signal.aborted) return
      log.error('could not create the embedded default tenant', {
        error: error instanceof Error ? error.message : String(error),
      })
      void shutdown('start-up failure', 1)
    },
  )

  // One process serves and runs the jobs, or a primary runs them beside its HTTP workers. A primary
  // serves the port itself until its workers listen, then hands it over to them: ready as soon as
  // one process (120-170 ms over 10,000 tenants, where its workers took 280-410 ms: bench/README.md,
  // eleventh pass). Building the app registers the families' jobs.
  const primaryListener = await listen(platform, drain, config.port, workers > 0)
  listener = primaryListener
  const { port, hostname: hostName } = primaryListener.server
  if (processes) {
    await processes.start(port!)
    if (stopping) return
    listener = null
    await handOver(platform, drain, primaryListener.app)
  }
  if (stopping) return
  // After the hand-over: the jobs' first runs, synchronous between their awaits, held up the
  // primary's answers to its workers for ~300 ms over 10,000 tenants.
  platform.jobs.start()
  const url = `http://${hostName}:${port}`
  if (platform.cluster) {
    const host = config.host === '0.0.0.0' || config.host === '::' ? hostname() : config.host
    await platform.cluster.start(config.cluster?.advertiseUrl ?? `http://${host}:${port}`)
  }
  log.info('listening', { url, dataDir: config.dataDir, ...(workers ? { workers } : {}) })
  console.log(JSON.stringify({ listening: url, port, dataDir: config.dataDir }))
}

/**
 * An HTTP worker: it serves the port beside the other workers, runs no job, and goes as soon as
 * its primary does (the IPC channel closes when the primary exits, even by kill -9).
 */
async function serveAsWorker(config: Config): Promise<void> {
  registerFamilies()
  const link = new PrimaryLink(config.workerId!, (message) => process.send!(message))
  const platform = await openPlatform(poolShare(config, 'worker'), {
    access: accessSources,
    dueWork: dueWorkSources,
    serving: true,
    primary: link,
  })
  const { log } = platform
  // Until the primary's first status: it may still be making the embedded default.
  platform.startupWork.add(PRIMARY_STATUS_WORK)
  link.onStatus = (status) => {
    platform.startupWork.clear()
    for (const work of status.startupWork) platform.startupWork.add(work)
  }
  process.on('message', (message) => link.received(message as ToWorker))
  process.on('disconnect', () => {
    log.error('the primary is gone: this worker stops at once')
    process.exit(1)
  })
  if (config.litestreamReplicaUrl) platform.pool.committed = (path) => link.committed(path)
  const drain = new Drain()
  const balance = new ConnectionBalance(config.dataDir, config.workerId!).start()
  const { app, server } = await listen(platform, drain, config.port, true, balance)
  // Before the primary is told it listens: a worker that serves takes what the others pass it.
  const fromWorkers = listenForWorkers(platform.affinity!, app)
  link.listening(server.port!)

  let stopping = false
  const shutdown = async (signal: string) => {
    if (stopping) return
    stopping = true
    drain.begin()
    balance.stop()
    platform.stopping()
    log.info('shutting down', { signal, inFlight: server.pendingRequests })
    setTimeout(() => {
      log.error('shutdown took longer than SHUTDOWN_TIMEOUT_MS: exiting anyway', {
        timeoutMs: config.shutdownTimeoutMs,
        cutRequests: server.pendingRequests,
      })
      process.exit(1)
    }, config.shutdownTimeoutMs)
    await stopListening(platform, drain, app)
    // The others serve its tenants themselves once its socket refuses them.
    await fromWorkers.stop()
    await platform.shutdown()
    process.exit(0)
  }
  process.on('SIGTERM', () => void shutdown('SIGTERM'))
  process.on('SIGINT', () => void shutdown('SIGINT'))
}
