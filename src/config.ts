// Every environment variable the service reads, parsed and validated in one place.
// A bad value stops start-up with one line naming the variable (see ConfigError).
import { availableParallelism, hostname, totalmem } from 'node:os'
import { resolve } from 'node:path'

/** How deep objects and arrays may nest in a JSON body: deeper than any schema here needs. */
export const DEFAULT_MAX_JSON_DEPTH = 32

export type SqliteSynchronous = 'OFF' | 'NORMAL' | 'FULL' | 'EXTRA'

export interface Config {
  port: number
  host: string
  dataDir: string
  defaultTenantSlug: string
  /** What the embedded default tenant is filled with on an empty data directory. */
  defaultTenantSeed: 'demo' | 'empty'
  /** Bytes the open tenant databases may take: the pool holds as many as fit (databases.ts). */
  tenantPoolMemory: number
  /** At most this many open tenant databases, whatever their memory; unset: memory decides. */
  tenantPoolSize: number | undefined
  /**
   * HTTP worker processes of `serve`, beside one primary that runs the jobs (src/cli/workers.ts);
   * 1: one process serves and runs everything. One on a cluster's node.
   */
  workers: number
  /** Set only in a worker's environment, by its primary: the worker's id (1..WORKERS). */
  workerId: number | undefined
  /** JWKS of the identity provider; when absent the built-in development issuer is on. */
  authJwksUrl: string | undefined
  authIssuer: string
  authAudience: string
  authTrustIdentityHeaders: boolean
  /** The JWT claim that makes a token an operator's (operator API under /admin); unset: only `opk_` keys. */
  authOperatorClaim: OperatorClaim | undefined
  sqliteSynchronous: SqliteSynchronous
  sqliteBusyTimeoutMs: number
  maxBodyBytes: number
  /** How deep objects and arrays may nest in a JSON body (platform/http/request-body.ts). */
  maxJsonDepth: number
  passcodeSessionTtlSeconds: number
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent'
  /** How long `serve` may take to stop gracefully after SIGTERM/SIGINT before it exits anyway. */
  shutdownTimeoutMs: number
  /** `file:///path` or `s3://bucket/prefix`: turns on continuous replication with Litestream. */
  litestreamReplicaUrl: string | undefined
  litestreamBin: string | undefined
  litestreamS3: { endpoint?: string; region?: string; forcePathStyle: boolean }
  /** How often Litestream copies each WAL and uploads what is new (platform/backup/litestream.ts). */
  litestreamSyncIntervalMs: number
  /** Databases per Litestream process. */
  litestreamShardSize: number
  backupDir: string
  /** Seconds between snapshots of every database; 0 turns the snapshot job off. */
  backupIntervalSeconds: number
  backupRetention: number
  /** Delays before each retry of a failed webhook delivery; its length is the number of retries. */
  webhookRetryScheduleMs: number[]
  /** Allow webhook targets on private, loopback and link-local addresses (tests, closed networks). */
  webhookAllowPrivateTargets: boolean
  /** Check every response against its schema (platform/http/response-checks.ts); on in process. */
  responseValidation: boolean
  /** Servers: the writes of one event-loop turn share a commit per tenant database (transaction.ts). */
  groupCommit: boolean
  /** How long one webhook request may take before it counts as failed. */
  webhookTimeoutMs: number
  /** How often the delivery worker looks for due deliveries. */
  webhookPollIntervalMs: number
  /** How far back `/events/stream` resumes (`Last-Event-ID`, `since`); older ids get a `reset` event. */
  eventStreamRetentionMs: number
  /**
   * How often a tenant with open event streams has its outbox read for events committed by other
   * processes (this process's own commits wake the streams at once).
   */
  eventStreamPollIntervalMs: number
  /** Open event streams one credential (token, session or staff subject) may hold in one process. */
  eventStreamMaxPerCredential: number
  /** Open event streams one process serves. */
  eventStreamMaxStreams: number
  /** Bytes queued for one event stream beyond which its client counts as too slow and is dropped. */
  eventStreamBufferBytes: number
  /** SMTP server for guest email (gift card delivery...); unset: the embedded sender records messages. */
  smtpUrl: string | undefined
  /** From address of guest email sent through SMTP_URL. */
  smtpFrom: string
  paymentGateway: PaymentGateway
  /** Secret API key of the Stripe account; required when paymentGateway is `stripe`. */
  stripeSecretKey: string | undefined
  /** Base URL of the Stripe API; tests point it at a local fake server. */
  stripeApiUrl: string
  /** Largest SQLite file `POST /admin/v1/tenants/import` accepts. */
  tenantImportMaxBytes: number
  /** Largest data file (CSV or NDJSON) `POST /imports` accepts. */
  importMaxBytes: number
  /** Largest media object accepted (direct uploads and `complete`). */
  mediaMaxBytes: number
  /** How long a direct-upload URL stays valid. */
  mediaUploadTtlSeconds: number
  /** Base of public media URLs (and, embedded, of upload URLs); unset: derived (see README). */
  mediaPublicBaseUrl: string | undefined
  /** S3 (or S3-compatible) object store for media; unset: the embedded store under DATA_DIR/media. */
  mediaS3: MediaS3Config | undefined
  /** Several nodes coordinated by etcd (README "Several nodes"); unset: one node, as always. */
  cluster: ClusterConfig | undefined
}

