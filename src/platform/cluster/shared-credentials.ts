// What a cluster shares of its credentials through etcd (records.ts): operator keys, so an `opk_`
// key made on any node opens the operator API of every node, and the tenant of each token issued
// before tokens named their tenant (auth/legacy-tokens.ts), so such a token finds its tenant on
// every node, also once the node that issued it has died. Only token hashes go to etcd.
import { conflict } from '../foundation/problem'
import type { OperatorKeyRow } from '../tenancy/control-schema'
import type { EtcdClient } from './etcd'
import { keys } from './records'

/**
 * Puts the key in etcd unless it is there already; a revocation replaces an active record (a key
 * revoked anywhere stays revoked).
 */
export async function shareOperatorKey(etcd: EtcdClient, prefix: string, row: OperatorKeyRow): Promise<void> {
  const key = keys(prefix).operatorKey(row.id)
  for (;;) {
    const current = await etcd.get(key)
    if (current && (!row.revokedAt || (JSON.parse(current.value) as OperatorKeyRow).revokedAt)) return
    const compare = current ? { key, modRevision: current.modRevision } : { key, absent: true as const }
    if ((await etcd.txn([compare], [{ put: key, value: JSON.stringify(row) }])) !== null) return
  }
}

/** Revokes a shared key in etcd; null when etcd has no key of that id, 409 when already revoked. */
export async function revokeSharedOperatorKey(
  etcd: EtcdClient,
  prefix: string,
  id: string,
  revokedAt: string,
): Promise<OperatorKeyRow | null> {
  const key = keys(prefix).operatorKey(id)
  for (;;) {
    const current = await etcd.get(key)
    if (!current) return null
    const row = JSON.parse(current.value) as OperatorKeyRow
    if (row.revokedAt) throw conflict(`operator key ${id} was already revoked at ${row.revokedAt}`)
    const revoked = { ...row, revokedAt }
    const put = [{ put: key, value: JSON.stringify(revoked) }]
    if ((await etcd.txn([{ key, modRevision: current.modRevision }], put)) !== null) return revoked
  }
}

export async function sharedOperatorKeys(etcd: EtcdClient, prefix: string): Promise<OperatorKeyRow[]> {
  return (await etcd.list(keys(prefix).operatorKeys)).kvs.map((kv) => JSON.parse(kv.value))
}

/** Records in etcd the tenant of each old token this node's control database indexes. */
export async function shareLegacyTokens(
  etcd: EtcdClient,
  prefix: string,
  tokens: { tokenHash: string; tenantId: string }[],
  known: ReadonlyMap<string, string>,
): Promise<void> {
  for (const { tokenHash, tenantId } of tokens)
    if (known.get(tokenHash) !== tenantId) await etcd.put(keys(prefix).legacyToken(tokenHash), tenantId)
}
