import { t } from 'elysia'
import { calendarDate } from '../../platform/foundation/dates'
import { pageTotalSchema, pagingQuery } from '../../platform/foundation/paging'
import { bool, freeForm, money, oneOf } from '../../platform/foundation/types'
import { compensationTypes, employmentStatuses, payTypes, shiftStatuses } from './schema'

const id = t.String({ minLength: 1, maxLength: 200 })
const object = (description?: string) => freeForm({ description })
const optionalText = (max: number, description?: string) =>
  t.Optional(t.Nullable(t.String({ maxLength: max, description })))
const dateTime = t.String({ format: 'date-time' })

// ---- Jobs ----

const AccessPrimitives = t.Object(
  {
    grants: t.Array(t.String(), { description: 'Primitives a holder gains at the assignment’s location.' }),
    denies: t.Array(t.String(), {
      description: 'Primitives a holder loses there, whatever their roles say (denies win over grants).',
    }),
  },
  { description: 'Permission primitives from the catalogue (docs/permissions.md).' },
)

export const LaborJob = t.Object({
  id: t.String(),
  tenantId: t.String(),
  locationId: t.Nullable(t.String()),
  externalId: t.Nullable(t.String()),
  code: t.Nullable(t.String()),
  title: t.String(),
  tipped: t.Boolean(),
  compensationType: t.String(),
  defaultWageAmount: t.Nullable(t.Integer({ description: 'Cents per hour (hourly) or per pay period.' })),
  payCurrency: t.String(),
  excludeFromLaborSummary: t.Boolean(),
  accessPrimitives: AccessPrimitives,
  payMetadata: object(),
  jobMetadata: object(),
  archivedAt: t.Nullable(t.String()),
  createdAt: t.String(),
  updatedAt: t.String(),
})

const accessInput = t.Object(
  {
    grants: t.Optional(t.Array(t.String({ minLength: 1, maxLength: 100 }), { maxItems: 100 })),
    denies: t.Optional(t.Array(t.String({ minLength: 1, maxLength: 100 }), { maxItems: 100 })),
  },
  { additionalProperties: false },
)