export interface ClusterConfig {
  /** Client URL of etcd (its v3 JSON gateway is under /v3/). */
  etcdUrl: string
  /** Key prefix in etcd, so several services can share one etcd. */
  prefix: string
  /** NODE_ID, default the host name: one node per machine. */
  nodeId: string
  /** Where other nodes reach this one; unset: http://HOST:PORT as it listens. */
  advertiseUrl: string | undefined
  /** A request for a tenant another node owns: proxied to it, or answered 307 with its address. */
  routing: 'forward' | 'redirect'
  /** The node's etcd lease: it stops writing before this runs out without a renewal. */
  leaseTtlSeconds: number
}

/** `name`: the claim must be `true`; `name=value`: the claim must be that value or a list holding it. */
export interface OperatorClaim {
  name: string
  value: string | null
}

export interface MediaS3Config {
  bucket: string
  /** An S3-compatible endpoint (MinIO, R2, ...); unset: AWS. */
  endpoint: string | undefined
  region: string
  /** Unset: the AWS SDK's default credential chain (environment, profile, instance role). */
  accessKeyId: string | undefined
  secretAccessKey: string | undefined
  forcePathStyle: boolean
  /** Key prefix inside the bucket, e.g. `media/`. */
  prefix: string
}

export type PaymentGateway = 'sandbox' | 'stripe'

export class ConfigError extends Error {
  constructor(variable: string, problem: string) {
    super(`${variable}: ${problem}`)
    this.name = 'ConfigError'
  }
}

type Env = Record<string, string | undefined>

function text(env: Env, name: string, fallback: string): string {
  const value = env[name]?.trim()
  return value ? value : fallback
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]?.trim()
  if (!raw) return fallback
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `expected a whole number, got "${raw}"`)
  const value = Number(raw)
  if (value < min || value > max) throw new ConfigError(name, `expected ${min}..${max}, got ${value}`)
  return value
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase()
  if (!raw) return fallback
  if (raw === 'true' || raw === '1') return true
  if (raw === 'false' || raw === '0') return false
  throw new ConfigError(name, `expected true or false, got "${raw}"`)
}

function oneOf<T extends string>(env: Env, name: string, values: readonly T[], fallback: T): T {
  const raw = env[name]?.trim()
  if (!raw) return fallback
  const match = values.find((v) => v.toLowerCase() === raw.toLowerCase())
  if (!match) throw new ConfigError(name, `expected one of ${values.join(', ')}, got "${raw}"`)
  return match
}

function url(env: Env, name: string): string | undefined {
  const raw = env[name]?.trim()
  if (!raw) return undefined
  try {
    const parsed = new URL(raw)
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error()
    return parsed.toString()
  } catch {
    throw new ConfigError(name, `expected an http(s) URL, got "${raw}"`)
  }
}

