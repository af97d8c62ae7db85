import { family } from '../../platform/family'
import * as model from './model'
import { JobAssignment, LaborJob, Profile, Shift } from './model'
import { laborRoutes } from './routes'
import { shiftRoutes } from './shift-routes'

export const laborFamily = family({
  name: 'labor',
  tags: {
    Labor: 'Employees, jobs and job assignments, and shifts with breaks (time clock).',
  },
  models: { labor: model },
  events: [
    {
      object: 'labor_job',
      readPermission: 'labor:read',
      formerly: { object: 'labor-job' },
      actions: ['create', 'update'],
      emittedBy: '`/labor/jobs`',
      payload: 'the job',
      schema: LaborJob,
    },
    {
      object: 'labor_job_assignment',
      readPermission: 'labor:read',
      formerly: { object: 'labor-job-assignment' },
      actions: ['create', 'update'],
      emittedBy: '`/labor/job-assignments`',
      payload: 'the assignment',
      schema: JobAssignment,
    },
    {
      object: 'labor_employee',
      readPermission: 'labor:read',
      formerly: { object: 'labor-employee' },
      actions: ['create', 'update'],
      emittedBy: '`PUT /labor/employees/{staffUserId}/profile`',
      payload: 'the profile',
      schema: Profile,
    },
    {
      object: 'labor_shift',
      readPermission: 'labor:read',
      formerly: {
        object: 'labor-shift',
        actions: {
          clock_in: 'clock-in',
          break_start: 'break-start',
          break_end: 'break-end',
          clock_out: 'clock-out',
        },
      },
      actions: ['clock_in', 'break_start', 'break_end', 'clock_out'],
      emittedBy: '`/labor/shifts` clock-in, breaks and clock-out',
      payload: 'the shift',
      schema: Shift,
    },
  ],
  routes: (platform) => [laborRoutes(platform.auth), shiftRoutes(platform.auth)],
})

// What the other families may use.
export { jobAdjustments, staffPermissions, staffPermissionsAt } from './access'
export { createAssignment } from './assignments'
export { shiftExport } from './export'
export { createJob } from './jobs'
export type { LaborShiftBreakRow, LaborShiftRow } from './schema'
export { breaksOf, completedShiftsIn, shiftFigures } from './shifts'
