// The principal: one immutable value per (tenant, credential) holding everything authorization
// needs, built once and cached (principal-cache.ts) until the tenant's auth version changes.
// Requests then decide permission and location scope from memory alone.

import type { PrincipalKind } from '../foundation/actor'
import type { Tenant } from '../tenancy/tenants'
import type { StaffAccess } from './access-sources'
import { everyLocation, type LocationScope, onlyLocations } from './location-scope'
import { type Permission, permissionsAt } from './permissions'

const nothing: ReadonlySet<Permission> = new Set()

export interface PrincipalFacts {
  kind: PrincipalKind
  /** The token's `sub`, `passcode-session:<id>`, `credential:<id>` or `staff:<id>`. */
  subject: string
  tenant: Tenant
  staffUserId: string | null
  /** A passcode session's location or a credential's allowlist; null: any of the tenant. */
  boundTo: readonly string[] | null
  /** Every location of the tenant when the principal was built. */
  tenantLocations: readonly string[]
  /** Held with no location named. */
  everywhere: ReadonlySet<Permission>
  /** Held at each location (absent: nothing there). */
  atLocation: ReadonlyMap<string, ReadonlySet<Permission>>
  /** A credential's id, scopes and per-minute rate limit. */
  credential: { id: string; scopes: ReadonlySet<Permission>; rateLimitPerMinute: number } | null
  /** Rebuilt at the latest at this time (epoch ms): a session's expiry, a job starting or ending. */
  validUntil: number
}

export class Principal {
  private readonly reachByPermission = new Map<Permission, LocationScope>()
  readonly locations: ReadonlySet<string>

  constructor(readonly facts: PrincipalFacts) {
    this.locations = new Set(facts.tenantLocations)
  }

  get kind() {
    return this.facts.kind
  }
  get subject() {
    return this.facts.subject
  }
  get tenant() {
    return this.facts.tenant
  }
  get staffUserId() {
    return this.facts.staffUserId
  }
  get boundTo() {
    return this.facts.boundTo
  }

  /** The primitives held where a request acts (null: no location named). */
  permissionsAt(locationId: string | null): ReadonlySet<Permission> {
    if (locationId === null) return this.facts.everywhere
    return this.facts.atLocation.get(locationId) ?? nothing
  }

  /** Every location where `permission` is held: all of them, some, or none. */
  reach(permission: Permission): LocationScope {
    let scope = this.reachByPermission.get(permission)
    if (!scope) {
      scope =
        this.facts.boundTo === null && this.facts.everywhere.has(permission)
          ? everyLocation
          : onlyLocations(
              [...this.facts.atLocation].filter(([, held]) => held.has(permission)).map(([id]) => id),
            )
      this.reachByPermission.set(permission, scope)
    }
    return scope
  }
}

/** A staff user acting anywhere in the tenant (JWT, identity headers, in-process tests). */
export function staffPrincipal(
  base: Pick<PrincipalFacts, 'kind' | 'subject' | 'tenant' | 'tenantLocations'>,
  access: StaffAccess,
): Principal {
  const atLocation = new Map<string, ReadonlySet<Permission>>()
  for (const id of base.tenantLocations) {
    const held = permissionsAt(access.roles, id, access.adjustments)
    if (held.size > 0) atLocation.set(id, held)
  }
  return new Principal({
    ...base,
    staffUserId: access.id,
    boundTo: null,
    everywhere: permissionsAt(access.roles, null, access.adjustments),
    atLocation,
    credential: null,
    validUntil: access.changesAt ?? Number.POSITIVE_INFINITY,
  })
}

/** A POS passcode session: that staff user at that one location, until the session ends. */
export function sessionPrincipal(
  base: Pick<PrincipalFacts, 'tenant' | 'tenantLocations'>,
  session: { id: string; locationId: string; expiresAt: string },
  access: StaffAccess,
): Principal {
  const held = permissionsAt(access.roles, session.locationId, access.adjustments)
  return new Principal({
    ...base,
    kind: 'passcode_session',
    subject: `passcode-session:${session.id}`,
    staffUserId: access.id,
    boundTo: [session.locationId],
    everywhere: nothing,
    atLocation: new Map([[session.locationId, held]]),
    credential: null,
    validUntil: Math.min(Date.parse(session.expiresAt), access.changesAt ?? Number.POSITIVE_INFINITY),
  })
}

/** A tables-API credential: its scopes, at its allowlisted locations only. */
export function credentialPrincipal(
  base: Pick<PrincipalFacts, 'tenant' | 'tenantLocations'>,
  credential: {
    id: string
    scopes: readonly string[]
    locationIds: readonly string[]
    rateLimitPerMinute: number
  },
): Principal {
  const scopes: ReadonlySet<Permission> = new Set(credential.scopes as Permission[])
  return new Principal({
    ...base,
    kind: 'credential',
    subject: `credential:${credential.id}`,
    staffUserId: null,
    boundTo: credential.locationIds,
    everywhere: nothing,
    atLocation: new Map(credential.locationIds.map((id) => [id, scopes])),
    credential: { id: credential.id, scopes, rateLimitPerMinute: credential.rateLimitPerMinute },
    validUntil: Number.POSITIVE_INFINITY,
  })
}
