// POS passcode sign-in and sign-out. Sign-in is public (the passcode is the credential);
// sign-out needs the session's own `vps_` token and no permission primitive, so any session,
// whatever its roles, can always end itself. The open sessions are listed for `staff:read`.
import { Elysia, t } from 'elysia'
import { recordWrite } from '../../platform/audit/record-write'
import { currentPasscodeSession, resolveTenant } from '../../platform/auth/authenticate'
import {
  listOpenPasscodeSessions,
  PASSCODE_ATTEMPT_WINDOW_MS,
  PASSCODE_LOCK_MS,
  PASSCODE_MAX_ATTEMPTS,
  revokePasscodeSession,
  sessionActor,
} from '../../platform/auth/passcode-sessions'
import { pageOf } from '../../platform/foundation/paging'
import { requestInfo } from '../../platform/foundation/request-context'
import type { Platform } from '../../platform/platform'
import { inWriteTransaction } from '../../platform/tenancy/transaction'
import {
  CreatePasscodeSession,
  OpenPasscodeSessionList,
  OpenPasscodeSessionQuery,
  PasscodeSession,
} from './model'
import { signInWithPasscode } from './service'

const minutes = (ms: number) => ms / 60_000

export const passcodeSessionRoutes = (platform: Platform) =>
  new Elysia({ name: 'passcode-sessions', prefix: '/auth/passcode-sessions', detail: { tags: ['Auth'] } })
    .use(platform.auth)
    .get('', ({ db, locations, query }) => listOpenPasscodeSessions(db, locations, pageOf(query)), {
      permission: 'staff:read',
      query: OpenPasscodeSessionQuery,
      response: OpenPasscodeSessionList,
      detail: {
        summary: 'List open passcode sessions',
        description:
          'Sessions not signed out and not expired, newest first: who is signed in at which POS location until when. Never the token. A caller bound to some locations sees their sessions only.',
      },
    })
    .post(
      '',
      async ({ body, request, route, set }) => {
        const tenant = resolveTenant(platform.authDeps, request.headers)
        const session = await signInWithPasscode(
          { pool: platform.pool, ttlSeconds: platform.config.passcodeSessionTtlSeconds },
          tenant,
          body,
          { info: requestInfo(request), method: request.method, route },
        )
        set.status = 201
        return session
      },
      {
        body: CreatePasscodeSession,
        response: { 201: PasscodeSession },
        detail: {
          summary: 'Sign in at a POS with a passcode',
          'x-problems': ['unauthenticated', 'forbidden', 'tenant_not_found', 'rate_limited'],
          description:
            'No bearer needed; the tenant comes from `x-tenant-id`/`x-tenant-slug` or the default. Answers a ' +
            '`vps_` token that acts as this staff user at this location only, for `PASSCODE_SESSION_TTL` ' +
            'seconds (default 12 h); only its hash is stored. An unknown, inactive or passcode-less staff ' +
            `user and a wrong passcode are all 401. ${PASSCODE_MAX_ATTEMPTS} attempts within ` +
            `${minutes(PASSCODE_ATTEMPT_WINDOW_MS)} minutes without a success lock passcode sign-in for that ` +
            `staff user for ${minutes(PASSCODE_LOCK_MS)} minutes: 429 \`rate_limited\` with Retry-After, even ` +
            'with the right passcode. A staff user who holds nothing at the location (no role there or tenant-wide, no job there in force) is 403; an unknown location 404.',
        },
      },
    )
    .delete(
      '/current',
      ({ request, route, set }) => {
        const { session, db } = currentPasscodeSession(platform.authDeps, request)
        inWriteTransaction(db, (tx) => {
          recordWrite(tx, sessionActor(session, requestInfo(request), request.method, route), {
            action: 'passcode_session.revoke',
            entityType: 'passcode_session',
            entityId: session.id,
            metadata: { staffUserId: session.staffUserId, locationId: session.locationId },
          })
          revokePasscodeSession(tx, session.id)
        })
        set.status = 204
      },
      {
        response: { 204: t.Void() },
        detail: {
          summary: 'Sign out the current passcode session',
          description:
            'Needs the session’s own `vps_` bearer token; 204. The token is refused (401) from then on.',
          security: [{ bearerAuth: [] }],
        },
      },
    )
