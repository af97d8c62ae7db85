import { t } from 'elysia'

const Place = t.Object({ id: t.String(), name: t.String(), timezone: t.String() })

const profileFields = {
  id: t.String(),
  email: t.String(),
  firstName: t.String(),
  lastName: t.String(),
  phoneCountryCode: t.Nullable(t.String()),
  phoneNumber: t.Nullable(t.String()),
  postalCode: t.Nullable(t.String()),
  updatedAt: t.String({ format: 'date-time' }),
}

export const StaffProfile = t.Object(profileFields, { $id: '#/components/schemas/StaffProfile' })

export const TablesMeta = t.Object({
  apiVersion: t.Literal('v1'),
  databaseSchema: t.String({ description: 'The latest migration applied to this tenant’s database.' }),
  tenantId: t.String(),
  locationId: t.Nullable(t.String()),
  tenant: t.Object({ slug: t.String(), name: t.String(), timezone: t.String() }),
  location: t.Nullable(Place),
  locations: t.Array(Place, { description: 'The locations this staff user can act in.' }),
  businesses: t.Array(
    t.Object({ tenantSlug: t.String(), tenantName: t.String(), defaultLocation: t.Nullable(Place) }),
  ),
  staffUser: t.Object({
    ...profileFields,
    roles: t.Array(t.Object({ id: t.String(), role: t.String(), locationId: t.Nullable(t.String()) })),
    dashboardRole: t.Nullable(t.String()),
  }),
  dashboardSections: t.Array(t.String()),
  locationRequiredForOperationalCommands: t.Boolean(),
  capabilities: t.Array(t.String()),
  products: t.Object({
    tablesReservations: t.Object({
      status: t.String(),
      source: t.String(),
      startsAt: t.Nullable(t.String()),
      endsAt: t.Nullable(t.String()),
    }),
    platformPos: t.Boolean(),
  }),
  dependencies: t.Object({
    postgres: t.Boolean(),
    platformPayments: t.Boolean(),
    platformOrders: t.Boolean(),
    platformCustomers: t.Boolean(),
    platformRestaurantFloor: t.Boolean(),
  }),
})

export const UpdateMe = t.Object(
  {
    expectedUpdatedAt: t.String({
      format: 'date-time',
      description: 'The `updatedAt` you last read; anything else is 409 with the current `updatedAt`.',
    }),
    firstName: t.String({ minLength: 1, maxLength: 100 }),
    lastName: t.String({ minLength: 1, maxLength: 100 }),
    phoneCountryCode: t.Optional(t.Nullable(t.String({ pattern: '^\\+?[0-9]{1,4}$' }))),
    phoneNumber: t.Optional(t.Nullable(t.String({ pattern: '^[0-9 ()+.-]{4,30}$' }))),
    postalCode: t.Optional(t.Nullable(t.String({ minLength: 1, maxLength: 20 }))),
  },
  { additionalProperties: false },
)

export type UpdateMeInput = typeof UpdateMe.static
