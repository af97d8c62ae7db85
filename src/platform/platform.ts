// Everything a running service holds open: configuration, logger, databases and the verifier.
// Built once per app (tests build one per test over a fresh data directory).
import type { Config } from '../config'
import type { AccessSources } from './auth/access-sources'
import { AuthSignals } from './auth/auth-signals'
import { watchAuthVersion } from './auth/auth-version'
import type { AuthDeps } from './auth/authenticate'
import { type DevIssuer, openDevIssuer } from './auth/dev-issuer'
import { createTokenVerifier } from './auth/jwt'
import { LegacyCredentialCarrier, legacyTokenTenant } from './auth/legacy-tokens'
import { type AuthPlugin, authPlugin } from './auth/plugin'
import { PrincipalCache, TenantDirectory } from './auth/principal-cache'
import { SharedWindowLimiter } from './auth/rate-limit'
import type { LitestreamSupervisor } from './backup/litestream'
import { ClusterNode } from './cluster/node'
import { deliveriesQueued, fanOutAtCommit } from './events/delivery'
import { DeliveryWorker } from './events/worker'
import { createLogger, type Logger } from './foundation/log'
import { nextIdempotencyExpiry, purgeExpiredIdempotencyKeys } from './http/idempotency'
import { WorkerAffinity, workerSocketDir } from './http/worker-affinity'
import { DueIndex, type DueWorkSource } from './jobs/due-index'
import { Scheduler } from './jobs/scheduler'
import { forEachDueTenant } from './jobs/tenants'
import { createMessageSender, type MessageSender } from './messaging/sender'
import {
  authenticateOperator,
  type OperatorAuthDeps,
  type OperatorPlugin,
  operatorPlugin,
} from './operator/plugin'
import { openPaymentProvider } from './payments'
import type { PaymentProvider } from './payments/provider'
import type { PrimaryLink } from './primary-link'
import { openObjectStore } from './storage'
import type { ObjectStore } from './storage/store'
import { type DatabaseHandle, openControlDatabase, type PoolLimits, TenantPool } from './tenancy/databases'
import { raiseFileLimit } from './tenancy/file-limit'
import { countTenants } from './tenancy/tenants'
import { registerTimeZoneSource } from './tenancy/time-zones'
import {
  afterEachCommit,
  beforeEachCommit,
  commitsPending,
  groupCommits,
  pollWaitingLocks,
} from './tenancy/transaction'
import { WriteWaits } from './tenancy/write-waits'

export interface Platform {
  config: Config
  log: Logger
  control: DatabaseHandle
  pool: TenantPool
  /** The built-in development issuer; null when AUTH_JWKS_URL names a real identity provider. */
  devIssuer: DevIssuer | null
  auth: AuthPlugin
  /** The `operator: true` route option of the operator API (/admin). */
  operator: OperatorPlugin
  /** Whether the request carries a valid operator credential (for routes that answer anyone, in more detail to operators). */
  isOperator(request: Request): Promise<boolean>
  /** This node of a cluster when CLUSTER_ETCD_URL is set (`serve` starts it); null on one node. */
  cluster: ClusterNode | null
  /** Litestream supervision when LITESTREAM_REPLICA_URL is set and the server runs. */
  replication: LitestreamSupervisor | null
  /**
   * What `serve` still makes after it starts listening (the embedded demo tenant), by the name of
   * its readiness check: /health/ready answers 503 while any is here.
   */
  startupWork: Set<string>
  /** The in-process scheduler; `serve` starts it, tests start it or run jobs themselves. */
  jobs: Scheduler
  /** Guest messages (gift card delivery, order-ready notices): SMTP_URL, else recorded in the database. */
  messages: MessageSender
  /** When each tenant next has work for each job (`forEachDueTenant` reads it). */
  dueIndex: DueIndex
  /** The webhook delivery worker (job `webhooks.deliver`). */
  webhooks: DeliveryWorker
  /** Where media bytes live: the embedded store under DATA_DIR, or S3 when MEDIA_S3_BUCKET is set. */
  storage: ObjectStore
  /**
   * `listener` runs once, when the server begins to stop (`serve`'s drain) or the platform closes:
   * long-lived responses (the event stream) end then, with a reconnect hint, so the stop does not
   * wait for them.
   */
  onStop(listener: () => void): void
  /** Runs the `onStop` listeners (once): `serve` calls it as its drain begins. */
  stopping(): void
  /** Stops the jobs (waiting for running ones, e.g. webhook requests in flight), then closes. */
  shutdown(): Promise<void>
  /** What the auth plugin was built from, for routes that authenticate on their own terms. */
  authDeps: AuthDeps
  /** Where cards are kept: the configured PAYMENT_PROVIDER. */
  payments: PaymentProvider
  /** Closes at once: jobs stop being scheduled, databases close. */
  close(): void
  /** In an HTTP worker (WORKERS > 1): its line to the primary, which runs the jobs. */
  primary: PrimaryLink | null
  /** In an HTTP worker: which worker holds which tenant (http/worker-affinity.ts). */
  affinity: WorkerAffinity | null
}

