// The embedded default: on an empty data directory, `serve` creates the default tenant, a
// location and an owner staff user, so `npm install && npm start` gives a working service.
import { createLocation } from '../modules/locations/service'
import { createStaffUser } from '../modules/staff/service'
import { systemActor } from '../platform/auth/actor'
import type { Platform } from '../platform/platform'
import { createTenant, listTenants } from '../platform/tenancy/tenants'

export const DEFAULT_OWNER = { email: 'owner@example.com', subject: 'owner' } as const

export function ensureEmbeddedDefault(platform: Platform): { created: boolean } {
  if (listTenants(platform.control.db).length > 0) return { created: false }
  const tenant = createTenant(platform.control.db, {
    slug: platform.config.defaultTenantSlug,
    name: 'Default',
    timezone: 'UTC',
  })
  const { db } = platform.pool.get(tenant.id)
  const actor = systemActor(tenant.id, 'bootstrap')
  const location = createLocation(db, actor, { name: 'Main', timezone: 'UTC' })
  const owner = createStaffUser(db, actor, {
    email: DEFAULT_OWNER.email,
    firstName: 'Default',
    lastName: 'Owner',
    subject: DEFAULT_OWNER.subject,
    role: 'owner',
  })
  platform.log.info('created the embedded default tenant', {
    tenant: tenant.slug,
    locationId: location.id,
    ownerStaffUserId: owner.id,
    ownerSubject: DEFAULT_OWNER.subject,
  })
  return { created: true }
}
