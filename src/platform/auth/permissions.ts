// The permission catalogue: every primitive a route can require, and what each built-in role
// grants. docs/permissions.md is generated from this file, and a test walks the route table
// against it, so the catalogue, the docs and the routes cannot drift apart.

import { LRUCache } from 'lru-cache'

export const permissionCatalogue = {
  'apps:read': 'Read apps, app data and app sync records',
  'apps:write': 'Create, change and delete apps, app data and app sync records',
  'analytics:read': 'Request and read ERA analytics reports',
  'audit:read': 'Read the audit trail and verify its hash chain',
  'backups:read': 'Read the state of backups: snapshots, replication and the restore window',
  'cash:read': 'Read cash drawers, entries and closeout summaries',
  'cash:manage': 'Open, assign, pause and close drawers, and record drawer entries',
  'cash:approve': 'Approve a drawer closeout above the approval threshold',
  'clubs:read': 'Read clubs and club memberships',
  'clubs:write': 'Create and change clubs and club memberships',
  'collections:read': 'Read collections',
  'collections:write': 'Create, change and delete collections',
  'coupons:read': 'Read coupons',
  'credentials:read': 'Read the tables-API credentials (`tpk_live_`), never their tokens',
  'credentials:manage': 'Create and revoke tables-API credentials (`tpk_live_`)',
  'coupons:write': 'Create, change and delete coupons',
  'customers:read': 'Read customers and their addresses',
  'customers:write': 'Create and change customers, addresses and payment methods',
  'customers:merge': 'Merge customers into one',
  'data:import':
    'Import customers, gift cards and other records in bulk from CSV or NDJSON files, and read the imports and their errors',
  'discounts:approve': 'Approve a discount that requires manager approval',
  'events:read':
    'Follow the live event stream (`/events/stream`); each event also needs the read permission of what it carries, where it happened',
  'gift-cards:read': 'Read gift cards and their settings',
  'gift-cards:write': 'Issue, load, redeem and change gift cards',
  'gift-cards:manage': 'Adjust, void, merge, disable, enable and expire gift cards',
  'gift-cards:settings': 'Change gift card settings',
  'gift-cards:reports': 'Read gift card liability, transaction and settlement reports',
  'inventory:read': 'Read ingredients, stock, movements and recipes',
  'inventory:write': 'Change ingredients, stock and recipes; record receivings, waste and counts',
  'labor:read': 'Read employees, jobs, assignments and shifts',
  'labor:write': 'Change jobs, assignments, profiles and other staff users’ shifts',
  'labor:clock': 'Clock oneself in and out, and take breaks',
  'locations:read': 'Read locations',
  'locations:write': 'Set where a location charges tax (`PUT /order/settings/locations/{id}`)',
  'locations:manage': 'Create, change, deactivate and delete locations',
  'media:read': 'Read media assets',
  'media:write': 'Upload, attach, reuse, delete and restore media assets',
  'notes:read': 'Read notes',
  'notes:write': 'Create, change and delete notes',
  'orders:read': 'Read orders and fulfillments',
  'orders:write': 'Create, change, submit and fulfill orders',
  'orders:void': 'Void order lines and orders',
  'orders:shipping-override': 'Charge an order an explicit shipping amount in place of the configured rate',
  'partners:read': 'Read the partner restaurant routes',
  'payments:write': 'Take payments on orders',
  'payments:refund': 'Refund payments',
  'products:read': 'Read products and the wine reference lists',
  'profile:write': 'Change one’s own staff profile (name, phone, postal code: `PATCH /tables/v1/me`)',
  'products:write': 'Create, change and delete products',
  'reservations:read': 'Read reservations, experiences and reservation settings',
  'reservations:write': 'Create, change and cancel reservations; manage experiences',
  'shipping:read': 'Read shipping configurations and off-premise settings',
  'shipping:write': 'Change shipping configurations, off-premise settings and channels',
  'staff:read': 'Read staff users and their roles',
  'staff:write': 'Create, change and deactivate staff users; assign roles and passcodes',
  'tags:read': 'Read tags',
  'tags:write': 'Create, change and delete tags; attach and detach them',
  'taxes:read': 'Read taxes',
  'taxes:write': 'Create, change and delete taxes',
  'vendors:read': 'Read vendors',
  'vendors:write': 'Create, change and delete vendors',
  'webhooks:read': 'Read webhook subscriptions, delivery logs and dead letters',
  'webhooks:manage': 'Create and delete webhook subscriptions; review and replay dead letters',
} as const

