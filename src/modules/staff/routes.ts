import { Elysia } from 'elysia'
import { revokeStaffPasscodeSessions } from '../../platform/auth/passcode-sessions'
import type { AuthPlugin } from '../../platform/auth/plugin'
import { pageOf } from '../../platform/foundation/paging'
import {
  assignRole,
  deactivateStaffUser,
  getStaffUser,
  listStaffUsers,
  reactivateStaffUser,
  removeRole,
  setPasscode,
  staffView,
  updateStaffUser,
} from './management'
import {
  CreateStaffUser,
  RoleAssignment,
  SetPasscode,
  StaffList,
  StaffListQuery,
  StaffParams,
  StaffRole,
  StaffRoleParams,
  StaffUser,
  UpdateStaffUser,
} from './model'
import { createStaffUser } from './service'

const reach =
  'A staff user with neither a tenant-wide role nor a role at a location the caller acts at is 404: the list leaves them out too.'
const manageRule = `You may change only staff users whose every role you could have granted yourself (see "Assign a role"). ${reach}`

export const staffRoutes = (auth: AuthPlugin) =>
  new Elysia({ name: 'staff', prefix: '/staff-users', detail: { tags: ['Staff'] } })
    .use(auth)
    .get(
      '',
      ({ db, query, locations }) =>
        listStaffUsers(db, { q: query.q, status: query.status, ...pageOf(query) }, locations),
      {
        permission: 'staff:read',
        query: StaffListQuery,
        response: StaffList,
        detail: {
          summary: 'List staff users',
          description:
            'Ordered by last name, first name. A caller whose `staff:read` comes only from a role at the ' +
            '`x-location-id` location (or a passcode session) sees only staff with a role there or tenant-wide.',
        },
      },
    )
    .post(
      '',
      ({ db, actor, body, set }) => {
        set.status = 201
        return staffView(db, createStaffUser(db, actor, body))
      },
      {
        permission: 'staff:write',
        body: CreateStaffUser,
        response: { 201: StaffUser },
        detail: {
          summary: 'Create a staff user',
          description:
            'Active at once. `subject` maps the identity provider’s `sub`; `roles` are tenant-wide or per ' +
            'location; `passcode` is stored hashed (argon2id). A duplicate email or subject is 409.',
        },
      },
    )
    .get('/:id', ({ db, locations, params }) => getStaffUser(db, locations, params.id), {
      permission: 'staff:read',
      params: StaffParams,
      response: StaffUser,
      detail: { summary: 'Get a staff user', description: reach },
    })
    .patch(
      '/:id',
      ({ db, actor, locations, params, body }) => updateStaffUser(db, actor, locations, params.id, body),
      {
        permission: 'staff:write',
        params: StaffParams,
        body: UpdateStaffUser,
        response: StaffUser,
        detail: {
          summary: 'Update a staff user',
          description: `Partial: fields not sent keep their value; \`subject: null\` unmaps the identity. ${manageRule}`,
        },
      },
    )
    .post(
      '/:id/deactivate',
      ({ db, actor, locations, params }) => {
        const staff = deactivateStaffUser(db, actor, locations, params.id)
        revokeStaffPasscodeSessions(db, staff.id)
        return staff
      },
      {
        permission: 'staff:write',
        params: StaffParams,
        response: StaffUser,
        detail: {
          summary: 'Deactivate a staff user',
          description:
            'Takes effect at once: the user’s bearer tokens and identity headers are refused from the next ' +
            'request, and their passcode sessions are signed out. Deactivating yourself, an inactive user or ' +
            `the last active tenant-wide owner is 409. ${manageRule}`,
        },
      },
    )
    .post(
      '/:id/reactivate',
      ({ db, actor, locations, params }) => reactivateStaffUser(db, actor, locations, params.id),
      {
        permission: 'staff:write',
        params: StaffParams,
        response: StaffUser,
        detail: {
          summary: 'Reactivate a staff user',
          description: `An active user is 409. Old passcode sessions stay signed out. ${manageRule}`,
        },
      },
    )
    .post(
      '/:id/roles',
      ({ db, actor, locations, params, body, set }) => {
        set.status = 201
        return assignRole(db, actor, locations, params.id, body)
      },
      {
        permission: 'staff:write',
        params: StaffParams,
        body: RoleAssignment,
        response: { 201: StaffRole },
        detail: {
          summary: 'Assign a role',
          description:
            'Tenant-wide without `locationId`, else only at that location. You can grant a role only if you ' +
            'hold every primitive it grants where it applies (a manager cannot make an owner; a role at one ' +
            'location does not let you grant tenant-wide roles); a passcode session only at its own ' +
            `location. The same role at the same place twice is 409. ${reach}`,
        },
      },
    )
    .delete(
      '/:id/roles/:roleId',
      ({ db, actor, locations, params }) => removeRole(db, actor, locations, params.id, params.roleId),
      {
        permission: 'staff:write',
        params: StaffRoleParams,
        response: StaffRole,
        detail: {
          summary: 'Remove a role',
          description:
            'Answers the removed assignment. Same rule as assigning; removing the last active tenant-wide ' +
            `owner role is 409. ${reach}`,
        },
      },
    )
    .put(
      '/:id/passcode',
      ({ db, actor, locations, params, body }) => {
        const staff = setPasscode(db, actor, locations, params.id, body.passcode)
        revokeStaffPasscodeSessions(db, staff.id)
        return staff
      },
      {
        permission: 'staff:write',
        params: StaffParams,
        body: SetPasscode,
        response: StaffUser,
        detail: {
          summary: 'Set the POS passcode',
          description: `Stored hashed (argon2id); signs out the user’s passcode sessions. ${manageRule}`,
        },
      },
    )
    .delete(
      '/:id/passcode',
      ({ db, actor, locations, params }) => {
        const staff = setPasscode(db, actor, locations, params.id, null)
        revokeStaffPasscodeSessions(db, staff.id)
        return staff
      },
      {
        permission: 'staff:write',
        params: StaffParams,
        response: StaffUser,
        detail: {
          summary: 'Clear the POS passcode',
          description: `No passcode sign-in until a new one is set; signs out passcode sessions. 404 when none is set. ${manageRule}`,
        },
      },
    )
