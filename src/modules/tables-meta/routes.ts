import { Elysia } from 'elysia'
import type { Platform } from '../../platform/platform'
import { StaffProfile, TablesMeta, UpdateMe } from './model'
import { tablesMeta, updateMe } from './service'

export const tablesMetaRoutes = (platform: Platform) => {
  const deps = { config: platform.config, control: platform.control.db, pool: platform.pool }
  return new Elysia({ name: 'tables-meta', prefix: '/tables/v1', detail: { tags: ['Tables'] } })
    .use(platform.auth)
    .get(
      '/meta',
      ({ db, actor, tenant, permissions, locations }) =>
        tablesMeta(deps, { db, actor, tenant, permissions, locations }),
      {
        permission: 'reservations:read',
        response: TablesMeta,
        detail: {
          summary: 'Tables dashboard bootstrap',
          description:
            'Who the caller is and what they can do here. `location` is the `x-location-id` location (a ' +
            'passcode session’s own); `locations` those the caller can act in (all with a tenant-wide role, ' +
            'else those of location roles); `businesses` every tenant where the same identity-provider ' +
            'subject is an active staff user with a role; `dashboardRole` the highest built-in role that ' +
            'applies here (owner, manager, staff, read_only); `capabilities` the permission primitives held ' +
            'here; `locationRequiredForOperationalCommands` is true when the caller can act in more than one ' +
            'location, so commands must name one. Self-hosted, so `products.tablesReservations` is `active` ' +
            'from the tenant’s creation with source `self_hosted`; `dependencies.platformPayments` is true ' +
            'when a real payment provider (not the sandbox) is configured.',
        },
      },
    )
    .patch(
      '/me',
      ({ db, actor, tenant, permissions, locations, body }) =>
        updateMe(db, { db, actor, tenant, permissions, locations }, body),
      {
        permission: 'profile:write',
        body: UpdateMe,
        response: StaffProfile,
        detail: {
          summary: 'Update my staff profile',
          description:
            '`expectedUpdatedAt` must equal the stored `updatedAt` (as `GET /tables/v1/meta` shows it), ' +
            'else 409 `conflict` with the current `updatedAt`. Each change moves `updatedAt` strictly forward.',
        },
      },
    )
}
