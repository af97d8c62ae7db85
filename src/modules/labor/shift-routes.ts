import { Elysia } from 'elysia'
import type { AuthPlugin } from '../../platform/auth/plugin'
import { pageOf } from '../../platform/foundation/paging'
import { ClockIn, IdParams, Shift, ShiftList, ShiftListQuery, StartBreak } from './model'
import { clockIn, clockOut, endBreak, getShift, listShifts, shiftLocated, startBreak } from './shifts'

const whoNote =
  'Staff users clock themselves with `labor:clock`; acting on another staff user’s shift also needs `labor:write` (403 otherwise).'

export const shiftRoutes = (auth: AuthPlugin) =>
  new Elysia({ name: 'labor-shifts', prefix: '/labor/shifts', detail: { tags: ['Labor'] } })
    .use(auth)
    .get(
      '',
      ({ db, tenant, query, locations }) =>
        listShifts(db, tenant.id, { ...query, ...pageOf(query) }, locations),
      {
        permission: 'labor:read',
        query: ShiftListQuery,
        response: ShiftList,
        detail: {
          summary: 'List shifts',
          description:
            'Newest clock-in first. `from`/`to` filter on the business date (the clock-in day in the location’s time zone). Worked time excludes unpaid breaks; open shifts count up to now.',
        },
      },
    )
    .get('/:id', ({ db, tenant, params }) => getShift(db, tenant.id, params.id), {
      permission: 'labor:read',
      locatedBy: shiftLocated,
      params: IdParams,
      response: Shift,
      detail: { summary: 'Get a shift' },
    })
    .post(
      '/clock-in',
      ({ db, actor, permissions, locations, body, set }) => {
        set.status = 201
        return clockIn(db, { actor, permissions, locations }, body)
      },
      {
        permission: 'labor:clock',
        body: ClockIn,
        response: { 201: Shift },
        detail: {
          summary: 'Clock in',
          description: `Opens a shift for the caller (or \`staffUserId\`) with a job they hold, by an assignment in force, at the location (\`locationId\`, else x-location-id, else the job’s location). One open shift per staff user: clocking in again is 409 with \`activeShift\`; so is a job not held there, an inactive staff user or a profile not \`active\`. The hourly rate is fixed at clock-in: the assignment’s \`basePayRateCents\`, else the job’s \`defaultWageAmount\`, else the profile’s \`basePayRateCents\` (0 for salaried jobs). ${whoNote}`,
        },
      },
    )
    .post(
      '/:id/breaks',
      ({ db, actor, permissions, locations, params, body }) =>
        startBreak(db, { actor, permissions, locations }, params.id, body),
      {
        permission: 'labor:clock',
        locatedBy: shiftLocated,
        params: IdParams,
        body: StartBreak,
        response: Shift,
        detail: {
          summary: 'Start a break',
          description: `Only an \`active\` shift (409 otherwise); the shift becomes \`on_break\`. Unpaid by default; unpaid break time is not worked time. ${whoNote}`,
        },
      },
    )
    .post(
      '/:id/breaks/end',
      ({ db, actor, permissions, locations, params }) =>
        endBreak(db, { actor, permissions, locations }, params.id),
      {
        permission: 'labor:clock',
        locatedBy: shiftLocated,
        params: IdParams,
        response: Shift,
        detail: {
          summary: 'End a break',
          description: `Only a shift \`on_break\` (409 otherwise); it becomes \`active\` again. ${whoNote}`,
        },
      },
    )
    .post(
      '/:id/clock-out',
      ({ db, actor, permissions, locations, params }) =>
        clockOut(db, { actor, permissions, locations }, params.id),
      {
        permission: 'labor:clock',
        locatedBy: shiftLocated,
        params: IdParams,
        response: Shift,
        detail: {
          summary: 'Clock out',
          description: `Closes the shift (\`completed\`), ending a break in progress at the same time. A completed shift is 409. ${whoNote}`,
        },
      },
    )
