// Passcode sign-in: checks the staff user's passcode (kept by the staff module) and opens a
// `vps_` session in the tenant's database (platform/auth/passcode-sessions.ts), in the transaction
// of its audit entry.
import { recordWrite } from '../../platform/audit/record-write'
import {
  claimPasscodeAttempt,
  clearPasscodeAttempts,
  openPasscodeSession,
  sessionActor,
} from '../../platform/auth/passcode-sessions'
import { ApiError } from '../../platform/foundation/problem'
import type { RequestInfo } from '../../platform/foundation/request-context'
import type { TenantPool } from '../../platform/tenancy/databases'
import type { Tenant } from '../../platform/tenancy/tenants'
import { inWriteTransaction } from '../../platform/tenancy/transaction'
import { staffPermissionsAt } from '../labor'
import { findLocation } from '../locations'
import { findStaffUser } from '../staff'

export interface PasscodeSignIn {
  locationId: string
  staffUserId: string
  passcode: string
}

export interface IssuedPasscodeSession {
  token: string
  expiresAt: string
  staffUserId: string
  locationId: string
}

const wrongPasscode = () =>
  new ApiError('unauthenticated', 'The staff user and passcode do not match an active staff user')

/**
 * A hash to verify against when the staff user is unknown, so both paths cost the same. Made
 * off the main thread: made synchronously at load it was 40% of the server's start-up.
 */
const decoyHash = Bun.password.hash('00000000', { algorithm: 'argon2id' })

export async function signInWithPasscode(
  deps: { pool: TenantPool; ttlSeconds: number },
  tenant: Tenant,
  input: PasscodeSignIn,
  request: { info: RequestInfo; method: string; route: string },
): Promise<IssuedPasscodeSession> {
  const { db } = deps.pool.get(tenant.id)
  if (!findLocation(db, input.locationId)) {
    throw new ApiError('not_found', `Location ${input.locationId} not found in this tenant`)
  }
  const staff = findStaffUser(db, input.staffUserId)
  if (staff?.status !== 'active' || !staff.passcodeHash) {
    await Bun.password.verify(input.passcode, await decoyHash)
    throw wrongPasscode()
  }
  claimPasscodeAttempt(db, staff.id)
  if (!(await Bun.password.verify(input.passcode, staff.passcodeHash))) throw wrongPasscode()

  // Re-read after the await: a deactivation that landed meanwhile wins.
  if (findStaffUser(db, staff.id)?.status !== 'active') throw wrongPasscode()
  if (staffPermissionsAt(db, staff.id, input.locationId).size === 0) {
    throw new ApiError('forbidden', 'This staff user holds nothing at this location (no role, no job)')
  }

  const { token, session } = inWriteTransaction(db, (tx) => {
    clearPasscodeAttempts(tx, staff.id)
    const opened = openPasscodeSession(tx, {
      tenantId: tenant.id,
      staffUserId: staff.id,
      locationId: input.locationId,
      ttlSeconds: deps.ttlSeconds,
    })
    recordWrite(tx, sessionActor(opened.session, request.info, request.method, request.route), {
      action: 'passcode_session.create',
      entityType: 'passcode_session',
      entityId: opened.session.id,
      metadata: { staffUserId: staff.id, locationId: input.locationId, expiresAt: opened.session.expiresAt },
    })
    return opened
  })
  return { token, expiresAt: session.expiresAt, staffUserId: staff.id, locationId: session.locationId }
}
