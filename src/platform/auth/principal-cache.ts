// Principals and tenants kept in memory between requests. An entry is used only while the change
// signals it was built under are unchanged (auth-signals.ts) and its own time has not run out,
// so a hit runs no SQL and a change made anywhere applies from the next request.
import { LRUCache } from 'lru-cache'
import type { ControlDb } from '../tenancy/databases'
import { findTenantById, findTenantBySlug, type Tenant } from '../tenancy/tenants'
import type { AuthSignals } from './auth-signals'
import type { Principal } from './principal'

/**
 * The signals a principal was built under. Read each one before reading what it guards: the
 * control signal before the tenant's row, the tenant's before its sessions, credentials and staff.
 */
export interface SignalStamp {
  control: number
  tenant: number
}

interface Entry extends SignalStamp {
  principal: Principal
}

/**
 * A session's or credential's principal keeps its tenant's row (from the control database: a
 * suspension must reach it); a staff principal's tenant is looked up on each request.
 */
const dependsOnControl = (principal: Principal) =>
  principal.kind === 'passcode_session' || principal.kind === 'credential'

export class PrincipalCache {
  private readonly entries: LRUCache<string, Entry>

  constructor(
    readonly signals: AuthSignals,
    max = 10_000,
  ) {
    this.entries = new LRUCache({ max })
  }

  get(key: string, now: number): Principal | undefined {
    const entry = this.entries.get(key)
    if (!entry) return undefined
    const { principal } = entry
    if (
      principal.facts.validUntil <= now ||
      entry.tenant !== this.signals.tenant(principal.tenant.id) ||
      (dependsOnControl(principal) && entry.control !== this.signals.control())
    ) {
      this.entries.delete(key)
      return undefined
    }
    return principal
  }

  set(key: string, principal: Principal, stamp: SignalStamp): void {
    this.entries.set(key, { principal, ...stamp })
  }
}

/** Tenants by id and slug, dropped whenever the control database signals a change. */
export class TenantDirectory {
  private readonly byId = new Map<string, Tenant>()
  private readonly bySlug = new Map<string, Tenant>()
  private seenSignal: number

  constructor(
    private readonly control: ControlDb,
    private readonly signals: AuthSignals,
  ) {
    this.seenSignal = signals.control()
  }

  private fresh(): void {
    const now = this.signals.control()
    if (now === this.seenSignal) return
    this.byId.clear()
    this.bySlug.clear()
    this.seenSignal = now
  }

  private remember(tenant: Tenant | undefined): Tenant | undefined {
    if (tenant) {
      this.byId.set(tenant.id, tenant)
      this.bySlug.set(tenant.slug, tenant)
    }
    return tenant
  }

  byTenantId(id: string): Tenant | undefined {
    this.fresh()
    return this.byId.get(id) ?? this.remember(findTenantById(this.control, id))
  }

  byTenantSlug(slug: string): Tenant | undefined {
    this.fresh()
    return this.bySlug.get(slug) ?? this.remember(findTenantBySlug(this.control, slug))
  }
}
