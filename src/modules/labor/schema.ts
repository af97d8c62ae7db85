import { sql } from 'drizzle-orm'
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { locations } from '../locations/schema'
import { staffUsers } from '../staff/schema'

export const employmentStatuses = ['active', 'on_leave', 'terminated'] as const
export const payTypes = ['hourly', 'salary', 'none'] as const
export const compensationTypes = ['hourly', 'salary', 'none'] as const
export const shiftStatuses = ['active', 'on_break', 'completed'] as const

/** The employment profile of a staff user: an employee is a staff user plus this row. */
export const laborProfiles = sqliteTable('labor_profiles', {
  staffUserId: text('staff_user_id')
    .primaryKey()
    .references(() => staffUsers.id, { onDelete: 'cascade' }),
  employeeNumber: text('employee_number'),
  externalPayrollId: text('external_payroll_id'),
  preferredName: text('preferred_name'),
  hireDate: text('hire_date'),
  employmentStatus: text('employment_status', { enum: employmentStatuses }).notNull(),
  payType: text('pay_type', { enum: payTypes }).notNull(),
  basePayRateCents: integer('base_pay_rate_cents'),
  overtimeEligible: integer('overtime_eligible', { mode: 'boolean' }).notNull(),
  isTippedEmployee: integer('is_tipped_employee', { mode: 'boolean' }).notNull(),
  declaresCashTips: integer('declares_cash_tips', { mode: 'boolean' }).notNull(),
  participatesInTipPool: integer('participates_in_tip_pool', { mode: 'boolean' }).notNull(),
  primaryLocationId: text('primary_location_id').references(() => locations.id),
  metadata: text('metadata', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
  createdAt: text('created_at').notNull(),
  updatedAt: text('updated_at').notNull(),
})

/** A job (role on the floor) with its pay defaults and the access it adds or removes. */
export const laborJobs = sqliteTable(
  'labor_jobs',
  {
    id: text('id').primaryKey(),
    /** null: the job exists at every location. */
    locationId: text('location_id').references(() => locations.id),
    externalId: text('external_id'),
    code: text('code'),
    title: text('title').notNull(),
    tipped: integer('tipped', { mode: 'boolean' }).notNull(),
    compensationType: text('compensation_type', { enum: compensationTypes }).notNull(),
    /** Cents per hour (hourly) or per pay period (salary). */
    defaultWageAmount: integer('default_wage_amount'),
    payCurrency: text('pay_currency').notNull(),
    excludeFromLaborSummary: integer('exclude_from_labor_summary', { mode: 'boolean' }).notNull(),
    grants: text('grants', { mode: 'json' }).$type<string[]>().notNull(),
    denies: text('denies', { mode: 'json' }).$type<string[]>().notNull(),
    payMetadata: text('pay_metadata', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    jobMetadata: text('job_metadata', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    archivedAt: text('archived_at'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (table) => [
    uniqueIndex('labor_jobs_code_unique').on(sql`lower(${table.code})`),
    index('labor_jobs_location').on(table.locationId),
  ],
)

/** A staff user holding a job at a location, from `startsAt` until `endsAt` (open-ended when null). */
export const laborJobAssignments = sqliteTable(
  'labor_job_assignments',
  {
    id: text('id').primaryKey(),
    laborJobId: text('labor_job_id')
      .notNull()
      .references(() => laborJobs.id),
    staffUserId: text('staff_user_id')
      .notNull()
      .references(() => staffUsers.id, { onDelete: 'cascade' }),
    locationId: text('location_id')
      .notNull()
      .references(() => locations.id),
    primaryJob: integer('primary_job', { mode: 'boolean' }).notNull(),
    /** Overrides the job's default wage for this person; null: the job's default. */
    basePayRateCents: integer('base_pay_rate_cents'),
    startsAt: text('starts_at').notNull(),
    endsAt: text('ends_at'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (table) => [
    index('labor_job_assignments_staff').on(table.staffUserId, table.locationId),
    index('labor_job_assignments_job').on(table.laborJobId),
  ],
)

/** A time entry: clocked in with a job at a location; one open (not clocked out) per staff user. */
export const laborShifts = sqliteTable(
  'labor_shifts',
  {
    id: text('id').primaryKey(),
    staffUserId: text('staff_user_id')
      .notNull()
      .references(() => staffUsers.id, { onDelete: 'cascade' }),
    locationId: text('location_id')
      .notNull()
      .references(() => locations.id),
    laborJobId: text('labor_job_id')
      .notNull()
      .references(() => laborJobs.id),
    /** The job's title when clocked in. */
    jobRole: text('job_role').notNull(),
    /** Cents per hour when clocked in (assignment rate, else the job's default, else the profile's). */
    payRateCents: integer('pay_rate_cents').notNull(),
    status: text('status', { enum: shiftStatuses }).notNull(),
    /** The clock-in day in the location's time zone. */
    businessDate: text('business_date').notNull(),
    clockInAt: text('clock_in_at').notNull(),
    clockOutAt: text('clock_out_at'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (table) => [
    uniqueIndex('labor_shifts_one_open').on(table.staffUserId).where(sql`${table.clockOutAt} IS NULL`),
    index('labor_shifts_location_date').on(table.locationId, table.businessDate),
    index('labor_shifts_staff').on(table.staffUserId, table.clockInAt),
  ],
)

export const laborShiftBreaks = sqliteTable(
  'labor_shift_breaks',
  {
    id: text('id').primaryKey(),
    shiftId: text('shift_id')
      .notNull()
      .references(() => laborShifts.id, { onDelete: 'cascade' }),
    paid: integer('paid', { mode: 'boolean' }).notNull(),
    startedAt: text('started_at').notNull(),
    endedAt: text('ended_at'),
    createdAt: text('created_at').notNull(),
  },
  (table) => [index('labor_shift_breaks_shift').on(table.shiftId, table.startedAt)],
)

export type LaborProfileRow = typeof laborProfiles.$inferSelect
export type LaborJobRow = typeof laborJobs.$inferSelect
export type LaborJobAssignmentRow = typeof laborJobAssignments.$inferSelect
export type LaborShiftRow = typeof laborShifts.$inferSelect
export type LaborShiftBreakRow = typeof laborShiftBreaks.$inferSelect
