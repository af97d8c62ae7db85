// The `operator: true` route option of the operator API (/admin/v1/...): the caller must be an
// operator, with an `opk_` key (made by `operator-key create`) or a JWT of the identity provider
// carrying AUTH_OPERATOR_CLAIM. Tenant tokens (`vps_`, `tpk_live_`, staff JWTs) are 403 here, as
// operator credentials are 403 on tenant routes (authenticate.ts): the two never mix. Like
// `permission`, it authenticates in the transform phase, so an anonymous caller gets 401 before
// validation and an import's body is not read for one. The handler receives `operator` (who acts,
// for the operator audit log). OpenAPI: the `operatorAuth` security scheme.
import { type DocumentDecoration, Elysia } from 'elysia'
import type { OperatorClaim } from '../../config'
import { bearerOf } from '../auth/authenticate'
import type { TokenVerifier } from '../auth/jwt'
import { carriesOperatorClaim } from '../auth/operator-claim'
import { CREDENTIAL_PREFIX, OPERATOR_KEY_PREFIX, PASSCODE_SESSION_PREFIX } from '../auth/tokens'
import { ApiError, forbidden } from '../foundation/problem'
import { requestInfo } from '../foundation/request-context'
import type { OperatorKeyRow } from '../tenancy/control-schema'
import type { ControlDb } from '../tenancy/databases'
import type { OperatorActor } from './audit'
import { resolveOperatorKey } from './keys'

export interface OperatorAuthDeps {
  control: ControlDb
  verifyToken: TokenVerifier
  claim: OperatorClaim | undefined
  /** In a cluster: the operator key of a token hash as etcd has it. */
  sharedOperatorKey?: (tokenHash: string) => OperatorKeyRow | undefined
}

export const OPERATOR_SECURITY_SCHEME = 'operatorAuth'

async function operatorSubject(deps: OperatorAuthDeps, bearer: string): Promise<string> {
  if (bearer.startsWith(OPERATOR_KEY_PREFIX))
    return `operator-key:${resolveOperatorKey(deps.control, bearer, deps.sharedOperatorKey).id}`
  if (bearer.startsWith(PASSCODE_SESSION_PREFIX) || bearer.startsWith(CREDENTIAL_PREFIX))
    throw forbidden('Tenant tokens do not open the operator API: use an operator key (opk_...)')
  const { subject, claims } = await deps.verifyToken(bearer)
  if (!carriesOperatorClaim(claims, deps.claim))
    throw forbidden('This token does not carry the operator claim (AUTH_OPERATOR_CLAIM)')
  return subject
}

export async function authenticateOperator(deps: OperatorAuthDeps, request: Request): Promise<OperatorActor> {
  const bearer = bearerOf(request.headers)
  if (bearer === null)
    throw new ApiError('unauthenticated', 'An operator key (opk_...) or an operator JWT is required', {
      headers: { 'www-authenticate': 'Bearer' },
    })
  const subject = await operatorSubject(deps, bearer)
  const info = requestInfo(request)
  return { subject, requestId: info.requestId, ipAddress: info.ipAddress, userAgent: info.userAgent }
}

let instances = 0

export function operatorPlugin(deps: OperatorAuthDeps) {
  const resolved = new WeakMap<Request, OperatorActor>()
  // One plugin per platform: the seed keeps Elysia from deduplicating two apps' plugins.
  return new Elysia({ name: 'operator-auth', seed: ++instances }).macro({
    operator: (_required: true) => ({
      detail: { security: [{ [OPERATOR_SECURITY_SCHEME]: [] }] } as DocumentDecoration,
      async transform({ request }) {
        resolved.set(request, await authenticateOperator(deps, request))
      },
      resolve({ request }) {
        const operator = resolved.get(request)
        if (!operator) throw new Error('operator authentication did not run before resolve')
        return { operator }
      },
    }),
  })
}

export type OperatorPlugin = ReturnType<typeof operatorPlugin>
