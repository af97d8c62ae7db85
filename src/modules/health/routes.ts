// Service description and health probes. Public: load balancers call them without credentials.
// What could tell an outsider about the data or the machine (a database's error text, a job's
// last error, the slug of the tenant a failover moved) is shown to operators only (an `opk_` key
// or an operator JWT); anyone else gets `failed`, null and null.
import { Elysia, t } from 'elysia'
import pkg from '../../../package.json'
import type { Platform } from '../../platform/platform'
import { findTenantBySlug, firstTenant } from '../../platform/tenancy/tenants'
import { ReplicationLag } from '../backups'

const HealthStatus = t.Object({
  status: t.Union([t.Literal('ok'), t.Literal('unavailable')]),
  foundationEnabled: t.Boolean(),
  checks: t.Record(t.String(), t.String(), {
    description:
      'Each database touched and its result (`ok`; `failed`, or the error to operators); `replication` is the Litestream state when it runs; on `/health/ready`, start-up work still to do is `pending` (`defaultTenant`).',
  }),
  jobs: t.Array(
    t.Object({
      name: t.String(),
      intervalMs: t.Integer({ description: 'The pause between the end of one run and the next.' }),
      running: t.Boolean(),
      runs: t.Integer(),
      failures: t.Integer(),
      consecutiveFailures: t.Integer({ description: 'Failed runs since the last success.' }),
      lastStartedAt: t.Nullable(t.String()),
      lastSuccessAt: t.Nullable(t.String()),
      lastError: t.Nullable(t.String({ description: 'Shown to operators only; null for anyone else.' })),
      lastErrorAt: t.Nullable(t.String()),
      nextRunAt: t.Nullable(
        t.String({
          description: 'When the next run is planned; null while one runs or before `serve` starts.',
        }),
      ),
    }),
    { description: 'Background jobs: last run, next run and failures of each.' },
  ),
  replication: t.Optional(
    t.Array(t.Composite([t.Object({ name: t.String() }), ReplicationLag]), {
      description:
        'To operators, while Litestream runs: each database it replicates (`control` or the tenant id), its lag and last upload.',
    }),
  ),
  tenantPool: t.Optional(
    t.Object(
      {
        open: t.Integer({ description: 'Tenant databases open now.' }),
        capacity: t.Integer({
          description:
            'How many it holds: TENANT_POOL_MEMORY over the measured size of a connection, or TENANT_POOL_SIZE, or what the open-file limit allows.',
        }),
        memoryBytes: t.Integer({ description: 'TENANT_POOL_MEMORY.' }),
        connectionBytes: t.Integer({
          description: 'Measured: the mean growth of resident memory across the opening of a connection.',
        }),
        hits: t.Integer({ description: 'Uses of a tenant database that found it open, since start.' }),
        misses: t.Integer({ description: 'Uses that had to open it.' }),
        hitRate: t.Number({ description: 'hits / (hits + misses); 1 before any use.' }),
        evictions: t.Integer({ description: 'Connections closed to make room.' }),
      },
      { description: 'Operators only: the pool of open tenant databases.' },
    ),
  ),
  tenantsPassed: t.Optional(
    t.Object(
      {
        passed: t.Integer({
          description: 'Requests this worker passed to the worker that holds their tenant.',
        }),
        received: t.Integer({ description: 'Requests the other workers passed to this one.' }),
      },
      {
        description:
          'Operators only, with several HTTP workers: each tenant is held by one worker, which the others pass its requests to once their own pools are full.',
      },
    ),
  ),
  worker: t.Optional(
    t.Integer({
      description: 'With several HTTP workers (WORKERS > 1): the id of the worker that answered.',
    }),
  ),
  workers: t.Optional(
    t.Array(
      t.Object({
        id: t.Integer(),
        pid: t.Nullable(t.Integer({ description: 'Shown to operators only; null for anyone else.' })),
        state: t.Union([
          t.Literal('starting'),
          t.Literal('serving'),
          t.Literal('stopping'),
          t.Literal('dead'),
        ]),
        startedAt: t.String(),
        restarts: t.Integer({ description: 'Times the primary started it again after it died.' }),
      }),
      {
        description:
          'With several HTTP workers (WORKERS > 1): each worker as the primary, which runs the jobs, last reported it (every second).',
      },
    ),
  ),
  cluster: t.Optional(
    t.Object(
      {
        node: t.String(),
        fenced: t.Boolean({
          description: 'Cut off from etcd: its tenants answer 503 until the lease is renewed.',
        }),
        nodes: t.Integer({ description: 'Live nodes.' }),
        tenantsOwned: t.Integer(),
        lastFailover: t.Nullable(
          t.Object({
            slug: t.Nullable(t.String({ description: 'Shown to operators only; null for anyone else.' })),
            at: t.String({ description: 'When the new owner served it.' }),
            rtoMs: t.Integer({ description: 'Recovery time: the lease TTL plus detection to serving.' }),
            restoredThrough: t.Nullable(
              t.String({ description: 'Recovery point: the newest write the replica held.' }),
            ),
          }),
        ),
      },
      { description: 'Several nodes (CLUSTER_ETCD_URL): this node, and the last failover in the cluster.' },
    ),
  ),
})