function replicaUrl(env: Env, name: string): string | undefined {
  const raw = env[name]?.trim()
  if (!raw) return undefined
  if (!/^(file:\/\/\/.+|s3:\/\/[^/]+.*)$/.test(raw)) {
    throw new ConfigError(name, `expected file:///path or s3://bucket/prefix, got "${raw}"`)
  }
  return raw
}

const byteUnits: Record<string, number> = {
  '': 1,
  b: 1,
  kb: 1e3,
  kib: 2 ** 10,
  mb: 1e6,
  mib: 2 ** 20,
  gb: 1e9,
  gib: 2 ** 30,
  tb: 1e12,
  tib: 2 ** 40,
}

/** A size in bytes, with an optional unit: `536870912`, `512MiB`, `1.5GB`. */
function byteSize(env: Env, name: string, fallback: number, min: number): number {
  const raw = env[name]?.trim()
  if (!raw) return fallback
  const match = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(raw)
  const unit = byteUnits[match?.[2]?.toLowerCase() ?? 'none']
  if (!match || unit === undefined)
    throw new ConfigError(name, `expected bytes such as 536870912, 512MiB or 2GB, got "${raw}"`)
  const value = Math.floor(Number(match[1]) * unit)
  if (value < min) throw new ConfigError(name, `expected at least ${min} bytes, got ${value}`)
  return value
}

/** A quarter of the machine's memory, at most 4 GiB: TENANT_POOL_MEMORY's default. */
export const defaultTenantPoolMemory = () => Math.min(Math.floor(totalmem() / 4), 4 * 2 ** 30)

const durationUnits: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }

/** A comma-separated list of durations such as `5s,5m,30m,2h` (units ms, s, m, h). */
function durations(env: Env, name: string, fallback: number[]): number[] {
  const raw = env[name]?.trim()
  if (!raw) return fallback
  const parts = raw.split(',').map((part) => part.trim())
  if (parts.length > 20) throw new ConfigError(name, `expected at most 20 durations, got ${parts.length}`)
  return parts.map((part) => {
    const match = /^(\d+)(ms|s|m|h)$/.exec(part)
    if (!match) throw new ConfigError(name, `expected durations such as 5s,5m,2h, got "${part}"`)
    const value = Number(match[1]) * durationUnits[match[2]!]!
    if (value > 7 * 24 * 3_600_000) throw new ConfigError(name, `"${part}" is longer than 7 days`)
    return value
  })
}

function smtpUrl(env: Env, name: string): string | undefined {
  const raw = env[name]?.trim()
  if (!raw) return undefined
  let parsed: URL
  try {
    parsed = new URL(raw)
  } catch {
    throw new ConfigError(name, 'expected an smtp:// or smtps:// URL')
  }
  // The URL may carry a password: never echo it back.
  if ((parsed.protocol !== 'smtp:' && parsed.protocol !== 'smtps:') || !parsed.hostname)
    throw new ConfigError(name, 'expected an smtp:// or smtps:// URL with a host')
  return raw
}

