// `idempotency-key`: the first response is stored with a hash of the request; the same key and request replays it; the same key with another request is 422; a key
// whose first request is still running is 409; keys expire after 24 hours. A failed first
// request stores nothing, so the client may retry it with the same key.
import { and, eq, lt } from 'drizzle-orm'
import type { Actor } from '../foundation/actor'
import { ApiError } from '../foundation/problem'
import { earliestInstant, type NextWork } from '../jobs/next-work'
import type { Db } from '../tenancy/databases'
import { inWriteTransaction, type Queryable } from '../tenancy/transaction'
import { idempotencyKeys } from './schema'

export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000
/** A first request still "in flight" after this long died without finishing; its key is free again. */
const ABANDONED_AFTER_MS = 5 * 60 * 1000

export interface IdempotentRequest {
  key: string
  method: string
  /** The concrete path, so the same key on another resource is "another request". */
  path: string
  body: unknown
}

export interface StoredResponse<T> {
  status: number
  body: T
}

export interface IdempotentResult<T> extends StoredResponse<T> {
  replayed: boolean
}

interface KeyRef {
  scope: string
  key: string
  requestHash: string
}

function keyRef(actor: Actor, request: IdempotentRequest): KeyRef {
  return {
    scope: `${actor.subject} ${request.method} ${actor.route ?? request.path}`,
    key: request.key,
    requestHash: new Bun.CryptoHasher('sha256')
      .update(JSON.stringify([request.method, request.path, request.body ?? null]))
      .digest('hex'),
  }
}

const whereKey = (ref: KeyRef) => and(eq(idempotencyKeys.scope, ref.scope), eq(idempotencyKeys.key, ref.key))

/** Replays a stored response, refuses a conflicting one, or claims the key (null). */
function claim<T>(tx: Queryable, ref: KeyRef): IdempotentResult<T> | null {
  const now = Date.now()
  const existing = tx.select().from(idempotencyKeys).where(whereKey(ref)).get()
  const stale =
    existing &&
    (Date.parse(existing.expiresAt) <= now ||
      (existing.state === 'in_flight' && now - Date.parse(existing.createdAt) > ABANDONED_AFTER_MS))
  if (existing && !stale) {
    if (existing.requestHash !== ref.requestHash) {
      throw new ApiError('idempotency_key_reused', 'This idempotency key was used with a different request')
    }
    if (existing.state === 'in_flight') {
      throw new ApiError(
        'idempotency_key_in_use',
        'A request with this idempotency key is still being processed',
        {
          headers: { 'retry-after': '1' },
        },
      )
    }
    return { status: existing.responseStatus!, body: JSON.parse(existing.responseBody!) as T, replayed: true }
  }
  if (existing) tx.delete(idempotencyKeys).where(whereKey(ref)).run()
  tx.insert(idempotencyKeys)
    .values({
      ...ref,
      state: 'in_flight',
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + IDEMPOTENCY_TTL_MS).toISOString(),
    })
    .run()
  return null
}

function store(tx: Queryable, ref: KeyRef, response: StoredResponse<unknown>) {
  tx.update(idempotencyKeys)
    .set({ state: 'completed', responseStatus: response.status, responseBody: JSON.stringify(response.body) })
    .where(whereKey(ref))
    .run()
}

/**
 * For synchronous work (database writes only): the key check, the work and the stored response
 * commit in one transaction, so no crash can leave a write without its stored response.
 */
export function idempotentWrite<T>(
  db: Db,
  actor: Actor,
  request: IdempotentRequest,
  work: () => StoredResponse<T>,
): IdempotentResult<T> {
  const ref = keyRef(actor, request)
  return inWriteTransaction(db, () => {
    const replay = claim<T>(db, ref)
    if (replay) return replay
    const response = work()
    store(db, ref, response)
    return { ...response, replayed: false }
  })
}

/**
 * For work that must await something outside the database (a card authorization): the key is
 * claimed in_flight first, so a concurrent retry is 409 rather than a second charge.
 */
export async function idempotentCall<T>(
  db: Db,
  actor: Actor,
  request: IdempotentRequest,
  work: () => Promise<StoredResponse<T>>,
): Promise<IdempotentResult<T>> {
  const ref = keyRef(actor, request)
  const replay = inWriteTransaction(db, (tx) => claim<T>(tx, ref))
  if (replay) return replay
  let response: StoredResponse<T>
  try {
    response = await work()
  } catch (error) {
    inWriteTransaction(db, (tx) => tx.delete(idempotencyKeys).where(whereKey(ref)).run())
    throw error
  }
  inWriteTransaction(db, (tx) => store(tx, ref, response))
  return { ...response, replayed: false }
}

/** When the next stored key expires (the purge job's next work); null when none is stored. */
export const nextIdempotencyExpiry = (db: Db): NextWork =>
  earliestInstant(db, {
    key: 'idempotency-expiry',
    table: idempotencyKeys,
    column: idempotencyKeys.expiresAt,
  })

/** Deletes expired keys; the scheduler runs this. Returns how many went. */
export function purgeExpiredIdempotencyKeys(db: Db, now = new Date()): number {
  return inWriteTransaction(db, (tx) =>
    tx
      .delete(idempotencyKeys)
      .where(lt(idempotencyKeys.expiresAt, now.toISOString()))
      .returning({ key: idempotencyKeys.key })
      .all(),
  ).length
}

/** The header schema fragment: `idempotency-key` of 8..180 characters. */
export const idempotencyKeyHeader = { minLength: 8, maxLength: 180 } as const
