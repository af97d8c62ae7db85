// Who is calling, for which tenant and location, with which permissions: steps 2 to 5 of
// "One request" in design.md. Fails closed: anything unresolved is 401, 403, 404 or 429.
//
// Bearer kinds: `vps_` (POS passcode session), `tpk_live_` (tables-API credential), anything
// else a JWT from the identity provider. Without a bearer: `x-staff-user-id` (in-process tests
// only), then `x-auth-provider: idp` + `x-auth-user-id` (only with AUTH_TRUST_IDENTITY_HEADERS).
// The staff user is read on every request, so a deactivation or role change applies at once.

import type { Config } from '../../config'
import { jobAccessFor } from '../../modules/labor/access'
import { findLocation } from '../../modules/locations/service'
import {
  findStaffIdBySubject,
  findStaffUser,
  IDENTITY_PROVIDER,
  roleGrantsOf,
} from '../../modules/staff/service'
import { ApiError } from '../http/problem'
import { requestInfo } from '../http/request-context'
import type { ControlDb, Db, TenantPool } from '../tenancy/databases'
import { findTenantById, findTenantBySlug, type Tenant } from '../tenancy/tenants'
import type { Actor, PrincipalKind } from './actor'
import {
  CREDENTIAL_ROUTE_PREFIX,
  type CredentialScope,
  credentialActor,
  resolveCredential,
} from './credentials'
import type { TokenVerifier } from './jwt'
import { resolvePasscodeSession, sessionActor } from './passcode-sessions'
import type { Permission, RoleGrant } from './permissions'
import { permissionsAt } from './permissions'
import { type FixedWindowLimiter, rateLimitHeaders } from './rate-limit'
import { namedLocations, primaryLocation, type RequestParts } from './request-locations'
import { CREDENTIAL_PREFIX, PASSCODE_SESSION_PREFIX } from './tokens'

export interface AuthDeps {
  config: Config
  control: ControlDb
  pool: TenantPool
  verifyToken: TokenVerifier
  /** In-process tests only: honour `x-staff-user-id`. Never set from the environment. */
  trustStaffUserIdHeader: boolean
  /** Per-credential request counts (tpk_live_ rate limits). */
  limiter: FixedWindowLimiter
}

/** What a route requires: a staff primitive, and optionally the scope that lets a credential in. */
export interface RouteRequirement {
  permission: Permission
  credentialScope?: CredentialScope
}

export interface RequestAuth {
  tenant: Tenant
  db: Db
  actor: Actor
  permissions: Set<Permission>
  /**
   * Non-null when the caller may only see and touch data of this one location: a passcode
   * session's location, a credential's location, or x-location-id when the route's primitive
   * comes only from a location-scoped role. Location-aware reads filter by it.
   */
  locationScope: string | null
}

export interface RequestContext extends RequestParts {
  /** Response headers of the request (Elysia's `set.headers`), for RateLimit-* fields. */
  responseHeaders?: Record<string, string | number>
}

const unauthenticated = (detail: string) =>
  new ApiError('unauthenticated', detail, { headers: { 'www-authenticate': 'Bearer' } })

export function resolveTenant(deps: Pick<AuthDeps, 'control' | 'config'>, headers: Headers): Tenant {
  const id = headers.get('x-tenant-id')
  const slug = headers.get('x-tenant-slug')
  const tenant = id
    ? findTenantById(deps.control, id)
    : findTenantBySlug(deps.control, slug ?? deps.config.defaultTenantSlug)
  if (!tenant)
    throw new ApiError('tenant_not_found', `Tenant ${id ?? slug ?? deps.config.defaultTenantSlug} not found`)
  return tenant
}

/** A token that carries its tenant: tenant headers, when sent, must name that same tenant. */
function tokenTenant(deps: AuthDeps, headers: Headers, tenantId: string): Tenant {
  const tenant = findTenantById(deps.control, tenantId)
  if (!tenant) throw unauthenticated('The token names a tenant that no longer exists')
  const id = headers.get('x-tenant-id')
  const slug = headers.get('x-tenant-slug')
  if ((id !== null && id !== tenant.id) || (slug !== null && slug !== tenant.slug)) {
    throw new ApiError('forbidden', 'This token belongs to another tenant than the one selected')
  }
  return tenant
}

