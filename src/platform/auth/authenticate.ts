// Who is calling, for which tenant and location, with which permissions: steps 2 to 5 of
// "One request" in design.md. Fails closed: anything unresolved is 401, 403 or 404.

import type { Config } from '../../config'
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
import type { TokenVerifier } from './jwt'
import type { Permission } from './permissions'
import { permissionsAt } from './permissions'

export interface AuthDeps {
  config: Config
  control: ControlDb
  pool: TenantPool
  verifyToken: TokenVerifier
  /** In-process tests only: honour `x-staff-user-id`. Never set from the environment. */
  trustStaffUserIdHeader: boolean
}

export interface RequestAuth {
  tenant: Tenant
  db: Db
  actor: Actor
  permissions: Set<Permission>
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

interface Principal {
  kind: PrincipalKind
  subject: string
  staffUserId: string | undefined
}

async function resolvePrincipal(deps: AuthDeps, headers: Headers, db: Db): Promise<Principal> {
  const authorization = headers.get('authorization')
  if (authorization) {
    const match = /^Bearer\s+(\S+)$/i.exec(authorization)
    if (!match?.[1]) throw unauthenticated('The Authorization header must be "Bearer <token>"')
    const { subject } = await deps.verifyToken(match[1])
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

export async function authenticate(
  deps: AuthDeps,
  request: Request,
  route: string,
  required: Permission,
): Promise<RequestAuth> {
  const headers = request.headers
  const tenant = resolveTenant(deps, headers)
  const { db } = deps.pool.get(tenant.id)
  const principal = await resolvePrincipal(deps, headers, db)

  const staff = principal.staffUserId ? findStaffUser(db, principal.staffUserId) : undefined
  if (staff?.status !== 'active') {
    throw new ApiError('forbidden', 'No active staff user is mapped to this subject in the selected tenant')
  }

  const locationId = headers.get('x-location-id')
  if (locationId !== null && !findLocation(db, locationId)) {
    throw new ApiError('not_found', `Location ${locationId} not found in this tenant`)
  }

  const permissions = permissionsAt(roleGrantsOf(db, staff.id), locationId)
  if (!permissions.has(required)) {
    throw new ApiError('forbidden', `This action requires the ${required} permission`, {
      extensions: { requiredPermission: required },
    })
  }

  const info = requestInfo(request)
  return {
    tenant,
    db,
    permissions,
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
