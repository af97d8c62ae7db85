// Who is calling, for which tenant, with which permissions and at which locations: steps 3 to 6
// of "One request" in docs/architecture.md. Fails closed: anything unresolved is 401, 403, 404 or 429.
//
// Bearer kinds: `vps_` (POS passcode session), `tpk_live_` (tables-API credential), anything
// else a JWT from the identity provider. Operator credentials (`opk_` keys, JWTs carrying the
// operator claim) belong to the operator API (platform/operator) and are refused here. Without a
// bearer: `x-staff-user-id` (in-process tests only), then `x-auth-provider: idp` +
// `x-auth-user-id` (only with AUTH_TRUST_IDENTITY_HEADERS). A suspended tenant is 403
// `tenant_suspended`: suspending bumps the control auth version, so no cached principal outlives it.
//
// The principal behind a credential is built once and cached (principal-cache.ts): a request
// whose principal is cached runs no SQL here. Deactivations, role and job changes, revocations
// and new locations reach it through the auth version (auth-signals.ts) from the next request.
import type { Config } from '../../config'
import type { Actor } from '../foundation/actor'
import { ApiError } from '../foundation/problem'
import { requestInfo } from '../foundation/request-context'
import type { ControlDb, Db, TenantPool } from '../tenancy/databases'
import { assertTenantActive, type Tenant } from '../tenancy/tenants'
import type { AccessSources, StaffAccess } from './access-sources'
import { withBearerCookie } from './bearer-cookie'
import { CREDENTIAL_ROUTE_PREFIX, type CredentialScope, resolveCredential } from './credentials'
import type { TokenVerifier } from './jwt'
import { type LocationScope, onlyLocations, reaches } from './location-scope'
import { carriesOperatorClaim } from './operator-claim'
import { resolvePasscodeSession } from './passcode-sessions'
import type { Permission } from './permissions'
import { credentialPrincipal, type Principal, sessionPrincipal, staffPrincipal } from './principal'
import type { PrincipalCache, SignalStamp, TenantDirectory } from './principal-cache'
import { rateLimitHeaders, type SharedWindowLimiter } from './rate-limit'
import { namedLocations, type RequestParts } from './request-locations'
import {
  CREDENTIAL_PREFIX,
  hashToken,
  IDENTITY_PROVIDER,
  OPERATOR_KEY_PREFIX,
  PASSCODE_SESSION_PREFIX,
  tenantOfToken,
} from './tokens'

export interface AuthDeps {
  config: Config
  control: ControlDb
  pool: TenantPool
  verifyToken: TokenVerifier
  /** In-process tests only: honour `x-staff-user-id`. Never set from the environment. */
  trustStaffUserIdHeader: boolean
  /** Per-credential request counts (tpk_live_ rate limits). */
  limiter: SharedWindowLimiter
  /** Staff users, roles, jobs and locations, as the modules that own them describe them. */
  access: AccessSources
  principals: PrincipalCache
  tenants: TenantDirectory
  /**
   * The tenant of a `vps_` or `tpk_live_` token issued before tokens named it, by the token's
   * hash (legacy-tokens.ts; a cluster also asks etcd).
   */
  legacyTokenTenant: (tokenHash: string) => string | undefined
}

/** What a route requires: a staff primitive, and optionally the scope that lets a credential in. */
export interface RouteRequirement {
  permission: Permission
  credentialScope?: CredentialScope
  /**
   * The route acts on the business as a whole (its webhooks): the permission must be held at
   * every location, whatever the request names. A location-bound principal is 403.
   */
  tenantWide?: boolean
  /** The token may come from the bearer cookie when no Authorization header is sent (bearer-cookie.ts). */
  bearerCookie?: boolean
}

export interface RequestAuth {
  tenant: Tenant
  db: Db
  actor: Actor
  /** The primitives held where the request acts. */
  permissions: ReadonlySet<Permission>
  /** The locations this request may read and write (location-scope.ts). */
  locations: LocationScope
}

/** What `authenticate` answers: the request's authentication, and the means to ask again. */
export interface Authenticated extends RequestAuth {
  /**
   * Where the caller holds `permission`, narrowed to the location the request acts at: what a
   * response carrying records of several kinds (the event stream) shows of each.
   */
  reach(permission: Permission): LocationScope
  /**
   * The same request authenticated again, as of now, without counting against a credential's rate
   * limit: a long-lived response asks it every few seconds and ends when it throws (a revoked
   * credential, a deactivated staff user, an expired session or token).
   */
  recheck(): Promise<Authenticated>
}

export interface RequestContext extends RequestParts {
  /** Response headers of the request (Elysia's `set.headers`), for RateLimit-* fields. */
  responseHeaders?: Record<string, string | number>
  /** A recheck of a request already admitted: a credential's rate limit is not charged again. */
  recheck?: boolean
}