export function bearerOf(headers: Headers): string | null {
  const authorization = headers.get('authorization')
  if (authorization === null) return null
  const match = /^Bearer\s+(\S+)$/i.exec(authorization)
  if (!match?.[1]) throw unauthenticated('The Authorization header must be "Bearer <token>"')
  return match[1]
}

interface Principal {
  kind: PrincipalKind
  subject: string
  staffUserId: string | undefined
}

async function resolveStaffPrincipal(
  deps: AuthDeps,
  headers: Headers,
  bearer: string | null,
  db: Db,
): Promise<Principal> {
  if (bearer !== null) {
    const { subject } = await deps.verifyToken(bearer)
    return { kind: 'jwt', subject, staffUserId: findStaffIdBySubject(db, subject) }
  }
  const staffHeader = headers.get('x-staff-user-id')
  if (deps.trustStaffUserIdHeader && staffHeader) {
    return { kind: 'staff_header', subject: `staff:${staffHeader}`, staffUserId: staffHeader }
  }
  const provider = headers.get('x-auth-provider')
  if (deps.config.authTrustIdentityHeaders && provider !== null) {
    const subject = headers.get('x-auth-user-id')
    if (provider !== IDENTITY_PROVIDER)
      throw unauthenticated(`Identity provider "${provider}" is not accepted`)
    if (!subject) throw unauthenticated('x-auth-user-id is required with x-auth-provider')
    return { kind: 'identity_headers', subject, staffUserId: findStaffIdBySubject(db, subject) }
  }
  throw unauthenticated('A bearer token is required')
}

function activeStaffGrants(db: Db, staffUserId: string | undefined): { id: string; grants: RoleGrant[] } {
  const staff = staffUserId ? findStaffUser(db, staffUserId) : undefined
  if (staff?.status !== 'active') {
    throw new ApiError('forbidden', 'No active staff user is mapped to this subject in the selected tenant')
  }
  return { id: staff.id, grants: roleGrantsOf(db, staff.id) }
}

function requirePermission(permissions: Set<Permission>, required: Permission) {
  if (!permissions.has(required)) {
    throw new ApiError('forbidden', `This action requires the ${required} permission`, {
      extensions: { requiredPermission: required },
    })
  }
}

export async function authenticate(
  deps: AuthDeps,
  request: Request,
  route: string,
  requirement: Permission | RouteRequirement,
  context: RequestContext = {},
): Promise<RequestAuth> {
  const required = typeof requirement === 'string' ? { permission: requirement } : requirement
  const headers = request.headers
  const bearer = bearerOf(headers)
  if (bearer?.startsWith(PASSCODE_SESSION_PREFIX))
    return authenticatePasscodeSession(deps, request, route, required, context, bearer)
  if (bearer?.startsWith(CREDENTIAL_PREFIX))
    return authenticateCredential(deps, request, route, required, context, bearer)

  const tenant = resolveTenant(deps, headers)
  const { db } = deps.pool.get(tenant.id)
  const principal = await resolveStaffPrincipal(deps, headers, bearer, db)
  const staff = activeStaffGrants(db, principal.staffUserId)

  // A route's own `:locationId` (the tables API) is where the request acts; x-location-id may
  // repeat it but not contradict it.
  const header = headers.get('x-location-id')
  const fromPath = (context.params as Record<string, unknown> | undefined)?.locationId
  const pathLocation = typeof fromPath === 'string' ? fromPath : null
  if (pathLocation !== null && header !== null && header !== pathLocation) {
    throw new ApiError('validation_failed', 'x-location-id names another location than the path', {
      errors: [
        { path: 'headers/x-location-id', message: `must be ${pathLocation} (the path's location) or absent` },
      ],
    })
  }
  const locationId = pathLocation ?? header
  if (locationId !== null && !findLocation(db, locationId)) {
    throw new ApiError('not_found', `Location ${locationId} not found in this tenant`)
  }
  // Jobs held where the request acts add and remove primitives (labor accessPrimitives).
  const jobs = jobAccessFor(db, staff.id, locationId)
  const permissions = permissionsAt(staff.grants, locationId, jobs)
  requirePermission(permissions, required.permission)
  const jobsAnywhere = locationId === null ? jobs : jobAccessFor(db, staff.id, null)
  const tenantWide = permissionsAt(staff.grants, null, jobsAnywhere).has(required.permission)

  const info = requestInfo(request)
  return {
    tenant,
    db,
    permissions,
    locationScope: tenantWide ? null : locationId,
    actor: {
      kind: principal.kind,
      subject: principal.subject,
      staffUserId: staff.id,
      tenantId: tenant.id,
      locationId,
      requestId: info.requestId,
      ipAddress: info.ipAddress,
      userAgent: info.userAgent,
      method: request.method,
      route,
    },
  }
}

