import { Elysia } from 'elysia'
import type { AuthPlugin } from '../../platform/auth/plugin'
import { pageOf } from '../../platform/foundation/paging'
import {
  assignmentLocated,
  createAssignment,
  getAssignment,
  listAssignments,
  updateAssignment,
} from './assignments'
import { getEmployee, listEmployees, putProfile } from './employees'
import { createJob, getJob, jobLocated, listJobs, updateJob } from './jobs'
import {
  AssignmentList,
  AssignmentListQuery,
  CreateAssignment,
  CreateJob,
  EmployeeList,
  EmployeeListQuery,
  IdParams,
  JobAssignment,
  JobList,
  JobListQuery,
  LaborEmployee,
  LaborJob,
  PutProfile,
  StaffParams,
  UpdateAssignment,
  UpdateJob,
} from './model'

const accessNote =
  'While a staff user holds the job (an assignment in force at a location), `accessPrimitives.grants` add those primitives to their requests at that location and `denies` remove them (denies win over roles and grants; a request naming no location is subject to the denies of every job held). Primitives must be in the catalogue (400 otherwise), and only a caller who holds a primitive where the job applies may hand it out (403).'

export const laborRoutes = (auth: AuthPlugin) =>
  new Elysia({ name: 'labor', prefix: '/labor', detail: { tags: ['Labor'] } })
    .use(auth)
    .get(
      '/employees',
      ({ db, tenant, query, locations }) =>
        listEmployees(db, tenant.id, { ...query, ...pageOf(query) }, locations),
      {
        permission: 'labor:read',
        query: EmployeeListQuery,
        response: EmployeeList,
        detail: {
          summary: 'List employees',
          description:
            'Every staff user with their employment profile (null until one is set), jobs and open shift, ordered by last then first name. `locationId`: the primary location or a job assignment there; `search`: name, preferred name, email or employee number; `staffStatus`: the staff user status; `employmentStatus`: the profile status (staff users without a profile never match). A location-bound request lists only employees who work within its locations (a role there or tenant-wide, a job assignment there, or their primary location there), each with the jobs and open shift at those locations; `total` counts only them.',
        },
      },
    )
    .get(
      '/employees/:staffUserId',
      ({ db, tenant, params, locations }) => getEmployee(db, tenant.id, params.staffUserId, locations),
      {
        permission: 'labor:read',
        params: StaffParams,
        response: LaborEmployee,
        detail: {
          summary: 'Get an employee',
          description:
            '`jobs` are all job assignments (StaffJob, `id` = assignment id), `activeJobs` those in force with a job not archived, `primaryJob` the active one marked primary; `activeShift` the open shift. A location-bound request sees only the assignments and open shift at its locations, and an employee who works only at other locations is 404.',
        },
      },
    )
    .put(
      '/employees/:staffUserId/profile',
      ({ db, actor, locations, params, body }) => putProfile(db, actor, locations, params.staffUserId, body),
      {
        permission: 'labor:write',
        params: StaffParams,
        body: PutProfile,
        response: LaborEmployee,
        detail: {
          summary: 'Set an employee’s employment profile',
          description:
            'Creates the profile the first time (defaults: `active`, `hourly`, overtime eligible), then changes only the fields sent. Pay rates are integer cents. Only a caller who could manage every role the staff user holds may change it (403); an employee the caller does not see (see Get an employee) is 404.',
        },
      },
    )
    .get(
      '/jobs',
      ({ db, tenant, query, locations }) =>
        listJobs(db, tenant.id, { ...query, ...pageOf(query) }, locations),
      {
        permission: 'labor:read',
        query: JobListQuery,
        response: JobList,
        detail: {
          summary: 'List jobs',
          description:
            'Ordered by title. `locationId`: that location’s jobs and jobs of every location. Archived jobs only with `includeArchived=true`. Only jobs at the locations the request reaches, and jobs of every location.',
        },
      },
    )
    .post(
      '/jobs',
      ({ db, actor, locations, body, set }) => {
        set.status = 201
        return createJob(db, actor, locations, body)
      },
      {
        permission: 'labor:write',
        body: CreateJob,
        response: { 201: LaborJob },
        detail: {
          summary: 'Create a job',
          description: `Defaults: \`hourly\`, USD, not tipped, of every location (\`locationId\` null). A job of every location applies at every location, so only a request that reaches every location may create one (403 otherwise: give \`locationId\`). A duplicate \`code\` is 409. ${accessNote}`,
        },
      },
    )
    .get('/jobs/:id', ({ db, tenant, params }) => getJob(db, tenant.id, params.id), {
      permission: 'labor:read',
      locatedBy: jobLocated,
      params: IdParams,
      response: LaborJob,
      detail: { summary: 'Get a job' },
    })
    .put(
      '/jobs/:id',
      ({ db, actor, locations, params, body }) => updateJob(db, actor, locations, params.id, body),
      {
        permission: 'labor:write',
        locatedBy: jobLocated,
        params: IdParams,
        body: UpdateJob,
        response: LaborJob,
        detail: {
          summary: 'Update a job',
          description: `Partial; an empty body changes nothing. \`archivedAt\` (any date-time) archives the job now, null restores it; archived jobs grant nothing and cannot be clocked in with. Moving a job to one location while it is assigned elsewhere is 409. A job at a location the request does not reach is 404; a job of every location (or making one) needs a request that reaches every location (403). ${accessNote}`,
        },
      },
    )
    .get(
      '/job-assignments',
      ({ db, tenant, query, locations }) =>
        listAssignments(db, tenant.id, { ...query, ...pageOf(query) }, locations),
      {
        permission: 'labor:read',
        query: AssignmentListQuery,
        response: AssignmentList,
        detail: {
          summary: 'List job assignments',
          description:
            '`activeAt`: only assignments in force at that instant (startsAt ≤ activeAt < endsAt). Only assignments at the locations the request reaches (`total` too).',
        },
      },
    )
    .post(
      '/job-assignments',
      ({ db, actor, locations, body, set }) => {
        set.status = 201
        return createAssignment(db, actor, locations, body)
      },
      {
        permission: 'labor:write',
        body: CreateAssignment,
        response: { 201: JobAssignment },
        detail: {
          summary: 'Assign a job',
          description:
            'Gives a staff user a job at a location (the job’s own location, else `locationId`, else x-location-id) from `startsAt` (default now) until `endsAt` (open-ended when absent). `primaryJob` demotes their other primary. The caller must be able to manage the staff user’s roles and hold the job’s grants there (403). A job at a location the request does not reach is 404; an assignment at such a location is 403.',
        },
      },
    )
    .get('/job-assignments/:id', ({ db, tenant, params }) => getAssignment(db, tenant.id, params.id), {
      permission: 'labor:read',
      locatedBy: assignmentLocated,
      params: IdParams,
      response: JobAssignment,
      detail: { summary: 'Get a job assignment' },
    })
    .put(
      '/job-assignments/:id',
      ({ db, actor, params, body }) => updateAssignment(db, actor, params.id, body),
      {
        permission: 'labor:write',
        locatedBy: assignmentLocated,
        params: IdParams,
        body: UpdateAssignment,
        response: JobAssignment,
        detail: {
          summary: 'Update a job assignment',
          description: 'Partial. Set `endsAt` to end it (the job’s access ends with it).',
        },
      },
    )