function mediaS3(env: Env): MediaS3Config | undefined {
  const bucket = env.MEDIA_S3_BUCKET?.trim()
  const others = [
    'MEDIA_S3_ENDPOINT',
    'MEDIA_S3_ACCESS_KEY_ID',
    'MEDIA_S3_SECRET_ACCESS_KEY',
    'MEDIA_S3_PREFIX',
  ]
  if (!bucket) {
    const stray = others.find((name) => env[name]?.trim())
    if (stray) throw new ConfigError(stray, 'set MEDIA_S3_BUCKET too, or unset it')
    return undefined
  }
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket))
    throw new ConfigError('MEDIA_S3_BUCKET', `expected an S3 bucket name, got "${bucket}"`)
  const accessKeyId = env.MEDIA_S3_ACCESS_KEY_ID?.trim() || undefined
  const secretAccessKey = env.MEDIA_S3_SECRET_ACCESS_KEY?.trim() || undefined
  if (Boolean(accessKeyId) !== Boolean(secretAccessKey))
    throw new ConfigError(
      accessKeyId ? 'MEDIA_S3_SECRET_ACCESS_KEY' : 'MEDIA_S3_ACCESS_KEY_ID',
      'set both MEDIA_S3_ACCESS_KEY_ID and MEDIA_S3_SECRET_ACCESS_KEY, or neither',
    )
  const prefix = env.MEDIA_S3_PREFIX?.trim() ?? ''
  if (prefix && !/^[A-Za-z0-9!_.*'()/-]+\/$/.test(prefix))
    throw new ConfigError('MEDIA_S3_PREFIX', `expected a key prefix ending in "/", got "${prefix}"`)
  return {
    bucket,
    endpoint: url(env, 'MEDIA_S3_ENDPOINT'),
    region: text(env, 'MEDIA_S3_REGION', 'us-east-1'),
    accessKeyId,
    secretAccessKey,
    forcePathStyle: boolean(env, 'MEDIA_S3_FORCE_PATH_STYLE', false),
    prefix,
  }
}

function operatorClaim(env: Env, name: string): OperatorClaim | undefined {
  const raw = env[name]?.trim()
  if (!raw) return undefined
  const match = /^([A-Za-z0-9_:/.-]+)(?:=(.+))?$/.exec(raw)
  if (!match) throw new ConfigError(name, `expected a claim name, or name=value, got "${raw}"`)
  return { name: match[1]!, value: match[2] ?? null }
}

/** The variable a primary sets in each worker's environment (never set by hand). */
export const WORKER_ID_VARIABLE = 'RESTAURANT_OPS_WORKER_ID'
/** The most HTTP workers: their ids are 1 to this (the shared tables hold a row for each). */
export const MAX_WORKERS = 256

/**
 * WORKERS: the machine's cores by default. Two workers on two cores read 1.6× and write one tenant
 * 1.3-1.5× one process (bench/README.md, tenth pass). One on a cluster's node, whose routing is per
 * process.
 */
function workers(env: Env): number {
  const clustered = Boolean(env.CLUSTER_ETCD_URL?.trim())
  const count = integer(env, 'WORKERS', clustered ? 1 : availableParallelism(), 1, MAX_WORKERS)
  if (clustered && count > 1) throw new ConfigError('WORKERS', 'a cluster node serves in one process: set 1')
  return count
}

function cluster(env: Env, replica: string | undefined): ClusterConfig | undefined {
  const etcdUrl = url(env, 'CLUSTER_ETCD_URL')
  if (!etcdUrl) {
    const stray = ['NODE_ID', 'NODE_ADVERTISE_URL', 'CLUSTER_ROUTING'].find((name) => env[name]?.trim())
    if (stray) throw new ConfigError(stray, 'set CLUSTER_ETCD_URL too, or unset it')
    return undefined
  }
  if (!replica)
    throw new ConfigError('LITESTREAM_REPLICA_URL', 'required with CLUSTER_ETCD_URL: tenants move through it')
  const nodeId = text(env, 'NODE_ID', hostname())
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/.test(nodeId))
    throw new ConfigError('NODE_ID', `expected letters, digits, '.', '_' or '-', got "${nodeId}"`)
  const prefix = text(env, 'CLUSTER_PREFIX', '/restaurant-ops/')
  if (!/^\/[A-Za-z0-9_./-]*\/$/.test(prefix))
    throw new ConfigError('CLUSTER_PREFIX', `expected a key prefix such as /restaurant-ops/, got "${prefix}"`)
  return {
    etcdUrl: etcdUrl.replace(/\/+$/, ''),
    prefix,
    nodeId,
    advertiseUrl: url(env, 'NODE_ADVERTISE_URL')?.replace(/\/+$/, ''),
    routing: oneOf(env, 'CLUSTER_ROUTING', ['forward', 'redirect'] as const, 'forward'),
    leaseTtlSeconds: integer(env, 'CLUSTER_LEASE_TTL', 10, 2, 300),
  }
}