const unauthenticated = (detail: string) =>
  new ApiError('unauthenticated', detail, { headers: { 'www-authenticate': 'Bearer' } })

const noActiveStaff = () =>
  new ApiError('forbidden', 'No active staff user is mapped to this subject in the selected tenant')

/** The tenant the headers select, which must exist (404) and be active (403 `tenant_suspended`). */
export function resolveTenant(deps: Pick<AuthDeps, 'tenants' | 'config'>, headers: Headers): Tenant {
  const id = headers.get('x-tenant-id')
  const slug = headers.get('x-tenant-slug') ?? deps.config.defaultTenantSlug
  const tenant = id ? deps.tenants.byTenantId(id) : deps.tenants.byTenantSlug(slug)
  if (!tenant) throw new ApiError('tenant_not_found', `Tenant ${id ?? slug} not found`)
  return assertTenantActive(tenant)
}

/** A token that carries its tenant: tenant headers, when sent, must name that same tenant. */
function assertTokenTenant(headers: Headers, tenant: Tenant): void {
  const id = headers.get('x-tenant-id')
  const slug = headers.get('x-tenant-slug')
  if ((id !== null && id !== tenant.id) || (slug !== null && slug !== tenant.slug)) {
    throw new ApiError('forbidden', 'This token belongs to another tenant than the one selected')
  }
}

export function bearerOf(headers: Headers): string | null {
  const authorization = headers.get('authorization')
  if (authorization === null) return null
  const match = /^Bearer\s+(\S+)$/i.exec(authorization)
  if (!match?.[1]) throw unauthenticated('The Authorization header must be "Bearer <token>"')
  return match[1]
}

/**
 * The principal cached under `key`, or the one `build` makes from the databases and caches.
 * `build` reads the change signals (`stamp`) before the rows they guard.
 */
function cachedPrincipal(
  deps: AuthDeps,
  key: string,
  build: (stamp: (tenantId: string) => SignalStamp) => Principal,
): Principal {
  const cached = deps.principals.get(key, Date.now())
  if (cached) return cached
  const signals = deps.principals.signals
  const control = signals.control()
  let stamp: SignalStamp | undefined
  const principal = build((tenantId) => {
    stamp = { control, tenant: signals.tenant(tenantId) }
    return stamp
  })
  deps.principals.set(key, principal, stamp!)
  return principal
}

function activeStaff(deps: AuthDeps, db: Db, staffUserId: string | undefined): StaffAccess {
  const access = staffUserId ? deps.access.staffAccess(db, staffUserId, Date.now()) : undefined
  if (access?.status !== 'active') throw noActiveStaff()
  return access
}

/** A staff user acting tenant-wide: the JWT's subject, or an identity header in tests. */
async function staffPrincipalFor(
  deps: AuthDeps,
  headers: Headers,
  bearer: string | null,
): Promise<Principal> {
  // The tenant first: an unknown one is 404 whoever asks.
  const tenant = resolveTenant(deps, headers)
  let kind: 'jwt' | 'staff_header' | 'identity_headers'
  let subject: string
  let staffHeader: string | null = null
  if (bearer !== null) {
    kind = 'jwt'
    const verified = await deps.verifyToken(bearer)
    if (carriesOperatorClaim(verified.claims, deps.config.authOperatorClaim))
      throw new ApiError('forbidden', 'Operator tokens work only on the operator API (/admin/v1)')
    subject = verified.subject
  } else if (deps.trustStaffUserIdHeader && headers.get('x-staff-user-id')) {
    kind = 'staff_header'
    staffHeader = headers.get('x-staff-user-id')!
    subject = `staff:${staffHeader}`
  } else if (deps.config.authTrustIdentityHeaders && headers.get('x-auth-provider') !== null) {
    kind = 'identity_headers'
    const provider = headers.get('x-auth-provider')
    if (provider !== IDENTITY_PROVIDER)
      throw unauthenticated(`Identity provider "${provider}" is not accepted`)
    const sent = headers.get('x-auth-user-id')
    if (!sent) throw unauthenticated('x-auth-user-id is required with x-auth-provider')
    subject = sent
  } else {
    throw unauthenticated('A bearer token is required')
  }
  return cachedPrincipal(deps, `${tenant.id} ${kind} ${subject}`, (stamp) => {
    stamp(tenant.id)
    const { db } = deps.pool.get(tenant.id)
    const access = activeStaff(deps, db, staffHeader ?? deps.access.staffIdBySubject(db, subject))
    return staffPrincipal({ kind, subject, tenant, tenantLocations: deps.access.locationIds(db) }, access)
  })
}

