// POS passcode sessions: a staff user signs in at one location with their passcode and gets a
// `vps_` token bound to that tenant, staff user and location. Sessions and lockouts live in the
// tenant's own database (schema.ts), beside their audit entries, so they move with the tenant; the
// token names its tenant (tokens.ts) and the session is found there by the token's hash.
//
// Lockout: every sign-in attempt for a staff user is claimed (counted) before the passcode is
// checked, so concurrent guesses cannot slip past the limit. PASSCODE_MAX_ATTEMPTS attempts
// within PASSCODE_ATTEMPT_WINDOW_MS without a success lock passcode sign-in for that staff user
// for PASSCODE_LOCK_MS: 429 `rate_limited` with Retry-After, even with the right passcode.
// A success clears the count.
import { and, count, desc, eq, gt, isNull, lt } from 'drizzle-orm'
import type { Actor } from '../foundation/actor'
import { newId } from '../foundation/ids'
import { offsetOf, type PageRequest } from '../foundation/paging'
import { ApiError } from '../foundation/problem'
import type { RequestInfo } from '../foundation/request-context'
import type { Db } from '../tenancy/databases'
import { inWriteTransaction, type Queryable } from '../tenancy/transaction'
import { type LocationScope, scopeCondition } from './location-scope'
import { type PasscodeSessionRow, passcodeAttempts, passcodeSessions } from './schema'
import { hashToken, newTenantToken, PASSCODE_SESSION_PREFIX } from './tokens'

export const PASSCODE_MAX_ATTEMPTS = 5
export const PASSCODE_ATTEMPT_WINDOW_MS = 15 * 60_000
export const PASSCODE_LOCK_MS = 15 * 60_000

function locked(retryAfterMs: number): ApiError {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000))
  return new ApiError(
    'rate_limited',
    `Passcode sign-in for this staff user is locked after ${PASSCODE_MAX_ATTEMPTS} failed attempts; retry in ${seconds} s`,
    { headers: { 'retry-after': String(seconds) }, extensions: { retryAfterSeconds: seconds } },
  )
}

/** Counts one attempt, refusing it while the staff user is locked out. `db`: the tenant's. */
export function claimPasscodeAttempt(db: Db, staffUserId: string, now = Date.now()) {
  inWriteTransaction(db, (tx) => {
    const key = eq(passcodeAttempts.staffUserId, staffUserId)
    const row = tx.select().from(passcodeAttempts).where(key).get()
    if (row?.lockedUntil && Date.parse(row.lockedUntil) > now) throw locked(Date.parse(row.lockedUntil) - now)
    const fresh =
      !row || now - Date.parse(row.windowStartedAt) >= PASSCODE_ATTEMPT_WINDOW_MS || row.lockedUntil
    const failures = fresh ? 1 : row.failures + 1
    const values = {
      failures,
      windowStartedAt: fresh ? new Date(now).toISOString() : row.windowStartedAt,
      lockedUntil: failures >= PASSCODE_MAX_ATTEMPTS ? new Date(now + PASSCODE_LOCK_MS).toISOString() : null,
    }
    if (row) tx.update(passcodeAttempts).set(values).where(key).run()
    else
      tx.insert(passcodeAttempts)
        .values({ staffUserId, ...values })
        .run()
  })
}

/** A success clears the count. */
export function clearPasscodeAttempts(tx: Queryable, staffUserId: string) {
  tx.delete(passcodeAttempts).where(eq(passcodeAttempts.staffUserId, staffUserId)).run()
}

export function sessionActor(
  session: PasscodeSessionRow,
  info: RequestInfo,
  method: string,
  route: string,
): Actor {
  return {
    kind: 'passcode_session',
    subject: `passcode-session:${session.id}`,
    staffUserId: session.staffUserId,
    tenantId: session.tenantId,
    locationId: session.locationId,
    requestId: info.requestId,
    ipAddress: info.ipAddress,
    userAgent: info.userAgent,
    method,
    route,
  }
}

