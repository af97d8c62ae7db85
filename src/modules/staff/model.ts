import { t } from 'elysia'
import { pageInfoSchema, pagingQuery } from '../../platform/foundation/paging'

const roleName = t.Union(
  [t.Literal('owner'), t.Literal('manager'), t.Literal('staff'), t.Literal('read_only')],
  { description: 'A built-in role; see docs/permissions.md for what each grants.' },
)

export const StaffRole = t.Object(
  {
    id: t.String(),
    role: t.String(),
    locationId: t.Nullable(t.String({ description: 'null: tenant-wide; otherwise only at this location.' })),
    createdAt: t.String({ format: 'date-time' }),
  },
  { $id: '#/components/schemas/StaffRole' },
)

export const StaffUser = t.Object(
  {
    id: t.String(),
    email: t.String(),
    firstName: t.String(),
    lastName: t.String(),
    phoneCountryCode: t.Nullable(t.String()),
    phoneNumber: t.Nullable(t.String()),
    postalCode: t.Nullable(t.String()),
    status: t.String({ description: '`active`, `invited` or `inactive`; only active staff users may act.' }),
    passcodeSet: t.Boolean({ description: 'Whether a POS passcode is set (the passcode is never shown).' }),
    subjects: t.Array(t.String(), { description: 'Identity-provider subjects (`sub`) mapped to this user.' }),
    roles: t.Array(StaffRole),
    createdAt: t.String({ format: 'date-time' }),
    updatedAt: t.String({ format: 'date-time' }),
  },
  { $id: '#/components/schemas/StaffUser' },
)

const profileFields = {
  phoneCountryCode: t.Optional(
    t.Nullable(t.String({ pattern: '^\\+?[0-9]{1,4}$', description: 'e.g. `+1`.' })),
  ),
  phoneNumber: t.Optional(t.Nullable(t.String({ pattern: '^[0-9 ()+.-]{4,30}$' }))),
  postalCode: t.Optional(t.Nullable(t.String({ minLength: 1, maxLength: 20 }))),
}

export const RoleAssignment = t.Object(
  {
    role: roleName,
    locationId: t.Optional(
      t.Nullable(t.String({ minLength: 1, maxLength: 200, description: 'Omit or null for tenant-wide.' })),
    ),
  },
  { additionalProperties: false },
)

export const CreateStaffUser = t.Object(
  {
    email: t.String({ format: 'email', maxLength: 320 }),
    firstName: t.String({ minLength: 1, maxLength: 100 }),
    lastName: t.String({ minLength: 1, maxLength: 100 }),
    ...profileFields,
    subject: t.Optional(
      t.String({
        minLength: 1,
        maxLength: 255,
        description: 'The identity provider’s `sub` for this person.',
      }),
    ),
    roles: t.Optional(t.Array(RoleAssignment, { maxItems: 50 })),
    passcode: t.Optional(t.String({ pattern: '^[0-9]{4,8}$', description: 'POS passcode, 4 to 8 digits.' })),
  },
  { additionalProperties: false },
)

export const UpdateStaffUser = t.Object(
  {
    email: t.Optional(t.String({ format: 'email', maxLength: 320 })),
    firstName: t.Optional(t.String({ minLength: 1, maxLength: 100 })),
    lastName: t.Optional(t.String({ minLength: 1, maxLength: 100 })),
    ...profileFields,
    subject: t.Optional(
      t.Nullable(t.String({ minLength: 1, maxLength: 255, description: 'null removes the mapping.' })),
    ),
  },
  { additionalProperties: false, description: 'Partial update: only the fields sent change; null clears.' },
)

export const SetPasscode = t.Object(
  { passcode: t.String({ pattern: '^[0-9]{4,8}$', description: '4 to 8 digits.' }) },
  { additionalProperties: false },
)

export const StaffListQuery = t.Object({
  q: t.Optional(t.String({ maxLength: 200, description: 'Case-insensitive search over names and email.' })),
  status: t.Optional(t.Union([t.Literal('active'), t.Literal('invited'), t.Literal('inactive')])),
  ...pagingQuery(100),
})

export const StaffList = t.Object({ staffUsers: t.Array(StaffUser), page: pageInfoSchema })

export const StaffParams = t.Object({ id: t.String({ minLength: 1, maxLength: 200 }) })
export const StaffRoleParams = t.Object({
  id: t.String({ minLength: 1, maxLength: 200 }),
  roleId: t.String({ minLength: 1, maxLength: 200 }),
})

export type CreateStaffUserInput = typeof CreateStaffUser.static
export type UpdateStaffUserInput = typeof UpdateStaffUser.static
export type RoleAssignmentInput = typeof RoleAssignment.static
