// POS passcode sessions: a staff user signs in at one location with their passcode and gets a
// `vps_` token bound to that tenant, staff user and location. Sessions live in the control
// database (found by token hash, so the token alone selects its tenant); their audit entries go
// to the tenant's trail.
//
// Lockout: every sign-in attempt for a staff user is claimed (counted) before the passcode is
// checked, so concurrent guesses cannot slip past the limit. PASSCODE_MAX_ATTEMPTS attempts
// within PASSCODE_ATTEMPT_WINDOW_MS without a success lock passcode sign-in for that staff user
// for PASSCODE_LOCK_MS: 429 `rate_limited` with Retry-After, even with the right passcode.
// A success clears the count.
import { and, count, desc, eq, gt, isNull, lt } from 'drizzle-orm'
import { offsetOf, type PageRequest } from '../http/paging'
import { ApiError } from '../http/problem'
import type { RequestInfo } from '../http/request-context'
import { newId } from '../ids'
import { type PasscodeSessionRow, passcodeAttempts, passcodeSessions } from '../tenancy/control-schema'
import type { ControlDb } from '../tenancy/databases'
import { inWriteTransaction } from '../tenancy/transaction'
import type { Actor } from './actor'
import { type LocationScope, scopeCondition } from './location-scope'
import { hashToken, newOpaqueToken, PASSCODE_SESSION_PREFIX } from './tokens'

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

/** Counts one attempt, refusing it while the staff user is locked out. */
export function claimPasscodeAttempt(
  control: ControlDb,
  tenantId: string,
  staffUserId: string,
  now = Date.now(),
) {
  inWriteTransaction(control, (tx) => {
    const key = and(eq(passcodeAttempts.tenantId, tenantId), eq(passcodeAttempts.staffUserId, staffUserId))
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
        .values({ tenantId, staffUserId, ...values })
        .run()
  })
}

/** A success clears the count. */
export function clearPasscodeAttempts(control: ControlDb, tenantId: string, staffUserId: string) {
  inWriteTransaction(control, (tx) =>
    tx
      .delete(passcodeAttempts)
      .where(and(eq(passcodeAttempts.tenantId, tenantId), eq(passcodeAttempts.staffUserId, staffUserId)))
      .run(),
  )
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
 * Stores a new session (its token's hash only) and answers the token, which is shown only now.
 * Sessions long expired are of no use to anyone: they are dropped here, now and then, cheaply.
 */
export function openPasscodeSession(
  control: ControlDb,
  input: { tenantId: string; staffUserId: string; locationId: string; ttlSeconds: number },
): { token: string; session: PasscodeSessionRow } {
  const token = newOpaqueToken(PASSCODE_SESSION_PREFIX)
  const now = Date.now()
  const session = inWriteTransaction(control, (tx) => {
    tx.delete(passcodeSessions)
      .where(lt(passcodeSessions.expiresAt, new Date(now - 7 * 86_400_000).toISOString()))
      .run()
    return tx
      .insert(passcodeSessions)
      .values({
        id: newId(),
        tokenHash: hashToken(token),
        tenantId: input.tenantId,
        staffUserId: input.staffUserId,
        locationId: input.locationId,
        createdAt: new Date(now).toISOString(),
        expiresAt: new Date(now + input.ttlSeconds * 1000).toISOString(),
        revokedAt: null,
      })
      .returning()
      .get()
  })
  return { token, session }
}

/** Removes a session that never reached its caller (its audit entry could not be written). */
export function discardPasscodeSession(control: ControlDb, sessionId: string): void {
  inWriteTransaction(control, (tx) =>
    tx.delete(passcodeSessions).where(eq(passcodeSessions.id, sessionId)).run(),
  )
}

/** The active session a `vps_` token names, or 401. */
export function resolvePasscodeSession(
  control: ControlDb,
  token: string,
  now = Date.now(),
): PasscodeSessionRow {
  const session = control
    .select()
    .from(passcodeSessions)
    .where(eq(passcodeSessions.tokenHash, hashToken(token)))
    .get()
  const refuse = (reason: string) =>
    new ApiError('unauthenticated', `Passcode session refused: ${reason}`, {
      headers: { 'www-authenticate': 'Bearer error="invalid_token"' },
    })
  if (!session) throw refuse('unknown token')
  if (session.revokedAt) throw refuse('the session has been signed out')
  if (Date.parse(session.expiresAt) <= now) throw refuse('the session has expired')
  return session
}

/** Signs a session out; true when it was active. */
export function revokePasscodeSession(control: ControlDb, sessionId: string): boolean {
  const revoked = inWriteTransaction(control, (tx) =>
    tx
      .update(passcodeSessions)
      .set({ revokedAt: new Date().toISOString() })
      .where(and(eq(passcodeSessions.id, sessionId), isNull(passcodeSessions.revokedAt)))
      .returning({ id: passcodeSessions.id })
      .all(),
  )
  return revoked.length > 0
}

/** Signs out every active session of a staff user (deactivation, passcode change). */
export function revokeStaffPasscodeSessions(
  control: ControlDb,
  tenantId: string,
  staffUserId: string,
): number {
  const now = new Date().toISOString()
  return inWriteTransaction(control, (tx) =>
    tx
      .update(passcodeSessions)
      .set({ revokedAt: now })
      .where(
        and(
          eq(passcodeSessions.tenantId, tenantId),
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
export function listOpenPasscodeSessions(
  control: ControlDb,
  tenantId: string,
  scope: LocationScope,
  page: PageRequest,
) {
  const where = and(
    eq(passcodeSessions.tenantId, tenantId),
    isNull(passcodeSessions.revokedAt),
    gt(passcodeSessions.expiresAt, new Date().toISOString()),
    scopeCondition(scope, passcodeSessions.locationId),
  )
  const total = control.select({ n: count() }).from(passcodeSessions).where(where).get()?.n ?? 0
  const rows = control
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