export interface PlatformOptions {
  /** Staff users, roles, jobs and locations as the modules describe them (src/modules/access.ts). */
  access: AccessSources
  /**
   * Each module job's answer of when a tenant next has work (src/modules/due-work.ts): computed
   * after every write to a tenant, by every process that writes tenants.
   */
  dueWork: readonly DueWorkSource[]
  /** In-process tests only: honour `x-staff-user-id`. Never reachable from the environment. */
  trustStaffUserIdHeader?: boolean
  /** In-process tests only: a payment provider to use instead of the configured one. */
  paymentProvider?: PaymentProvider
  /**
   * Servers (serve, createApp): group the commits of tenant writes when `config.groupCommit`. The
   * CLI's commands commit each write at once: they may exit right after it.
   */
  serving?: boolean
  /**
   * The primary of HTTP workers (src/cli/workers.ts): it serves no request, so its writes (the
   * jobs', deliveries') commit at once instead of in groups, holding a tenant's write lock for their
   * transaction alone rather than for a turn of this process's event loop while the workers wait;
   * they take the lock in turn with the workers (platform/tenancy/transaction.ts, `groupCommits`).
   */
  jobsOnly?: boolean
  /**
   * An HTTP worker of `serve` (src/cli/workers.ts): its scheduler never starts, triggers and
   * delivery hints go to the primary, and its log lines carry its id.
   */
  primary?: PrimaryLink
}

/** Files kept for everything but pooled tenants: the control database, sockets, Litestream's pipes. */
const FILES_RESERVED = 1024
/** A pooled connection's files: the database, its WAL and its shared memory. */
const FILES_PER_CONNECTION = 3
/** Litestream 0.3 held ~7 files per database it replicated (README "Several nodes"). */
const LITESTREAM_FILES_PER_DATABASE = 8
/**
 * The files asked for are for TENANT_POOL_MEMORY over this many bytes a connection (the pool
 * measured 236-380 KiB: bench/README.md); the pool never holds more than the limit has files for.
 */
const CONNECTION_BYTES_FOR_FILES = 256 * 1024

/**
 * What bounds the tenant pool. A server raises its open-file limit to what the pool may hold and
 * Litestream (which inherits it) needs; where it cannot, the pool holds what the limit allows and
 * start-up says in one line what to set.
 */
function poolLimits(config: Config, log: Logger, serving: boolean, tenants: number): PoolLimits {
  const limits = { memoryBytes: config.tenantPoolMemory, maxOpen: config.tenantPoolSize }
  if (!serving) return limits
  const mostOpen = config.tenantPoolSize ?? Math.floor(config.tenantPoolMemory / CONNECTION_BYTES_FOR_FILES)
  const forLitestream = config.litestreamReplicaUrl ? LITESTREAM_FILES_PER_DATABASE * (tenants + 1) : 0
  const wanted = Math.max(FILES_PER_CONNECTION * mostOpen, forLitestream) + FILES_RESERVED
  const files = raiseFileLimit(wanted)
  if (!files) return limits
  // Never more connections than the limit has files for, whatever size they measure.
  const maxOpen = Math.max(
    1,
    Math.min(limits.maxOpen ?? Infinity, Math.floor((files.soft - FILES_RESERVED) / FILES_PER_CONNECTION)),
  )
  if (files.soft < wanted)
    log.warn(
      `open-file limit ${files.soft} holds the tenant pool to ${Math.min(maxOpen, mostOpen)} connections: raise it to ${wanted} (ulimit -n ${wanted}, systemd LimitNOFILE=${wanted}, docker run --ulimit nofile=${wanted})`,
    )
  return { ...limits, maxOpen }
}