export type Permission = keyof typeof permissionCatalogue

export const allPermissions = Object.keys(permissionCatalogue) as Permission[]

const reads = allPermissions.filter((p) => p.endsWith(':read'))

/** Owner-level only: changing integrations that receive the tenant's data, and the locations themselves. */
const ownerOnly: Permission[] = ['webhooks:manage', 'apps:write', 'locations:manage', 'credentials:manage']

export const builtInRoles = {
  owner: {
    description: 'Everything, including integrations (webhooks, apps) and the locations themselves.',
    grants: allPermissions,
  },
  manager: {
    description: 'Everything a location needs day to day, including approvals, voids, refunds and staff.',
    grants: allPermissions.filter((p) => !ownerOnly.includes(p)),
  },
  staff: {
    description: 'Front-of-house and bar work: orders, payments, customers, reservations, cash entries.',
    grants: [
      ...reads.filter(
        (p) =>
          !['audit:read', 'webhooks:read', 'analytics:read', 'backups:read', 'credentials:read'].includes(p),
      ),
      'cash:manage',
      'clubs:write',
      'customers:write',
      'gift-cards:write',
      'inventory:write',
      'labor:clock',
      'media:write',
      'notes:write',
      'orders:write',
      'payments:write',
      'profile:write',
      'reservations:write',
      'tags:write',
    ] satisfies Permission[],
  },
  read_only: {
    description: 'Every *:read primitive and nothing else.',
    grants: reads,
  },
} as const satisfies Record<string, { description: string; grants: readonly Permission[] }>

export type RoleName = keyof typeof builtInRoles

export const roleNames = Object.keys(builtInRoles) as RoleName[]

export const isRoleName = (value: string): value is RoleName => value in builtInRoles

export const isPermission = (value: string): value is Permission => value in permissionCatalogue

export interface RoleGrant {
  role: string
  /** null: tenant-wide; otherwise the role grants only at this location. */
  locationId: string | null
}

/**
 * What something other than a role adds or removes at one location: a labor job held there
 * (modules describe it; see access-sources.ts).
 */
export interface LocatedAccess {
  locationId: string
  grants: readonly Permission[]
  denies: readonly Permission[]
}

/**
 * The primitives a staff user holds where a request acts (null: no location named). A
 * location-scoped role counts only at its location; tenant-wide roles count everywhere. An
 * adjustment at that location adds its grants and then removes its denies, so a deny wins over
 * every role and grant; with no location named, the denies of every adjustment apply (a deny
 * cannot be escaped by leaving x-location-id out).
 */
export function permissionsAt(
  roles: readonly RoleGrant[],
  locationId: string | null,
  adjustments: readonly LocatedAccess[] = [],
): ReadonlySet<Permission> {
  const result = new Set<Permission>()
  for (const grant of roles) {
    if (grant.locationId !== null && grant.locationId !== locationId) continue
    if (!isRoleName(grant.role)) continue
    for (const p of builtInRoles[grant.role].grants) result.add(p)
  }
  for (const adjustment of adjustments) {
    if (adjustment.locationId === locationId) for (const p of adjustment.grants) result.add(p)
  }
  for (const adjustment of adjustments) {
    if (locationId === null || adjustment.locationId === locationId)
      for (const p of adjustment.denies) result.delete(p)
  }
  return shared(result)
}

/**
 * Equal sets are one object: nearly every principal holds a built-in role's set, and a cached
 * principal per tenant each holding its own copies of the owner's hundred-odd primitives came to
 * several KB per tenant (10,000 tenants' principals are cached).
 */
const sharedSets = new LRUCache<string, ReadonlySet<Permission>>({ max: 1000 })

function shared(held: ReadonlySet<Permission>): ReadonlySet<Permission> {
  const key = [...held].sort().join(' ')
  const existing = sharedSets.get(key)
  if (existing) return existing
  sharedSets.set(key, held)
  return held
}