const jobFields = {
  locationId: t.Optional(t.Nullable(id)),
  externalId: optionalText(200),
  code: optionalText(64, 'Short code, unique within the tenant (case-insensitive).'),
  tipped: t.Optional(bool()),
  compensationType: t.Optional(oneOf(compensationTypes)),
  defaultWageAmount: t.Optional(t.Nullable(money({ description: 'Integer cents.' }))),
  payCurrency: t.Optional(t.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 code; default USD.' })),
  excludeFromLaborSummary: t.Optional(bool()),
  accessPrimitives: t.Optional(accessInput),
  payMetadata: t.Optional(object()),
  jobMetadata: t.Optional(object()),
}

export const CreateJob = t.Object(
  { title: t.String({ minLength: 1, maxLength: 200 }), ...jobFields },
  { additionalProperties: false },
)

export const UpdateJob = t.Object(
  {
    title: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
    ...jobFields,
    archivedAt: t.Optional(
      t.Nullable(
        t.String({
          format: 'date-time',
          description: 'Set to archive the job (any time: now is used); null restores it.',
        }),
      ),
    ),
  },
  { additionalProperties: false, description: 'Partial update: only the fields sent change.' },
)

export const JobListQuery = t.Object({
  locationId: t.Optional(id),
  includeArchived: t.Optional(t.Boolean()),
  ...pagingQuery(100),
})

export const JobList = t.Object({ jobs: t.Array(LaborJob), page: pageTotalSchema })
export const IdParams = t.Object({ id })

export type CreateJobInput = typeof CreateJob.static
export type UpdateJobInput = typeof UpdateJob.static

// ---- Job assignments ----

export const JobAssignment = t.Object({
  id: t.String(),
  tenantId: t.String(),
  laborJobId: t.String(),
  staffUserId: t.String(),
  locationId: t.String(),
  primaryJob: t.Boolean(),
  basePayRateCents: t.Nullable(t.Integer()),
  startsAt: t.String(),
  endsAt: t.Nullable(t.String()),
  active: t.Boolean(),
  createdAt: t.String(),
  updatedAt: t.String(),
})

export const CreateAssignment = t.Object(
  {
    staffUserId: id,
    laborJobId: id,
    locationId: t.Optional(id),
    primaryJob: t.Optional(bool()),
    basePayRateCents: t.Optional(
      t.Nullable(money({ description: 'Integer cents per hour; null uses the job default.' })),
    ),
    startsAt: t.Optional(dateTime),
    endsAt: t.Optional(t.Nullable(dateTime)),
  },
  { additionalProperties: false },
)

export const UpdateAssignment = t.Object(
  {
    primaryJob: t.Optional(bool()),
    basePayRateCents: t.Optional(
      t.Nullable(money({ description: 'Integer cents per hour; null uses the job default.' })),
    ),
    startsAt: t.Optional(dateTime),
    endsAt: t.Optional(t.Nullable(dateTime)),
  },
  { additionalProperties: false, description: 'Partial update; `endsAt` ends the assignment.' },
)

export const AssignmentListQuery = t.Object({
  staffUserId: t.Optional(id),
  laborJobId: t.Optional(id),
  locationId: t.Optional(id),
  activeAt: t.Optional(t.String({ format: 'date-time', description: 'Only assignments in force then.' })),
  ...pagingQuery(200),
})

export const AssignmentList = t.Object({ assignments: t.Array(JobAssignment), page: pageTotalSchema })

export type CreateAssignmentInput = typeof CreateAssignment.static
export type UpdateAssignmentInput = typeof UpdateAssignment.static

// ---- Employees ----

export const Profile = t.Object({
  tenantId: t.String(),
  staffUserId: t.String(),
  employeeNumber: t.Nullable(t.String()),
  externalPayrollId: t.Nullable(t.String()),
  preferredName: t.Nullable(t.String()),
  hireDate: t.Nullable(t.String()),
  employmentStatus: t.String(),
  payType: t.String(),
  basePayRateCents: t.Nullable(t.Integer()),
  overtimeEligible: t.Boolean(),
  isTippedEmployee: t.Boolean(),
  declaresCashTips: t.Boolean(),
  participatesInTipPool: t.Boolean(),
  primaryLocationId: t.Nullable(t.String()),
  metadata: object(),
  createdAt: t.String(),
  updatedAt: t.String(),
})

export const StaffJob = t.Object({
  id: t.String({ description: 'The job assignment id.' }),
  tenantId: t.String(),
  staffUserId: t.String(),
  laborJobId: t.String(),
  locationId: t.String(),
  jobCode: t.Nullable(t.String()),
  title: t.String(),
  active: t.Boolean(),
  primaryJob: t.Boolean(),
  isTippedJob: t.Boolean(),
  payType: t.String(),
  basePayRateCents: t.Nullable(t.Integer()),
  overtimeEligible: t.Boolean(),
  metadata: object(),
  createdAt: t.String(),
  updatedAt: t.String(),
})

export const ActiveShift = t.Object({
  id: t.String(),
  locationId: t.String(),
  jobRole: t.String(),
  status: t.String(),
  clockInAt: t.String(),
})

export const LaborEmployee = t.Object({
  tenantId: t.String(),
  staffUserId: t.String(),
  email: t.String(),
  firstName: t.String(),
  lastName: t.String(),
  preferredName: t.Nullable(t.String()),
  displayName: t.String(),
  staffStatus: t.String(),
  profile: t.Nullable(Profile),
  jobs: t.Array(StaffJob),
  activeJobs: t.Array(StaffJob),
  primaryJob: t.Nullable(StaffJob),
  activeShift: t.Nullable(ActiveShift),
})

export const EmployeeListQuery = t.Object({
  locationId: t.Optional(id),
  search: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
  staffStatus: t.Optional(t.String({ minLength: 1, maxLength: 50 })),
  employmentStatus: t.Optional(t.String({ minLength: 1, maxLength: 50 })),
  ...pagingQuery(100),
})

export const EmployeeList = t.Object({ employees: t.Array(LaborEmployee), page: pageTotalSchema })
export const StaffParams = t.Object({ staffUserId: id })

export const PutProfile = t.Object(
  {
    employeeNumber: optionalText(64),
    externalPayrollId: optionalText(200),
    preferredName: optionalText(200),
    hireDate: t.Optional(t.Nullable(calendarDate())),
    employmentStatus: t.Optional(oneOf(employmentStatuses)),
    payType: t.Optional(oneOf(payTypes)),
    basePayRateCents: t.Optional(
      t.Nullable(money({ description: 'Integer cents per hour (hourly) or per pay period.' })),
    ),
    overtimeEligible: t.Optional(bool()),
    isTippedEmployee: t.Optional(bool()),
    declaresCashTips: t.Optional(bool()),
    participatesInTipPool: t.Optional(bool()),
    primaryLocationId: t.Optional(t.Nullable(id)),
    metadata: t.Optional(object()),
  },
  {
    additionalProperties: false,
    description: 'Creates the profile on first use (defaults: active, hourly, no rate), then partial.',
  },
)

export type PutProfileInput = typeof PutProfile.static

// ---- Shifts ----

export const ShiftBreak = t.Object({
  id: t.String(),
  paid: t.Boolean(),
  startedAt: t.String(),
  endedAt: t.Nullable(t.String()),
})

export const Shift = t.Object({
  id: t.String(),
  tenantId: t.String(),
  staffUserId: t.String(),
  locationId: t.String(),
  laborJobId: t.String(),
  jobRole: t.String(),
  payRateCents: t.Integer({ description: 'Cents an hour, fixed at clock-in (0 for jobs not paid hourly).' }),
  status: t.String(),
  businessDate: t.String(),
  clockInAt: t.String(),
  clockOutAt: t.Nullable(t.String()),
  breaks: t.Array(ShiftBreak),
  breakSeconds: t.Integer({
    description:
      'Unpaid break time so far, whole seconds: the unpaid breaks’ milliseconds (an open break runs to clock-out, else now) summed, then truncated.',
  }),
  paidSeconds: t.Integer({
    description:
      'Worked time so far, whole seconds: clockOutAt (else now) − clockInAt − the unpaid breaks, in milliseconds, truncated once per shift. Paid breaks are worked time.',
  }),
  payCents: t.Integer({
    description:
      'paidSeconds × payRateCents / 3600, rounded half-up to the cent: computed from the whole paidSeconds reported here, never from finer time.',
  }),
  createdAt: t.String(),
  updatedAt: t.String(),
})

export const ClockIn = t.Object(
  {
    laborJobId: id,
    staffUserId: t.Optional(id),
    locationId: t.Optional(id),
  },
  { additionalProperties: false },
)

export const StartBreak = t.Object({ paid: t.Optional(bool()) }, { additionalProperties: false })

export const ShiftListQuery = t.Object({
  staffUserId: t.Optional(id),
  locationId: t.Optional(id),
  status: t.Optional(t.Union(shiftStatuses.map((s) => t.Literal(s)))),
  from: t.Optional(t.String({ minLength: 10, maxLength: 10, description: 'First business date.' })),
  to: t.Optional(t.String({ minLength: 10, maxLength: 10, description: 'Last business date.' })),
  ...pagingQuery(200),
})

export const ShiftList = t.Object({ shifts: t.Array(Shift), page: pageTotalSchema })

export type ClockInInput = typeof ClockIn.static