/**
 * The tenant a `vps_` or `tpk_live_` token belongs to, which must still exist and be active: the
 * one it names, else (a token from before tokens named it) the one its hash is indexed under,
 * else the one the tenant headers name, in whose database the token is then looked for.
 */
function tokenTenant(deps: AuthDeps, headers: Headers, token: string): Tenant {
  const id = tenantOfToken(token) ?? deps.legacyTokenTenant(hashToken(token))
  if (id === undefined) {
    if (headers.has('x-tenant-id') || headers.has('x-tenant-slug')) return resolveTenant(deps, headers)
    throw new ApiError('unauthenticated', 'Token refused: unknown token', {
      headers: { 'www-authenticate': 'Bearer error="invalid_token"' },
    })
  }
  const tenant = deps.tenants.byTenantId(id)
  if (!tenant) throw unauthenticated('The token names a tenant that does not exist here')
  return assertTenantActive(tenant)
}

function sessionPrincipalFor(deps: AuthDeps, headers: Headers, token: string): Principal {
  return cachedPrincipal(deps, `vps ${token}`, (stamp) => {
    const tenant = tokenTenant(deps, headers, token)
    stamp(tenant.id)
    const { db } = deps.pool.get(tenant.id)
    const session = resolvePasscodeSession(db, tenant.id, token)
    const access = activeStaff(deps, db, session.staffUserId)
    return sessionPrincipal({ tenant, tenantLocations: deps.access.locationIds(db) }, session, access)
  })
}

function credentialPrincipalFor(deps: AuthDeps, headers: Headers, token: string): Principal {
  return cachedPrincipal(deps, `tpk ${token}`, (stamp) => {
    const tenant = tokenTenant(deps, headers, token)
    stamp(tenant.id)
    const { db } = deps.pool.get(tenant.id)
    const credential = resolveCredential(db, tenant.id, token)
    return credentialPrincipal({ tenant, tenantLocations: deps.access.locationIds(db) }, credential)
  })
}

function limitCredential(deps: AuthDeps, principal: Principal, context: RequestContext): void {
  const { id, rateLimitPerMinute } = principal.facts.credential!
  const decision = deps.limiter.take(id, rateLimitPerMinute)
  const limitHeaders = rateLimitHeaders(decision)
  if (!decision.allowed) {
    throw new ApiError(
      'rate_limited',
      `This credential is limited to ${decision.limit} requests per minute; retry in ${decision.resetSeconds} s`,
      { headers: limitHeaders, extensions: { retryAfterSeconds: decision.resetSeconds } },
    )
  }
  if (context.responseHeaders) Object.assign(context.responseHeaders, limitHeaders)
}

function assertCredentialRoute(principal: Principal, route: string, required: RouteRequirement): void {
  if (!required.credentialScope || !route.startsWith(CREDENTIAL_ROUTE_PREFIX)) {
    throw new ApiError('forbidden', `Tables-API credentials work only on ${CREDENTIAL_ROUTE_PREFIX}* routes`)
  }
  if (!principal.facts.credential!.scopes.has(required.credentialScope)) {
    throw new ApiError('forbidden', `This credential lacks the ${required.credentialScope} scope`, {
      extensions: { requiredScope: required.credentialScope },
    })
  }
}

/** A session or credential may name only its own locations, anywhere in the request. */
function assertBoundLocations(principal: Principal, named: readonly string[]): void {
  const bound = principal.boundTo
  if (bound === null) return
  const outside = named.find((id) => !bound.includes(id))
  if (outside === undefined) return
  if (principal.kind === 'passcode_session') {
    throw new ApiError(
      'forbidden',
      `This passcode session is bound to location ${bound[0]}; the request names ${outside}`,
      { extensions: { sessionLocationId: bound[0] } },
    )
  }
  throw new ApiError('forbidden', `Location ${outside} is not on this credential's allowlist`)
}

/**
 * Where the request acts: the route's own `:locationId`, else x-location-id (which may repeat
 * the path's but not contradict it), else a session's location. null: nowhere in particular.
 */
function requestLocation(principal: Principal, headers: Headers, parts: RequestParts, named: string[]) {
  const header = headers.get('x-location-id')
  const fromPath = (parts.params as Record<string, unknown> | undefined)?.locationId
  const pathLocation = typeof fromPath === 'string' ? fromPath : null
  if (pathLocation !== null && header !== null && header !== pathLocation) {
    throw new ApiError('validation_failed', 'x-location-id names another location than the path', {
      errors: [
        { path: 'headers/x-location-id', message: `must be ${pathLocation} (the path's location) or absent` },
      ],
    })
  }
  const bound = principal.boundTo
  const at = pathLocation ?? header ?? (bound ? (bound.length === 1 ? bound[0]! : (named[0] ?? null)) : null)
  if (at !== null && !principal.locations.has(at)) {
    throw new ApiError('not_found', `Location ${at} not found in this tenant`)
  }
  return at
}