/** `vps_`: that staff user, at that location only. */
function authenticatePasscodeSession(
  deps: AuthDeps,
  request: Request,
  route: string,
  required: RouteRequirement,
  context: RequestContext,
  token: string,
): RequestAuth {
  const session = resolvePasscodeSession(deps.control, token)
  const tenant = tokenTenant(deps, request.headers, session.tenantId)
  const { db } = deps.pool.get(tenant.id)
  const staff = activeStaffGrants(db, session.staffUserId)
  const elsewhere = namedLocations(request.headers, context).filter((id) => id !== session.locationId)
  if (elsewhere.length > 0) {
    throw new ApiError(
      'forbidden',
      `This passcode session is bound to location ${session.locationId}; the request names ${elsewhere[0]}`,
      { extensions: { sessionLocationId: session.locationId } },
    )
  }
  const permissions = permissionsAt(
    staff.grants,
    session.locationId,
    jobAccessFor(db, staff.id, session.locationId),
  )
  requirePermission(permissions, required.permission)
  return {
    tenant,
    db,
    permissions,
    locationScope: session.locationId,
    actor: sessionActor(session, requestInfo(request), request.method, route),
  }
}

/** `tpk_live_`: only tables-API routes, within its scopes, locations and rate limit. */
function authenticateCredential(
  deps: AuthDeps,
  request: Request,
  route: string,
  required: RouteRequirement,
  context: RequestContext,
  token: string,
): RequestAuth {
  const credential = resolveCredential(deps.control, token)
  const tenant = tokenTenant(deps, request.headers, credential.tenantId)

  const decision = deps.limiter.take(credential.id, credential.rateLimitPerMinute)
  const limitHeaders = rateLimitHeaders(decision)
  if (!decision.allowed) {
    throw new ApiError(
      'rate_limited',
      `This credential is limited to ${decision.limit} requests per minute; retry in ${decision.resetSeconds} s`,
      { headers: limitHeaders, extensions: { retryAfterSeconds: decision.resetSeconds } },
    )
  }
  if (context.responseHeaders) Object.assign(context.responseHeaders, limitHeaders)

  if (!required.credentialScope || !route.startsWith(CREDENTIAL_ROUTE_PREFIX)) {
    throw new ApiError('forbidden', `Tables-API credentials work only on ${CREDENTIAL_ROUTE_PREFIX}* routes`)
  }
  if (!credential.scopes.includes(required.credentialScope)) {
    throw new ApiError('forbidden', `This credential lacks the ${required.credentialScope} scope`, {
      extensions: { requiredScope: required.credentialScope },
    })
  }
  const named = namedLocations(request.headers, context)
  const outside = named.filter((id) => !credential.locationIds.includes(id))
  if (outside.length > 0) {
    throw new ApiError('forbidden', `Location ${outside[0]} is not on this credential's allowlist`)
  }
  const locationId = primaryLocation(request.headers, context, named)
  const { db } = deps.pool.get(tenant.id)
  const actor = credentialActor(credential, requestInfo(request), request.method, route)
  actor.locationId = locationId
  return {
    tenant,
    db,
    permissions: new Set(credential.scopes as Permission[]),
    locationScope: locationId,
    actor,
  }
}

/** The caller's own passcode session (for signing out): any role, but only a live `vps_` token. */
export function currentPasscodeSession(deps: AuthDeps, request: Request) {
  const bearer = bearerOf(request.headers)
  if (!bearer?.startsWith(PASSCODE_SESSION_PREFIX)) {
    throw unauthenticated('A passcode session token (vps_...) is required')
  }
  const session = resolvePasscodeSession(deps.control, bearer)
  const tenant = tokenTenant(deps, request.headers, session.tenantId)
  return { session, tenant, db: deps.pool.get(tenant.id).db }
}