/**
 * Stores a new session (its token's hash only) in the tenant's write transaction `tx`, and
 * answers the token, which is shown only now. Sessions long expired are of no use to anyone: they
 * are dropped here, now and then, cheaply.
 */
export function openPasscodeSession(
  tx: Queryable,
  input: { tenantId: string; staffUserId: string; locationId: string; ttlSeconds: number },
): { token: string; session: PasscodeSessionRow } {
  const token = newTenantToken(PASSCODE_SESSION_PREFIX, input.tenantId)
  const now = Date.now()
  tx.delete(passcodeSessions)
    .where(lt(passcodeSessions.expiresAt, new Date(now - 7 * 86_400_000).toISOString()))
    .run()
  const session = tx
    .insert(passcodeSessions)
    .values({
      id: newId(),
      tokenHash: hashToken(token),
      staffUserId: input.staffUserId,
      locationId: input.locationId,
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + input.ttlSeconds * 1000).toISOString(),
      revokedAt: null,
    })
    .returning()
    .get()
  return { token, session: { ...session, tenantId: input.tenantId } }
}

/** The active session a `vps_` token names, in the database of the tenant it belongs to, or 401. */
export function resolvePasscodeSession(
  db: Db,
  tenantId: string,
  token: string,
  now = Date.now(),
): PasscodeSessionRow {
  const row = db
    .select()
    .from(passcodeSessions)
    .where(eq(passcodeSessions.tokenHash, hashToken(token)))
    .get()
  const session = row && { ...row, tenantId }
  const refuse = (reason: string) =>
    new ApiError('unauthenticated', `Passcode session refused: ${reason}`, {
      headers: { 'www-authenticate': 'Bearer error="invalid_token"' },
    })
  if (!session) throw refuse('unknown token')
  if (session.revokedAt) throw refuse('the session has been signed out')
  if (Date.parse(session.expiresAt) <= now) throw refuse('the session has expired')
  return session
}

/** Signs a session out in the tenant's write transaction `tx`; true when it was active. */
export function revokePasscodeSession(tx: Queryable, sessionId: string): boolean {
  const revoked = tx
    .update(passcodeSessions)
    .set({ revokedAt: new Date().toISOString() })
    .where(and(eq(passcodeSessions.id, sessionId), isNull(passcodeSessions.revokedAt)))
    .returning({ id: passcodeSessions.id })
    .all()
  return revoked.length > 0
}

/** Signs out every active session of a staff user (deactivation, passcode change). `db`: the tenant's. */
export function revokeStaffPasscodeSessions(db: Db, staffUserId: string): number {
  const now = new Date().toISOString()
  return inWriteTransaction(db, (tx) =>
    tx
      .update(passcodeSessions)
      .set({ revokedAt: now })
      .where(
        and(
          eq(passcodeSessions.staffUserId, staffUserId),
          isNull(passcodeSessions.revokedAt),
          gt(passcodeSessions.expiresAt, now),
        ),
      )
      .returning({ id: passcodeSessions.id })
      .all(),
  ).length
}

/** The tenant's sessions still open (not signed out, not expired) at the scope's locations, newest first; never the token. */
export function listOpenPasscodeSessions(db: Db, scope: LocationScope, page: PageRequest) {
  const where = and(
    isNull(passcodeSessions.revokedAt),
    gt(passcodeSessions.expiresAt, new Date().toISOString()),
    scopeCondition(scope, passcodeSessions.locationId),
  )
  const total = db.select({ n: count() }).from(passcodeSessions).where(where).get()?.n ?? 0
  const rows = db
    .select({
      id: passcodeSessions.id,
      staffUserId: passcodeSessions.staffUserId,
      locationId: passcodeSessions.locationId,
      createdAt: passcodeSessions.createdAt,
      expiresAt: passcodeSessions.expiresAt,
    })
    .from(passcodeSessions)
    .where(where)
    .orderBy(desc(passcodeSessions.createdAt), desc(passcodeSessions.id))
    .limit(page.limit)
    .offset(offsetOf(page))
    .all()
  return { passcodeSessions: rows, page: { total, page: page.page, limit: page.limit } }
}
