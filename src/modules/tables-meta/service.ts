import type { Config } from '../../config'
import type { RequestAuth } from '../../platform/auth/authenticate'
import { type Permission, roleNames } from '../../platform/auth/permissions'
import { forbidden } from '../../platform/foundation/problem'
import type { ControlDb, Db, TenantPool } from '../../platform/tenancy/databases'
import { listTenants } from '../../platform/tenancy/tenants'
import type { Queryable } from '../../platform/tenancy/transaction'
import { staffPermissions } from '../labor'
import type { LocationRow } from '../locations'
import { findLocation, listLocations } from '../locations'
import {
  findStaffIdBySubject,
  findStaffUser,
  roleGrantsOf,
  staffRoleAssignments,
  updateOwnProfile,
} from '../staff'
import type { UpdateMeInput } from './model'

export interface MetaDeps {
  config: Config
  control: ControlDb
  pool: TenantPool
}

const place = (row: LocationRow) => ({ id: row.id, name: row.name, timezone: row.timezone })

/** Locations a staff user can act in: where their roles or their jobs in force give them anything. */
function actableLocations(db: Queryable, staffUserId: string): LocationRow[] {
  const heldAt = staffPermissions(db, staffUserId)
  return listLocations(db).filter((l) => heldAt(l.id).size > 0)
}

/** Sections of the dashboard, each shown when the caller holds the primitive that reads it. */
const sections: [string, Permission][] = [
  ['reservations', 'reservations:read'],
  ['experiences', 'reservations:read'],
  ['schedules', 'reservations:read'],
  ['settings', 'reservations:write'],
  ['webhooks', 'webhooks:read'],
  ['staff', 'staff:read'],
  ['audit', 'audit:read'],
]

export function tablesMeta(deps: MetaDeps, auth: RequestAuth) {
  const { db, actor, tenant, permissions } = auth
  if (!actor.staffUserId) throw forbidden('The tables dashboard is for staff users')
  const staff = findStaffUser(db, actor.staffUserId)!
  const roles = staffRoleAssignments(db, staff.id)
  const here = roles.filter((r) => r.locationId === null || r.locationId === actor.locationId)
  const dashboardRole = roleNames.find((name) => here.some((r) => r.role === name)) ?? null

  const locations =
    actor.kind === 'passcode_session'
      ? [findLocation(db, actor.locationId!)].filter((l): l is LocationRow => l !== undefined)
      : actableLocations(db, staff.id)
  const current = actor.locationId ? findLocation(db, actor.locationId) : undefined
  const schema = db.$client
    .query<{ tag: string }, []>('SELECT tag FROM schema_migrations ORDER BY tag DESC LIMIT 1')
    .get()

  return {
    apiVersion: 'v1' as const,
    databaseSchema: schema?.tag ?? 'none',
    tenantId: tenant.id,
    locationId: actor.locationId,
    tenant: { slug: tenant.slug, name: tenant.name, timezone: tenant.timezone },
    location: current ? place(current) : null,
    locations: locations.map(place),
    businesses: businessesOf(deps, auth, locations),
    staffUser: {
      id: staff.id,
      email: staff.email,
      firstName: staff.firstName,
      lastName: staff.lastName,
      phoneCountryCode: staff.phoneCountryCode,
      phoneNumber: staff.phoneNumber,
      postalCode: staff.postalCode,
      updatedAt: staff.updatedAt,
      roles,
      dashboardRole,
    },
    dashboardSections: [...new Set(sections.filter(([, p]) => permissions.has(p)).map(([s]) => s))],
    locationRequiredForOperationalCommands: locations.length > 1,
    capabilities: [...permissions].sort(),
    products: {
      tablesReservations: {
        status: 'active',
        source: 'self_hosted',
        startsAt: tenant.createdAt,
        endsAt: null,
      },
      platformPos: true,
    },
    dependencies: {
      postgres: false,
      platformPayments: deps.config.paymentGateway !== 'sandbox',
      platformOrders: true,
      platformCustomers: true,
      platformRestaurantFloor: false,
    },
  }
}

/**
 * Every tenant where the same identity-provider subject maps to an active staff user who can act
 * at some location (a role or a job).
 * A passcode session or test header is bound to its tenant, so it lists only that one. Opens each
 * tenant's database (through the pool): fine for the tens of tenants a self-hosted install has.
 */
function businessesOf(deps: MetaDeps, auth: RequestAuth, currentLocations: LocationRow[]) {
  const { actor, tenant } = auth
  const current = {
    tenantSlug: tenant.slug,
    tenantName: tenant.name,
    defaultLocation: currentLocations[0] ? place(currentLocations[0]) : null,
  }
  if (actor.kind !== 'jwt' && actor.kind !== 'identity_headers') return [current]
  const result = []
  for (const other of listTenants(deps.control)) {
    if (other.id === tenant.id) {
      result.push(current)
      continue
    }
    const { db } = deps.pool.get(other.id)
    const staffId = findStaffIdBySubject(db, actor.subject)
    if (!staffId || findStaffUser(db, staffId)?.status !== 'active') continue
    const [first] = actableLocations(db, staffId)
    if (!first && roleGrantsOf(db, staffId).length === 0) continue
    result.push({
      tenantSlug: other.slug,
      tenantName: other.name,
      defaultLocation: first ? place(first) : null,
    })
  }
  return result
}

export function updateMe(db: Db, auth: RequestAuth, input: UpdateMeInput) {
  const { actor } = auth
  if (!actor.staffUserId) throw forbidden('Only a staff user has a profile')
  const row = updateOwnProfile(db, actor, actor.staffUserId, input)
  return {
    id: row.id,
    email: row.email,
    firstName: row.firstName,
    lastName: row.lastName,
    phoneCountryCode: row.phoneCountryCode,
    phoneNumber: row.phoneNumber,
    postalCode: row.postalCode,
    updatedAt: row.updatedAt,
  }
}