/** This node's place in the cluster and the last failover, when there are several nodes. */
function clusterSummary(platform: Platform, detailed: boolean) {
  if (!platform.cluster) return {}
  const status = platform.cluster.status()
  const last = status.failovers[0]
  return {
    cluster: {
      node: status.node,
      fenced: status.fenced,
      nodes: status.nodes.length,
      tenantsOwned: status.tenants.filter((tenant) => tenant.owner === status.node).length,
      lastFailover: last
        ? {
            slug: detailed ? last.slug : null,
            at: last.servingAt,
            rtoMs: last.rtoMs,
            restoredThrough: last.restoredThrough,
          }
        : null,
    },
  }
}

/** The worker that answers and its fellows, when a primary runs several (src/cli/workers.ts). */
function workersSummary(platform: Platform, detailed: boolean) {
  if (!platform.primary) return {}
  return {
    worker: platform.primary.workerId,
    workers: platform.primary
      .status()
      .workers.map((worker) => ({ ...worker, pid: detailed ? worker.pid : null })),
  }
}

function poolSummary(platform: Platform) {
  const stats = platform.pool.stats()
  const uses = stats.hits + stats.misses
  return { ...stats, hitRate: uses === 0 ? 1 : stats.hits / uses }
}

/**
 * Touches the control database and one tenant database (the default one when it exists); for
 * readiness, also waits for the start-up work (Platform.startupWork).
 */
function checkDatabases(platform: Platform, detailed: boolean, readiness: boolean) {
  const checks: Record<string, string> = {}
  let ok = true
  if (readiness)
    for (const work of platform.startupWork) {
      checks[work] = 'pending'
      ok = false
    }
  try {
    platform.control.sqlite.query('SELECT 1').get()
    checks.control = 'ok'
    const tenant =
      findTenantBySlug(platform.control.db, platform.config.defaultTenantSlug) ??
      firstTenant(platform.control.db)
    if (tenant) {
      platform.pool.get(tenant.id).sqlite.query('SELECT 1').get()
      checks.tenant = 'ok'
    }
  } catch (error) {
    ok = false
    const message = error instanceof Error ? error.message : String(error)
    checks[checks.control ? 'tenant' : 'control'] = detailed ? message : 'failed'
  }
  // Replication trouble is reported, not fatal: the API keeps serving while Litestream restarts.
  if (platform.replication) checks.replication = platform.replication.status().state
  const primaryReplication = platform.primary?.status().replication
  if (primaryReplication) checks.replication = primaryReplication
  if (platform.cluster) checks.cluster = platform.cluster.fenced() ? 'fenced' : 'ok'
  const jobs = platform.jobs
    .status()
    .map(({ lastFinishedAt: _internal, ...job }) => (detailed ? job : { ...job, lastError: null }))
  return {
    status: ok ? ('ok' as const) : ('unavailable' as const),
    foundationEnabled: true,
    checks,
    jobs,
    ...(detailed && platform.replication ? { replication: platform.replication.databases() } : {}),
    ...(detailed ? { tenantPool: poolSummary(platform) } : {}),
    ...(detailed && platform.affinity
      ? { tenantsPassed: { passed: platform.affinity.passed, received: platform.affinity.received } }
      : {}),
    ...clusterSummary(platform, detailed),
    ...workersSummary(platform, detailed),
  }
}

export const healthRoutes = (platform: Platform) => {
  const probeOf =
    (readiness: boolean) =>
    async ({
      request,
      set,
    }: {
      request: Request
      set: { status?: number | string; headers: Record<string, unknown> }
    }) => {
      const detailed = request.headers.has('authorization') && (await platform.isOperator(request))
      const result = checkDatabases(platform, detailed, readiness)
      if (result.status !== 'ok') {
        set.status = 503
        // Every 503 says when to ask again: 5 s, as for a failing identity or payment provider
        // (src/platform/auth/jwt.ts, src/platform/payments/provider.ts).
        set.headers['retry-after'] = '5'
      }
      return result
    }
  const probe = probeOf(false)
  const probeDoc = (
    summary: string,
    description = '200 when every database answers, 503 with status `unavailable` otherwise.',
  ) => ({
    response: { 200: HealthStatus, 503: HealthStatus },
    detail: { summary, description },
  })
  return new Elysia({ name: 'health', detail: { tags: ['Platform'] } })
    .get(
      '/',
      () => ({
        name: pkg.name,
        version: pkg.version,
        paymentGateway: platform.config.paymentGateway,
        docsUrl: '/docs',
        database: { configured: true, foundationEnabled: true },
      }),
      {
        response: t.Object({
          name: t.String(),
          version: t.String(),
          paymentGateway: t.String(),
          docsUrl: t.String(),
          database: t.Object({ configured: t.Boolean(), foundationEnabled: t.Boolean() }),
        }),
        detail: { summary: 'Describe the service' },
      },
    )
    .get('/health/live', () => ({ status: 'ok' as const }), {
      response: t.Object({ status: t.Literal('ok') }),
      detail: { summary: 'Liveness: the process answers' },
    })
    .get('/health', probe, probeDoc('Health: control and tenant databases answer'))
    .get(
      '/health/ready',
      probeOf(true),
      probeDoc(
        'Readiness: control and tenant databases answer, start-up work is done',
        '200 when every database answers and what `serve` makes after it starts listening is done (on a first start, the embedded demo tenant, for some seconds: `checks.defaultTenant` is `pending` meanwhile); 503 with status `unavailable` otherwise. `/health/live` answers throughout.',
      ),
    )
    .get('/health/database', probe, probeDoc('Database health'))
}