function slug(env: Env, name: string, fallback: string): string {
  const value = text(env, name, fallback)
  if (!/^[a-z0-9][a-z0-9-]{0,62}$/.test(value)) throw new ConfigError(name, `expected a slug, got "${value}"`)
  return value
}

/** The default retry schedule of webhook deliveries: 5s, 5m, 30m, 2h, 5h, 10h. */
export const DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS = [
  5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000,
]

function stripeSecretKey(env: Env, gateway: PaymentGateway): string | undefined {
  const value = env.STRIPE_SECRET_KEY?.trim() || undefined
  if (gateway === 'stripe' && !value)
    throw new ConfigError('STRIPE_SECRET_KEY', 'required when PAYMENT_PROVIDER=stripe')
  if (value && !/^(sk|rk)_[A-Za-z0-9_]+$/.test(value))
    throw new ConfigError(
      'STRIPE_SECRET_KEY',
      'expected a Stripe secret or restricted key (sk_... or rk_...)',
    )
  return value
}

export function loadConfig(env: Env = process.env): Config {
  const dataDir = resolve(text(env, 'DATA_DIR', './tenants'))
  const paymentGateway = oneOf(env, 'PAYMENT_PROVIDER', ['sandbox', 'stripe'] as const, 'sandbox')
  const litestreamReplicaUrl = replicaUrl(env, 'LITESTREAM_REPLICA_URL')
  return {
    port: integer(env, 'PORT', 3000, 0, 65535),
    host: text(env, 'HOST', '0.0.0.0'),
    dataDir,
    defaultTenantSlug: slug(env, 'DEFAULT_TENANT_SLUG', 'default'),
    defaultTenantSeed: oneOf(env, 'DEFAULT_TENANT_SEED', ['demo', 'empty'] as const, 'demo'),
    tenantPoolMemory: byteSize(env, 'TENANT_POOL_MEMORY', defaultTenantPoolMemory(), 2 ** 20),
    tenantPoolSize: env.TENANT_POOL_SIZE?.trim()
      ? integer(env, 'TENANT_POOL_SIZE', 1, 1, 1_000_000)
      : undefined,
    workers: workers(env),
    workerId: env[WORKER_ID_VARIABLE]?.trim()
      ? integer(env, WORKER_ID_VARIABLE, 1, 1, MAX_WORKERS)
      : undefined,
    authJwksUrl: url(env, 'AUTH_JWKS_URL'),
    authIssuer: text(env, 'AUTH_ISSUER', 'restaurant-ops-dev'),
    authAudience: text(env, 'AUTH_AUDIENCE', 'restaurant-ops'),
    authTrustIdentityHeaders: boolean(env, 'AUTH_TRUST_IDENTITY_HEADERS', false),
    authOperatorClaim: operatorClaim(env, 'AUTH_OPERATOR_CLAIM'),
    sqliteSynchronous: oneOf(env, 'SQLITE_SYNCHRONOUS', ['OFF', 'NORMAL', 'FULL', 'EXTRA'], 'NORMAL'),
    sqliteBusyTimeoutMs: integer(env, 'SQLITE_BUSY_TIMEOUT_MS', 5000, 0, 600_000),
    maxBodyBytes: integer(env, 'MAX_BODY_BYTES', 1_048_576, 1024, 1_073_741_824),
    maxJsonDepth: integer(env, 'MAX_JSON_DEPTH', DEFAULT_MAX_JSON_DEPTH, 8, 256),
    passcodeSessionTtlSeconds: integer(env, 'PASSCODE_SESSION_TTL', 12 * 3600, 60, 30 * 86400),
    logLevel: oneOf(env, 'LOG_LEVEL', ['debug', 'info', 'warn', 'error', 'silent'], 'info'),
    // Below Docker's 10 s between SIGTERM and SIGKILL, so the deadline's log line gets out.
    shutdownTimeoutMs: integer(env, 'SHUTDOWN_TIMEOUT_MS', 8000, 1000, 600_000),
    paymentGateway,
    stripeSecretKey: stripeSecretKey(env, paymentGateway),
    stripeApiUrl: url(env, 'STRIPE_API_URL') ?? 'https://api.stripe.com/',
    litestreamReplicaUrl,
    litestreamBin: env.LITESTREAM_BIN?.trim() || undefined,
    litestreamS3: {
      endpoint: url(env, 'LITESTREAM_S3_ENDPOINT'),
      region: env.LITESTREAM_S3_REGION?.trim() || undefined,
      forcePathStyle: boolean(env, 'LITESTREAM_S3_FORCE_PATH_STYLE', false),
    },
    // A cluster loses the writes its replicas miss when a node dies: it syncs four times as often.
    litestreamSyncIntervalMs: integer(
      env,
      'LITESTREAM_SYNC_INTERVAL_MS',
      env.CLUSTER_ETCD_URL?.trim() ? 250 : 1000,
      100,
      60_000,
    ),
    litestreamShardSize: integer(env, 'LITESTREAM_SHARD_SIZE', 50, 1, 10_000),
    backupDir: resolve(text(env, 'BACKUP_DIR', `${dataDir}/backups`)),
    backupIntervalSeconds: integer(env, 'BACKUP_INTERVAL', 3600, 0, 30 * 86400),
    backupRetention: integer(env, 'BACKUP_RETENTION', 24, 1, 10_000),
    webhookRetryScheduleMs: durations(env, 'WEBHOOK_RETRY_SCHEDULE', DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS),
    webhookAllowPrivateTargets: boolean(env, 'WEBHOOK_ALLOW_PRIVATE_TARGETS', false),
    responseValidation: boolean(env, 'RESPONSE_VALIDATION', false),
    groupCommit: boolean(env, 'GROUP_COMMIT', true),
    webhookTimeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 120_000),
    webhookPollIntervalMs: integer(env, 'WEBHOOK_POLL_INTERVAL_MS', 1000, 1, 3_600_000),
    eventStreamRetentionMs: durations(env, 'EVENT_STREAM_RETENTION', [24 * 3_600_000]).reduce(
      (a, b) => a + b,
      0,
    ),
    eventStreamPollIntervalMs: integer(env, 'EVENT_STREAM_POLL_INTERVAL_MS', 250, 10, 60_000),
    eventStreamMaxPerCredential: integer(env, 'EVENT_STREAM_MAX_PER_CREDENTIAL', 10, 1, 10_000),
    eventStreamMaxStreams: integer(env, 'EVENT_STREAM_MAX_STREAMS', 5000, 1, 1_000_000),
    eventStreamBufferBytes: byteSize(env, 'EVENT_STREAM_BUFFER', 256 * 1024, 4096),
    smtpUrl: smtpUrl(env, 'SMTP_URL'),
    smtpFrom: text(env, 'SMTP_FROM', 'no-reply@localhost'),
    tenantImportMaxBytes: integer(env, 'TENANT_IMPORT_MAX_BYTES', 1_073_741_824, 4096, 68_719_476_736),
    importMaxBytes: integer(env, 'IMPORT_MAX_BYTES', 52_428_800, 1024, 1_073_741_824),
    mediaMaxBytes: integer(env, 'MEDIA_MAX_BYTES', 26_214_400, 1, 5_368_709_120),
    mediaUploadTtlSeconds: integer(env, 'MEDIA_UPLOAD_TTL', 900, 10, 7 * 86400),
    mediaPublicBaseUrl: url(env, 'MEDIA_PUBLIC_BASE_URL')?.replace(/\/+$/, ''),
    mediaS3: mediaS3(env),
    cluster: cluster(env, litestreamReplicaUrl),
  }
}

/**
 * Defaults for in-process use (tests, the test kit, CLI helpers), overridable field by field. Every
 * response is checked against its schema here: that is where a wrong one should fail loudly.
 */
export function configFor(overrides: Partial<Config>): Config {
  return { ...loadConfig({}), logLevel: 'silent', responseValidation: true, ...overrides }
}
