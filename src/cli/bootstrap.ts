// The embedded default: on an empty data directory, `serve` creates the default tenant with a
// location and an owner staff user mapped to the subject `owner`, so `npm install && npm start`
// gives a working service. DEFAULT_TENANT_SEED=demo (the default) fills it with the demo tasting
// room, so there is something to look at; `empty` leaves one location called `Main`.
import type { CreateTenantInput } from '../modules/tenants'
import { createTenantWithOwner, createTenantWithOwnerInChildProcess } from '../modules/tenants'
import { systemOperator } from '../platform/operator/audit'
import type { Platform } from '../platform/platform'
import { firstTenant } from '../platform/tenancy/tenants'

export const DEFAULT_OWNER = { email: 'owner@example.com', subject: 'owner' } as const

const bootstrap = systemOperator('bootstrap')

function embeddedDefault(platform: Platform): CreateTenantInput {
  const demo = platform.config.defaultTenantSeed === 'demo'
  return {
    slug: platform.config.defaultTenantSlug,
    name: demo ? 'Silverado Estate Winery' : 'Default',
    timeZone: demo ? 'America/Los_Angeles' : 'UTC',
    owner: { ...DEFAULT_OWNER, firstName: 'Default', lastName: 'Owner' },
    seed: platform.config.defaultTenantSeed,
  }
}

function logCreated(platform: Platform, made: ReturnType<typeof createTenantWithOwner>): void {
  platform.log.info('created the embedded default tenant', {
    tenant: made.tenant.slug,
    seed: platform.config.defaultTenantSeed,
    locationId: made.location.id,
    ownerStaffUserId: made.owner.id,
    ownerSubject: DEFAULT_OWNER.subject,
  })
}

/** Creates the embedded default unless the data directory holds a tenant. */
export function ensureEmbeddedDefault(platform: Platform): { created: boolean } {
  if (firstTenant(platform.control.db)) return { created: false }
  logCreated(platform, createTenantWithOwner(platform, bootstrap, embeddedDefault(platform)))
  return { created: true }
}

/**
 * ensureEmbeddedDefault, its database filled by a child process while this one goes on answering.
 * `signal` stops it, leaving nothing behind.
 */
export async function ensureEmbeddedDefaultInChildProcess(
  platform: Platform,
  signal?: AbortSignal,
): Promise<{ created: boolean }> {
  if (firstTenant(platform.control.db)) return { created: false }
  logCreated(
    platform,
    await createTenantWithOwnerInChildProcess(platform, bootstrap, embeddedDefault(platform), signal),
  )
  return { created: true }
}