export async function openPlatform(config: Config, options: PlatformOptions): Promise<Platform> {
  const primary = options.primary ?? null
  const log = createLogger(config.logLevel, primary ? { worker: primary.workerId } : {})
  const sqliteOptions = {
    synchronous: config.sqliteSynchronous,
    busyTimeoutMs: config.sqliteBusyTimeoutMs,
  }
  const checkpoints = config.litestreamReplicaUrl ? 'external' : undefined
  const signals = new AuthSignals(config.dataDir)
  const writeWaits = new WriteWaits(config.dataDir, pollWaitingLocks)
  const control = openControlDatabase(config.dataDir, { ...sqliteOptions, walCheckpoint: checkpoints })
  watchAuthVersion(control.sqlite, () => signals.bumpControl())
  const legacyCredentials = new LegacyCredentialCarrier(control.sqlite)
  let cluster: ClusterNode | null = null
  // HTTP workers leave their tenants' checkpoints to their primary (tenancy/checkpoints.ts).
  const tenantCheckpoints = primary ? 'primary' : options.jobsOnly ? 'for-workers' : 'background'
  const tenantOptions = { ...sqliteOptions, walCheckpoint: checkpoints ?? tenantCheckpoints } as const
  const pool = new TenantPool(
    config.dataDir,
    poolLimits(config, log, options.serving ?? false, countTenants(control.db)),
    tenantOptions,
    (tenantId, db, created) => {
      const sqlite = db.$client
      legacyCredentials.carry(tenantId, sqlite)
      watchAuthVersion(sqlite, () => signals.bumpTenant(tenantId))
      afterEachCommit(sqlite, () => tenantWritten(tenantId))
      beforeEachCommit(
        db,
        (tx) => fanOutAtCommit(tx, tenantId),
        (error) => {
          log.warn('webhook fan-out at commit failed: delivery fans the events out in its visit', {
            tenantId,
            error: error instanceof Error ? error.message : String(error),
          })
          deliveriesQueued(tenantId)
        },
      )
      // A new tenant's answers are stored as if it had been written: no job opens it to learn them.
      if (created) tenantWritten(tenantId)
      cluster?.gate(sqlite, tenantId)
      if (options.serving && config.groupCommit)
        groupCommits(sqlite, config.sqliteBusyTimeoutMs, writeWaits.of(tenantId), options.jobsOnly)
    },
  )
  const dueIndex = new DueIndex(control.db, pool, log)
  // An HTTP worker's primary stores the due work of the tenants it writes (primary-link.ts).
  const tenantWritten = (tenantId: string) =>
    primary ? primary.tenantWritten(tenantId) : dueIndex.committed(tenantId)
  for (const source of options.dueWork) dueIndex.register(source)
  if (config.cluster) {
    const node = new ClusterNode({
      config: { ...config, cluster: config.cluster },
      log,
      control: control.db,
      pool,
      replaced: (tenantId) => signals.bumpTenant(tenantId),
    })
    pool.isServed = (tenantId) => node.writable(tenantId)
    cluster = node
  }
  const devIssuer = config.authJwksUrl
    ? null
    : await openDevIssuer(config.dataDir, config.authIssuer, config.authAudience)
  const verifyToken = createTokenVerifier({
    jwks: config.authJwksUrl ? { url: config.authJwksUrl } : { keys: devIssuer!.jwks },
    issuer: config.authIssuer,
    audience: config.authAudience,
  })
  const deps: AuthDeps = {
    config,
    control: control.db,
    pool,
    verifyToken,
    trustStaffUserIdHeader: options.trustStaffUserIdHeader ?? false,
    limiter: new SharedWindowLimiter(config.dataDir),
    access: options.access,
    principals: new PrincipalCache(signals),
    tenants: new TenantDirectory(control.db, signals),
    legacyTokenTenant: (hash) => legacyTokenTenant(control.db, hash) ?? cluster?.legacyTokenTenant(hash),
  }
  const forgetTimeZones = registerTimeZoneSource((tenantId) => deps.tenants.byTenantId(tenantId)?.timezone)
  const operatorDeps: OperatorAuthDeps = {
    control: control.db,
    verifyToken,
    claim: config.authOperatorClaim,
    sharedOperatorKey: cluster ? (hash) => cluster?.operatorKey(hash) : undefined,
  }
  const jobs = new Scheduler(log, primary)
  const storage = openObjectStore(config)
  const webhooks = new DeliveryWorker({ config, log, control, pool, jobs, dueIndex, primary })
  const expiring: DueWorkSource = {
    job: 'idempotency.purge',
    nextWork: (_tenant, db) => nextIdempotencyExpiry(db),
  }
  dueIndex.register(expiring)
  jobs.register({
    name: expiring.job,
    intervalMs: 3600 * 1000,
    run: (signal) =>
      forEachDueTenant({ control, pool, dueIndex }, signal, expiring, (_tenant, db) => {
        purgeExpiredIdempotencyKeys(db)
      }),
  })
  const stopListeners: (() => void)[] = []
  const stopping = () => {
    for (const listener of stopListeners.splice(0)) listener()
  }
  let closed = false
  const close = () => {
    if (closed) return
    closed = true
    stopping()
    forgetTimeZones()
    void jobs.stop()
    webhooks.close()
    storage.close?.()
    dueIndex.beginClose()
    pool.close()
    dueIndex.close()
    control.sqlite.close(false)
  }
  return {
    config,
    log,
    control,
    pool,
    devIssuer,
    auth: authPlugin(deps),
    operator: operatorPlugin(operatorDeps),
    isOperator: (request) =>
      authenticateOperator(operatorDeps, request).then(
        () => true,
        () => false,
      ),
    cluster,
    replication: null,
    startupWork: new Set(),
    jobs,
    messages: createMessageSender(config, log),
    dueIndex,
    webhooks,
    storage,
    authDeps: deps,
    payments: options.paymentProvider ?? openPaymentProvider(config),
    onStop: (listener) => void stopListeners.push(listener),
    stopping,
    async shutdown() {
      stopping()
      await jobs.stop()
      // The last turn's writes commit first, so their due work is stored before the files close.
      await commitsPending()
      close()
    },
    close,
    primary,
    affinity: primary
      ? new WorkerAffinity(
          primary.workerId,
          config.workers,
          workerSocketDir(config.dataDir),
          pool,
          () => countTenants(control.db),
          (id) => primary.status().workers.some((worker) => worker.id === id && worker.state === 'serving'),
        )
      : null,
  }
}
