// Asking for moves, from any node or from the command line: the request is written to etcd, the
// owner carries it out (node.ts, carryOutMove), and the asker waits until etcd names the new owner.
import { ApiError, conflict, notFound } from '../foundation/problem'
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
  throw new ApiError('unavailable', `moving ${slug} to ${to} did not finish in ${timeoutMs} ms`, {
    headers: { 'retry-after': '5' },
  })
}

/** Moves tenants from the fullest live nodes to the emptiest until counts differ by one at most. */
export async function rebalance(etcd: EtcdClient, prefix: string): Promise<{ moves: MoveResult[] }> {
  const nodes = await liveNodes(etcd, prefix)
  const byNode = new Map<string, string[]>(nodes.map((node) => [node.id, []]))
  for (const kv of (await etcd.list(keys(prefix).tenants)).kvs) {
    const record = JSON.parse(kv.value) as TenantRecord
    byNode.get(record.owner)?.push(record.tenant.id)
  }
  const plan: PlannedMove[] = rebalancePlan(byNode)
  const moves: MoveResult[] = []
  for (const move of plan) moves.push(await moveTenant(etcd, prefix, move.tenant, move.to))
  return { moves }
}
