// The cluster as the operator sees it (/admin/v1/cluster): which node owns which tenant, the
// failovers with their measured recovery, and moving tenants between nodes.
import { Elysia } from 'elysia'
import { moveTenant, rebalance } from '../../platform/cluster/moves'
import type { ClusterNode as Node } from '../../platform/cluster/node'
import { conflict } from '../../platform/foundation/problem'
import { type OperatorActor, recordOperatorAction } from '../../platform/operator/audit'
import type { Platform } from '../../platform/platform'
import { ClusterStatus, ClusterTenantParams, MoveResult, MoveTenantBody, RebalanceResult } from './model'

const singleNode = {
  enabled: false,
  node: null,
  url: null,
  fenced: false,
  leaseTtlSeconds: null,
  routing: null,
  nodes: [],
  tenants: [],
  failovers: [],
}

type Lag = ReturnType<NonNullable<Platform['replication']>['databases']>[number]

/**
 * Each tenant's replication as its owner measures it: this node's own, the others' from their
 * `/health`, asked with the caller's operator credential.
 */
async function replicationOf(platform: Platform, cluster: Node, authorization: string | null) {
  const lags = new Map<string, Lag>()
  for (const lag of platform.replication?.databases() ?? []) lags.set(lag.name, lag)
  const others = cluster.status().nodes.filter((node) => node.id !== cluster.id)
  await Promise.all(
    others.map(async (node) => {
      const response = await fetch(`${node.url}/health`, {
        headers: authorization ? { authorization } : {},
        signal: AbortSignal.timeout(2000),
      }).catch(() => null)
      const body = (await response?.json().catch(() => null)) as { replication?: Lag[] } | null
      for (const lag of body?.replication ?? []) lags.set(lag.name, lag)
    }),
  )
  return lags
}

function clusterOf(platform: Platform): Node {
  if (!platform.cluster) throw conflict('This service runs as a single node: CLUSTER_ETCD_URL is not set')
  return platform.cluster
}

function audit(platform: Platform, operator: OperatorActor, move: Awaited<ReturnType<typeof moveTenant>>) {
  recordOperatorAction(platform.control.db, operator, {
    action: 'tenant.move',
    tenant: move.tenant,
    metadata: { from: move.from, to: move.to, epoch: move.epoch, tookMs: move.tookMs },
  })
}

export const clusterRoutes = (platform: Platform) =>
  new Elysia({ name: 'cluster-admin', prefix: '/admin/v1/cluster', detail: { tags: ['Operator'] } })
    .use(platform.operator)
    .get(
      '',
      async ({ request }) => {
        const cluster = platform.cluster
        if (!cluster) return singleNode
        const status = cluster.status()
        const lags = await replicationOf(platform, cluster, request.headers.get('authorization'))
        const tenants = status.tenants.map((tenant) => {
          const found = lags.get(tenant.id)
          if (!found) return { ...tenant, replication: null }
          const { name: _name, ...lag } = found
          return { ...tenant, replication: lag }
        })
        return { enabled: true, ...status, tenants }
      },
      {
        operator: true,
        response: ClusterStatus,
        detail: {
          summary: 'Cluster status',
          description:
            'The live nodes and their tenant counts, every tenant’s owner and epoch, its replication lag as its owner measures it, whether it was lost, and the last failover of each tenant with its recovery time (`rtoMs`) and recovery point (`restoredThrough`). On a single node, `enabled: false`.',
        },
      },
    )
    .post(
      '/tenants/:id/move',
      async ({ operator, params, body }) => {
        const cluster = clusterOf(platform)
        const move = await moveTenant(cluster.etcd, cluster.settings.prefix, params.id, body.to)
        if (move.from !== move.to) audit(platform, operator, move)
        return move
      },
      {
        operator: true,
        params: ClusterTenantParams,
        body: MoveTenantBody,
        response: MoveResult,
        detail: {
          'x-problems': ['conflict', 'unavailable'],
          summary: 'Move a tenant to another node',
          description:
            'The owner stops the tenant’s writes (requests wait meanwhile), lets Litestream sync its replica, and hands the ownership epoch to `to`, which restores the replica and serves it. Answers once etcd names the new owner; no acknowledged write is lost. Already there: answered at once. Unknown node, a move already under way or on a single node: 409.',
        },
      },
    )
    .post(
      '/rebalance',
      async ({ operator }) => {
        const cluster = clusterOf(platform)
        const result = await rebalance(cluster.etcd, cluster.settings.prefix)
        for (const move of result.moves) audit(platform, operator, move)
        return result
      },
      {
        operator: true,
        response: RebalanceResult,
        detail: {
          'x-problems': ['conflict', 'unavailable'],
          summary: 'Even out tenants over the nodes',
          description:
            'Moves tenants, one at a time, from the nodes with the most to those with the fewest until no two live nodes differ by more than one. A tenant whose move is refused stays (listed in `failed`) and another moves instead; `balanced` says whether the counts came even. On a single node: 409.',
        },
      },
    )
