// Operator keys (`opk_`): made, listed and revoked from the command line, stored in the control
// database by token hash, and in a cluster in etcd too (cluster/shared-credentials.ts), so a key
// opens every node. A key opens the operator API under /admin and no tenant route.
import { asc, eq } from 'drizzle-orm'
import { hashToken, newOpaqueToken, OPERATOR_KEY_PREFIX } from '../auth/tokens'
import type { EtcdClient } from '../cluster/etcd'
import {
  revokeSharedOperatorKey as revokeInCluster,
  sharedOperatorKeys,
  shareOperatorKey,
} from '../cluster/shared-credentials'
import { newId, nowIso } from '../foundation/ids'
import { ApiError, conflict, invalid, notFound } from '../foundation/problem'
import { type OperatorKeyRow, operatorKeys } from '../tenancy/control-schema'
import type { ControlDb } from '../tenancy/databases'
import { inWriteTransaction } from '../tenancy/transaction'
import { type OperatorActor, recordOperatorAction } from './audit'

/** The key as shown to operators: never the token or its hash. */
export function presentOperatorKey(row: OperatorKeyRow) {
  const { tokenHash: _hidden, ...rest } = row
  return { ...rest, status: row.revokedAt ? ('revoked' as const) : ('active' as const) }
}

export function createOperatorKey(control: ControlDb, actor: OperatorActor, input: { name: string }) {
  const name = input.name.trim()
  if (!name || name.length > 200) throw invalid('name', 'must be 1..200 characters')
  const token = newOpaqueToken(OPERATOR_KEY_PREFIX)
  const row = inWriteTransaction(control, (tx) => {
    const created = tx
      .insert(operatorKeys)
      .values({
        id: newId(),
        name,
        tokenHash: hashToken(token),
        tokenHint: token.slice(-4),
        createdAt: nowIso(),
        revokedAt: null,
      })
      .returning()
      .get()
    recordOperatorAction(control, actor, {
      action: 'operator_key.create',
      metadata: { keyId: created.id, name, tokenHint: created.tokenHint },
    })
    return created
  })
  return { key: presentOperatorKey(row), token, row }
}

export const listOperatorKeys = (control: ControlDb) =>
  control
    .select()
    .from(operatorKeys)
    .orderBy(asc(operatorKeys.createdAt), asc(operatorKeys.id))
    .all()
    .map(presentOperatorKey)

export function revokeOperatorKey(control: ControlDb, actor: OperatorActor, id: string) {
  const revoked = inWriteTransaction(control, (tx) => {
    const row = tx.select().from(operatorKeys).where(eq(operatorKeys.id, id)).get()
    if (!row) throw notFound('operator key', id)
    if (row.revokedAt) throw conflict(`operator key ${id} was already revoked at ${row.revokedAt}`)
    recordOperatorAction(control, actor, {
      action: 'operator_key.revoke',
      metadata: { keyId: id, name: row.name },
    })
    return tx
      .update(operatorKeys)
      .set({ revokedAt: nowIso() })
      .where(eq(operatorKeys.id, id))
      .returning()
      .get()
  })
  return presentOperatorKey(revoked)
}

/**
 * The active key an `opk_` token names, or 401. In a cluster, `shared` is the key as etcd has it
 * (made on any node); revoked here or there, it is refused.
 */
export function resolveOperatorKey(
  control: ControlDb,
  token: string,
  shared?: (tokenHash: string) => OperatorKeyRow | undefined,
): OperatorKeyRow {
  const hash = hashToken(token)
  const local = control.select().from(operatorKeys).where(eq(operatorKeys.tokenHash, hash)).get()
  const inCluster = shared?.(hash)
  const refuse = (reason: string) =>
    new ApiError('unauthenticated', `Operator key refused: ${reason}`, {
      headers: { 'www-authenticate': 'Bearer error="invalid_token"' },
    })
  const row = inCluster ?? local
  if (!row) throw refuse('unknown key')
  if (local?.revokedAt || inCluster?.revokedAt) throw refuse('the key has been revoked')
  return row
}

/** A cluster's etcd, where its operator keys are shared (cluster/shared-credentials.ts). */
export interface SharedKeys {
  etcd: EtcdClient
  prefix: string
}

/** Makes a key; in a cluster etcd has it before its token is shown, so it opens every node. */
export async function createSharedOperatorKey(
  control: ControlDb,
  actor: OperatorActor,
  input: { name: string },
  cluster: SharedKeys | null,
) {
  const { key, token, row } = createOperatorKey(control, actor, input)
  if (cluster) await shareOperatorKey(cluster.etcd, cluster.prefix, row)
  return { key, token }
}

/** This node's keys, and in a cluster every node's: a key revoked anywhere shows revoked. */
export async function listSharedOperatorKeys(control: ControlDb, cluster: SharedKeys | null) {
  const local = listOperatorKeys(control)
  if (!cluster) return local
  const byId = new Map(local.map((key) => [key.id, key]))
  for (const row of await sharedOperatorKeys(cluster.etcd, cluster.prefix)) {
    const here = byId.get(row.id)
    byId.set(row.id, here?.revokedAt ? here : presentOperatorKey(row))
  }
  return [...byId.values()].sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id))
}

/**
 * Revokes a key; in a cluster in etcd first, so every node refuses it from its next request,
 * whichever node made it. Audited in this node's operator log.
 */
export async function revokeSharedOperatorKey(
  control: ControlDb,
  actor: OperatorActor,
  id: string,
  cluster: SharedKeys | null,
) {
  if (!cluster) return revokeOperatorKey(control, actor, id)
  const shared = await revokeInCluster(cluster.etcd, cluster.prefix, id, nowIso())
  const local = control.select().from(operatorKeys).where(eq(operatorKeys.id, id)).get()
  // Here too (or only here, not shared yet): as on one node, 404 and 409 included.
  if (!shared || (local && !local.revokedAt)) return revokeOperatorKey(control, actor, id)
  recordOperatorAction(control, actor, {
    action: 'operator_key.revoke',
    metadata: { keyId: id, name: shared.name },
  })
  return presentOperatorKey(shared)
}
