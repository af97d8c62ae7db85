// The embedded default: on an empty data directory, `serve` creates the default tenant with a
// location and an owner staff user mapped to the subject `owner`, so `npm install && npm start`
// gives a working service. DEFAULT_TENANT_SEED=demo (the default) fills it with the demo tasting
// room, so there is something to look at; `empty` leaves one location called `Main`.
import { createTenantWithOwner } from '../modules/tenants/service'
import { systemOperator } from '../platform/operator/audit'
import type { Platform } from '../platform/platform'
import { firstTenant } from '../platform/tenancy/tenants'

export const DEFAULT_OWNER = { email: 'owner@example.com', subject: 'owner' } as const

export function ensureEmbeddedDefault(platform: Platform): { created: boolean } {
  if (firstTenant(platform.control.db)) return { created: false }
  const demo = platform.config.defaultTenantSeed === 'demo'
  const { tenant, location, owner } = createTenantWithOwner(platform, systemOperator('bootstrap'), {
    slug: platform.config.defaultTenantSlug,
    name: demo ? 'Silverado Estate Winery' : 'Default',
    timeZone: demo ? 'America/Los_Angeles' : 'UTC',
    owner: { ...DEFAULT_OWNER, firstName: 'Default', lastName: 'Owner' },
    seed: platform.config.defaultTenantSeed,
  })
  platform.log.info('created the embedded default tenant', {
    tenant: tenant.slug,
    seed: platform.config.defaultTenantSeed,
    locationId: location.id,
    ownerStaffUserId: owner.id,
    ownerSubject: DEFAULT_OWNER.subject,
  })
  return { created: true }
}