function missing(permission: Permission): ApiError {
  return new ApiError('forbidden', `This action requires the ${permission} permission`, {
    extensions: { requiredPermission: permission },
  })
}

/** Permission and location scope: a named location narrows, and must be one where it is held. */
function authorize(
  principal: Principal,
  permission: Permission,
  at: string | null,
  named: readonly string[],
) {
  let permissions: ReadonlySet<Permission>
  let locations: LocationScope
  let actingAt = at
  if (at !== null) {
    permissions = principal.permissionsAt(at)
    if (!permissions.has(permission)) throw missing(permission)
    locations = onlyLocations([at])
  } else {
    locations = principal.reach(permission)
    if (locations.all) {
      permissions = principal.permissionsAt(null)
    } else if (locations.ids.length === 0) {
      throw missing(permission)
    } else {
      // Held at some locations only: the request acts at the one, or with what all of them share.
      if (locations.ids.length === 1) actingAt = locations.ids[0]!
      const [first, ...rest] = locations.ids.map((id) => principal.permissionsAt(id))
      permissions = new Set([...first!].filter((p) => rest.every((held) => held.has(p))))
    }
  }
  const outside = named.find((id) => !reaches(locations, id))
  if (outside !== undefined) {
    throw new ApiError('forbidden', `This request may not act at location ${outside}`, {
      extensions: { locationId: outside, requiredPermission: permission },
    })
  }
  return { permissions, locations, actingAt }
}

export async function authenticate(
  deps: AuthDeps,
  request: Request,
  route: string,
  requirement: Permission | RouteRequirement,
  context: RequestContext = {},
): Promise<Authenticated> {
  const required = typeof requirement === 'string' ? { permission: requirement } : requirement
  const headers = required.bearerCookie ? withBearerCookie(request.headers) : request.headers
  const bearer = bearerOf(headers)
  let principal: Principal
  if (bearer?.startsWith(OPERATOR_KEY_PREFIX)) {
    throw new ApiError('forbidden', 'Operator keys work only on the operator API (/admin/v1)')
  } else if (bearer?.startsWith(PASSCODE_SESSION_PREFIX)) {
    principal = sessionPrincipalFor(deps, headers, bearer)
    assertTokenTenant(headers, principal.tenant)
  } else if (bearer?.startsWith(CREDENTIAL_PREFIX)) {
    principal = credentialPrincipalFor(deps, headers, bearer)
    assertTokenTenant(headers, principal.tenant)
    if (!context.recheck) limitCredential(deps, principal, context)
    assertCredentialRoute(principal, route, required)
  } else {
    principal = await staffPrincipalFor(deps, headers, bearer)
  }

  const named = namedLocations(headers, context)
  assertBoundLocations(principal, named)
  const at = requestLocation(principal, headers, context, named)
  // A credential holds scopes, not staff primitives: the route's scope is what it must hold.
  const permission = principal.kind === 'credential' ? required.credentialScope! : required.permission
  const { permissions, locations, actingAt } = authorize(principal, permission, at, named)
  if (required.tenantWide && !principal.reach(permission).all) {
    throw new ApiError('forbidden', `This action needs the ${permission} permission at every location`, {
      extensions: { requiredPermission: permission },
    })
  }

  const info = requestInfo(request)
  return {
    tenant: principal.tenant,
    db: deps.pool.get(principal.tenant.id).db,
    permissions,
    locations,
    reach: (wanted) => {
      if (at === null) return principal.reach(wanted)
      return principal.permissionsAt(at).has(wanted) ? onlyLocations([at]) : onlyLocations([])
    },
    recheck: () =>
      authenticate(deps, request, route, requirement, {
        ...context,
        responseHeaders: undefined,
        recheck: true,
      }),
    actor: {
      kind: principal.kind,
      subject: principal.subject,
      staffUserId: principal.staffUserId,
      tenantId: principal.tenant.id,
      locationId: actingAt,
      requestId: info.requestId,
      ipAddress: info.ipAddress,
      userAgent: info.userAgent,
      method: request.method,
      route,
    },
  }
}

/** The caller's own passcode session (for signing out): any role, but only a live `vps_` token. */
export function currentPasscodeSession(deps: AuthDeps, request: Request) {
  const bearer = bearerOf(request.headers)
  if (!bearer?.startsWith(PASSCODE_SESSION_PREFIX)) {
    throw unauthenticated('A passcode session token (vps_...) is required')
  }
  const tenant = tokenTenant(deps, request.headers, bearer)
  assertTokenTenant(request.headers, tenant)
  const { db } = deps.pool.get(tenant.id)
  return { session: resolvePasscodeSession(db, tenant.id, bearer), tenant, db }
}
