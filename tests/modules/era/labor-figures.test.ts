// ERA labor figures reconcile with the shifts API: every labor cost is the sum of the payCents the
// API reports for the shifts it covers, and minutes and hours come from their whole seconds.
import { expect, test } from 'bun:test'
import fc from 'fast-check'
import { laborReport, metricsReport, type ReportInput } from '../../../src/modules/era/compute'
import type { DatedShift } from '../../../src/modules/era/sources'
import { presentShift } from '../../../src/modules/labor/shifts'
import { arbitraryShift } from '../labor/helpers'

const locations = ['main', 'uptown']
const jobs = [
  { id: 'server', excluded: false },
  { id: 'manager', excluded: true },
]

/** A completed shift (what ERA reads) at one of the locations, on a business date of 1–9 March. */
const datedShift = fc
  .record({
    id: fc.uuid(),
    timed: arbitraryShift.filter((s) => s.shift.clockOutAt !== null),
    locationId: fc.constantFrom(...locations),
    staffUserId: fc.constantFrom('ann', 'bob', 'cy'),
    job: fc.constantFrom(...jobs),
    day: fc.integer({ min: 1, max: 9 }),
  })
  .map(
    ({ id, timed, locationId, staffUserId, job, day }): DatedShift => ({
      shift: {
        ...timed.shift,
        id,
        staffUserId,
        locationId,
        laborJobId: job.id,
        jobRole: job.id,
        status: 'completed',
        businessDate: `2025-03-0${day}`,
        createdAt: timed.shift.clockInAt,
        updatedAt: timed.shift.clockInAt,
      },
      breaks: timed.breaks,
      jobTitle: job.id,
      excludeFromLaborSummary: job.excluded,
    }),
  )

interface Row {
  restaurantGuid: string | null
  periodStart: string
  periodEnd: string
  laborJobId?: string
  staffUserId?: string
}

/** Whether a report row covers a shift: its restaurant (unless added together), period, job and employee. */
const covers = (row: Row, { shift }: DatedShift) =>
  (row.restaurantGuid === null || row.restaurantGuid === shift.locationId) &&
  row.periodStart <= shift.businessDate &&
  shift.businessDate <= row.periodEnd &&
  (row.laborJobId === undefined || row.laborJobId === shift.laborJobId) &&
  (row.staffUserId === undefined || row.staffUserId === shift.staffUserId)

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0)

/** Hours to the hundredth (36 s) of whole seconds, half-up: the nearest hundredth, halves above. */
function expectHoursOf(hours: number, seconds: number) {
  const offBy = Math.round(hours * 100) * 36 - seconds
  expect(offBy).toBeGreaterThan(-18)
  expect(offBy).toBeLessThanOrEqual(18)
}

test('property: ERA laborCost and hourlyJobTotalPay are sums of the covered shifts’ payCents', () => {
  fc.assert(
    fc.property(
      fc.array(datedShift, { maxLength: 12 }),
      fc.subarray(['RESTAURANT', 'JOB', 'EMPLOYEE']),
      fc.constantFrom('day', 'week', 'custom' as const),
      (shifts, groupBy, timeRange) => {
        const reported = shifts.map((s) => ({ dated: s, api: presentShift('acme', s.shift, s.breaks) }))
        const input: ReportInput = {
          params: {
            startBusinessDate: '2025-03-01',
            endBusinessDate: '2025-03-09',
            restaurantIds: locations,
            groupBy,
          },
          timeRange,
          restaurantIds: locations,
          orders: [],
          shifts,
        }

        const labor = laborReport(input)
        expect(sum(labor.map((r) => r.shiftsCount))).toBe(shifts.length)
        for (const row of labor) {
          const covered = reported.filter((s) => covers(row, s.dated)).map((s) => s.api)
          const paidSeconds = sum(covered.map((s) => s.paidSeconds))
          expect(row.shiftsCount).toBe(covered.length)
          expect(row.laborCost).toBe(sum(covered.map((s) => s.payCents)))
          expect(row.paidMinutes).toBe(Math.floor(paidSeconds / 60))
          expect(row.unpaidBreakMinutes).toBe(Math.floor(sum(covered.map((s) => s.breakSeconds)) / 60))
          expectHoursOf(row.regularHours, paidSeconds)
        }

        const metricsGroups = groupBy.filter((g) => g === 'RESTAURANT')
        const metrics = metricsReport({ ...input, params: { ...input.params, groupBy: metricsGroups } })
        for (const row of metrics) {
          const covered = reported
            .filter((s) => !s.dated.excludeFromLaborSummary && covers(row, s.dated))
            .map((s) => s.api)
          const paidSeconds = sum(covered.map((s) => s.paidSeconds))
          expect(row.hourlyJobTotalPay).toBe(sum(covered.map((s) => s.payCents)))
          expectHoursOf(row.hourlyJobTotalHours, paidSeconds)
        }
      },
    ),
    { numRuns: 500 },
  )
})
