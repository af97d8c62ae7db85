// TypeBox schemas of the cluster's operator routes (/admin/v1/cluster): nodes, owners, moves and
// the failovers with their measured recovery.
import { t } from 'elysia'
import { bool, int } from '../../platform/foundation/types'
import { ReplicationLag } from '../backups'

const dateTime = t.String({ format: 'date-time' })

export const ClusterNode = t.Object({
  id: t.String(),
  url: t.String({ description: 'Where the other nodes reach it (NODE_ADVERTISE_URL).' }),
  startedAt: dateTime,
  tenants: int({ minimum: 0, description: 'Tenants it owns.' }),
})

export const ClusterTenant = t.Object({
  id: t.String({ format: 'uuid' }),
  slug: t.String(),
  owner: t.String({ description: 'The node that serves and writes it.' }),
  epoch: int({ minimum: 1, description: 'Incremented by every change of owner (compare-and-swap in etcd).' }),
  ownerAlive: t.Boolean({
    description: 'False between the owner’s lease expiring and another node claiming it.',
  }),
  moving: t.Nullable(t.String({ description: 'The node it is being moved to.' })),
  lost: t.Nullable(
    t.Object(
      { at: dateTime, reason: t.String() },
      {
        description:
          'Its owner died before Litestream uploaded it, and the replica holds nothing to restore: it is not served (503). Another failover tries the replica again; delete it to free the slug.',
      },
    ),
  ),
  replication: t.Nullable(ReplicationLag, {
    description: 'Its replication as its owner measures it; null when the owner did not answer.',
  }),
})

export const Failover = t.Object(
  {
    tenantId: t.String({ format: 'uuid' }),
    slug: t.String(),
    from: t.String(),
    to: t.String(),
    detectedAt: dateTime,
    servingAt: dateTime,
    rtoMs: int({
      minimum: 0,
      description: 'Recovery time: the lease TTL plus detection to serving, an upper bound of the outage.',
    }),
    restoredThrough: t.Nullable(
      t.String({
        description:
          'The newest write the replica held (recovery point): writes acknowledged after it were lost.',
      }),
    ),
  },
  { $id: '#/components/schemas/Failover' },
)

export const ClusterStatus = t.Object(
  {
    enabled: t.Boolean({ description: 'False on a single node (CLUSTER_ETCD_URL unset).' }),
    node: t.Nullable(t.String({ description: 'The node answering.' })),
    url: t.Nullable(t.String({ description: 'Its address.' })),
    fenced: t.Boolean({
      description: 'Cut off from etcd: this node refuses its tenants (503) until renewed.',
    }),
    leaseTtlSeconds: t.Nullable(int({ minimum: 1 })),
    routing: t.Nullable(t.String({ description: '`forward` (proxy) or `redirect` (307).' })),
    nodes: t.Array(ClusterNode),
    tenants: t.Array(ClusterTenant),
    failovers: t.Array(Failover, { description: 'The last failover of each tenant, newest first.' }),
  },
  { $id: '#/components/schemas/ClusterStatus' },
)

export const MoveTenantBody = t.Object({ to: t.String({ minLength: 1, description: 'The target node id.' }) })

export const MoveResult = t.Object(
  {
    tenant: t.Object({ id: t.String({ format: 'uuid' }), slug: t.String() }),
    from: t.String(),
    to: t.String(),
    epoch: int({ minimum: 1 }),
    tookMs: int({ minimum: 0, description: 'From the request to the new owner in etcd.' }),
  },
  { $id: '#/components/schemas/MoveResult' },
)

export const FailedMove = t.Object(
  {
    tenant: t.Object({ id: t.String({ format: 'uuid' }), slug: t.String() }),
    from: t.String(),
    to: t.String(),
    error: t.String({ description: 'Why the move was refused; the tenant stays on `from`.' }),
  },
  { $id: '#/components/schemas/FailedMove' },
)

export const RebalanceResult = t.Object({
  moves: t.Array(MoveResult),
  failed: t.Array(FailedMove, {
    description:
      'Moves refused (a replica behind, a node gone): those tenants stayed, and others moved instead.',
  }),
  balanced: bool({ description: 'Whether no two live nodes now differ by more than one tenant.' }),
})

export const ClusterTenantParams = t.Object({ id: t.String({ description: 'The tenant id or slug.' }) })
