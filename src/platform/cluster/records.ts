// What the cluster keeps in etcd, under CLUSTER_PREFIX:
//   nodes/<node id>       a live node and its address, attached to the node's lease (gone when it expires)
//   tenants/<tenant id>   the tenant's control row, its owner node and ownership epoch
//   slugs/<slug>          the tenant id, so a slug is taken once across the cluster
//   moves/<tenant id>     a requested move, carried out by the owner
//   failovers/<tenant id> the last failover of the tenant: how long it was down, what it kept
//   legacy-tokens/<hash>  the tenant of a token issued before tokens named their tenant
//   operator-keys/<id>    an operator key (its hash, never the token): valid on every node
// A tenant record changes only by a transaction comparing its mod revision (compare-and-swap),
// and every change of owner increments the epoch.
import type { TenantRow } from '../tenancy/control-schema'
import type { EtcdClient } from './etcd'

export interface NodeRecord {
  id: string
  url: string
  startedAt: string
}

export interface TenantRecord {
  tenant: TenantRow
  owner: string
  epoch: number
  /** Set by a move: the newest audit entry (seq) the replica must hold before the new owner serves. */
  writeMark: number | null
  changedAt: string
  /**
   * Set when the owner found no replica to restore (its node died before Litestream's first
   * upload of it): not tried again until another node claims it; shown to operators.
   */
  lost?: { at: string; reason: string }
  /**
   * Set by a claim of a departed node's tenant: that node. Survivors plan a failover over the
   * orphans and the tenants already claimed from it, so every survivor's plan is the same
   * whichever claims it has seen land.
   */
  claimedFrom?: string
}

export interface MoveRequest {
  to: string
  requestedAt: string
  /** Set by the owner when it could not move the tenant. */
  error?: string
}

export interface FailoverReport {
  tenantId: string
  slug: string
  from: string
  to: string
  /** When the claiming node saw the owner's lease gone. */
  detectedAt: string
  servingAt: string
  /** The lease TTL plus detection to serving: an upper bound of the outage after the owner died. */
  rtoMs: number
  /** The newest write the replica held (audit entry time): later acknowledged writes were lost. */
  restoredThrough: string | null
}

export const keys = (prefix: string) => ({
  nodes: `${prefix}nodes/`,
  node: (id: string) => `${prefix}nodes/${id}`,
  tenants: `${prefix}tenants/`,
  tenant: (id: string) => `${prefix}tenants/${id}`,
  slugs: `${prefix}slugs/`,
  slug: (slug: string) => `${prefix}slugs/${slug}`,
  moves: `${prefix}moves/`,
  move: (id: string) => `${prefix}moves/${id}`,
  failovers: `${prefix}failovers/`,
  failover: (id: string) => `${prefix}failovers/${id}`,
  legacyTokens: `${prefix}legacy-tokens/`,
  legacyToken: (hash: string) => `${prefix}legacy-tokens/${hash}`,
  operatorKeys: `${prefix}operator-keys/`,
  operatorKey: (id: string) => `${prefix}operator-keys/${id}`,
})

export interface Versioned<T> {
  value: T
  modRevision: number
}

/** Replaces the record only if nobody changed it since it was read at `modRevision`; null if someone did. */
export function swapTenantRecord(
  etcd: EtcdClient,
  prefix: string,
  current: Versioned<TenantRecord>,
  next: TenantRecord,
): Promise<number | null> {
  const key = keys(prefix).tenant(next.tenant.id)
  return etcd.txn([{ key, modRevision: current.modRevision }], [{ put: key, value: JSON.stringify(next) }])
}

/** A new tenant's record and slug, only if neither the id nor the slug is taken. */
export function createTenantRecord(
  etcd: EtcdClient,
  prefix: string,
  record: TenantRecord,
): Promise<number | null> {
  const k = keys(prefix)
  const { id, slug } = record.tenant
  return etcd.txn(
    [
      { key: k.tenant(id), absent: true },
      { key: k.slug(slug), absent: true },
    ],
    [
      { put: k.tenant(id), value: JSON.stringify(record) },
      { put: k.slug(slug), value: id },
    ],
  )
}

/** Removes a deleted tenant's record and frees its slug. */
export function deleteTenantRecord(etcd: EtcdClient, prefix: string, tenant: { id: string; slug: string }) {
  const k = keys(prefix)
  return etcd.txn(
    [{ key: k.slug(tenant.slug), value: tenant.id }],
    [{ delete: k.tenant(tenant.id) }, { delete: k.slug(tenant.slug) }, { delete: k.move(tenant.id) }],
  )
}
