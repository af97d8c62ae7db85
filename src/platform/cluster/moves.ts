// Asking for moves, from any node or from the command line: the request is written to etcd, the
// owner carries it out (node.ts, carryOutMove), and the asker waits until etcd names the new owner.
import { ApiError, conflict, notFound, unavailable } from '../foundation/problem'
import type { EtcdClient } from './etcd'
import { type PlannedMove, rebalancePlan } from './placement'
import { keys, type MoveRequest, type NodeRecord, type TenantRecord } from './records'

export interface MoveResult {
  tenant: { id: string; slug: string }
  from: string
  to: string
  epoch: number
  tookMs: number
}

async function readRecord(etcd: EtcdClient, prefix: string, idOrSlug: string): Promise<TenantRecord | null> {
  const k = keys(prefix)
  const byId = await etcd.get(k.tenant(idOrSlug))
  if (byId) return JSON.parse(byId.value)
  const slug = await etcd.get(k.slug(idOrSlug))
  const record = slug && (await etcd.get(k.tenant(slug.value)))
  return record ? JSON.parse(record.value) : null
}

export async function liveNodes(etcd: EtcdClient, prefix: string): Promise<NodeRecord[]> {
  return (await etcd.list(keys(prefix).nodes)).kvs.map((kv) => JSON.parse(kv.value))
}

/** Moves the tenant (id or slug) to node `to`; resolves once etcd names `to` its owner. */
export async function moveTenant(
  etcd: EtcdClient,
  prefix: string,
  idOrSlug: string,
  to: string,
  timeoutMs = 60_000,
): Promise<MoveResult> {
  const k = keys(prefix)
  const started = Date.now()
  const before = await readRecord(etcd, prefix, idOrSlug)
  if (!before) throw notFound('tenant', idOrSlug)
  const { id, slug } = before.tenant
  const result = (record: TenantRecord): MoveResult => ({
    tenant: { id, slug },
    from: before.owner,
    to,
    epoch: record.epoch,
    tookMs: Date.now() - started,
  })
  if (!(await liveNodes(etcd, prefix)).some((node) => node.id === to))
    throw conflict(`node ${to} is not a live member of the cluster`)
  if (before.owner === to) return result(before)
  const request: MoveRequest = { to, requestedAt: new Date().toISOString() }
  const asked = await etcd.txn(
    [{ key: k.move(id), absent: true }],
    [{ put: k.move(id), value: JSON.stringify(request) }],
  )
  if (asked === null) throw conflict(`tenant ${slug} is already being moved`)
  while (Date.now() - started < timeoutMs) {
    await Bun.sleep(100)
    const record = await readRecord(etcd, prefix, id)
    if (!record) throw notFound('tenant', idOrSlug)
    if (record.owner === to && record.epoch > before.epoch) return result(record)
    const pending = await etcd.get(k.move(id))
    const error = pending && (JSON.parse(pending.value) as MoveRequest).error
    if (error) {
      await etcd.delete(k.move(id))
      throw conflict(`moving ${slug} to ${to} failed: ${error}`)
    }
  }
  await etcd.delete(k.move(id))
  throw unavailable(`moving ${slug} to ${to} did not finish in ${timeoutMs} ms`, 5)
}

export interface FailedMove {
  tenant: { id: string; slug: string }
  from: string
  to: string
  error: string
}

export interface RebalanceResult {
  moves: MoveResult[]
  /** Moves refused (a replica behind, a node gone): those tenants stay, others move instead. */
  failed: FailedMove[]
  /** Whether no two live nodes now differ by more than one tenant. */
  balanced: boolean
}

type Mover = (tenantId: string, to: string) => Promise<MoveResult>

/**
 * Moves tenants from the fullest live nodes to the emptiest until counts differ by one at most,
 * one at a time. A tenant whose move fails stays where it is and another is moved instead: one
 * tenant's trouble does not leave the cluster uneven.
 */
export async function rebalance(
  etcd: EtcdClient,
  prefix: string,
  move: Mover = (tenantId, to) => moveTenant(etcd, prefix, tenantId, to),
): Promise<RebalanceResult> {
  const nodes = await liveNodes(etcd, prefix)
  const byNode = new Map<string, string[]>(nodes.map((node) => [node.id, []]))
  const slugs = new Map<string, string>()
  for (const kv of (await etcd.list(keys(prefix).tenants)).kvs) {
    const record = JSON.parse(kv.value) as TenantRecord
    byNode.get(record.owner)?.push(record.tenant.id)
    slugs.set(record.tenant.id, record.tenant.slug)
  }
  const moves: MoveResult[] = []
  const failed: FailedMove[] = []
  const stuck = new Set<string>()
  for (;;) {
    const next: PlannedMove | undefined = rebalancePlan(byNode, stuck)[0]
    if (!next) break
    try {
      moves.push(await move(next.tenant, next.to))
      const from = byNode.get(next.from)!
      from.splice(from.indexOf(next.tenant), 1)
      byNode.get(next.to)!.push(next.tenant)
    } catch (error) {
      if (!(error instanceof ApiError)) throw error
      stuck.add(next.tenant)
      failed.push({
        tenant: { id: next.tenant, slug: slugs.get(next.tenant) ?? next.tenant },
        from: next.from,
        to: next.to,
        error: error.detail,
      })
    }
  }
  const counts = [...byNode.values()].map((tenants) => tenants.length)
  return { moves, failed, balanced: counts.length === 0 || Math.max(...counts) - Math.min(...counts) <= 1 }
}
