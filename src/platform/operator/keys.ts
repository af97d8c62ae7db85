// Operator keys (`opk_`): made, listed and revoked from the command line, stored in the control
// database by token hash. A key opens the operator API under /admin and no tenant route.
import { asc, eq } from 'drizzle-orm'
import { hashToken, newOpaqueToken, OPERATOR_KEY_PREFIX } from '../auth/tokens'
import { ApiError, conflict, invalid, notFound } from '../http/problem'
import { newId, nowIso } from '../ids'
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
  return { key: presentOperatorKey(row), token }
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

/** The active key an `opk_` token names, or 401. */
export function resolveOperatorKey(control: ControlDb, token: string): OperatorKeyRow {
  const row = control
    .select()
    .from(operatorKeys)
    .where(eq(operatorKeys.tokenHash, hashToken(token)))
    .get()
  const refuse = (reason: string) =>
    new ApiError('unauthenticated', `Operator key refused: ${reason}`, {
      headers: { 'www-authenticate': 'Bearer error="invalid_token"' },
    })
  if (!row) throw refuse('unknown key')
  if (row.revokedAt) throw refuse('the key has been revoked')
  return row
}
