import { made, type WalkFamily } from '../family'

/**
 * Tables-API credentials: tenant-wide (x-tenant-wide, walked as such); a credential's location
 * allowlist is named in the create body, which the platform checks against the caller's scope.
 */
export const credentials: WalkFamily = {
  name: 'credentials',
  prefixes: ['/credentials'],
  located: false,
  create: async (t, tenant, locationId) => {
    const created = await made(t, tenant, 'POST', '/credentials', {
      name: 'Walk partner',
      scopes: ['reservations:read'],
      locationIds: [locationId],
    })
    return { id: created.credential.id }
  },
}
