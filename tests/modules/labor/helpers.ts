import { expect } from 'bun:test'
import fc from 'fast-check'
import type { LaborShiftBreakRow } from '../../../src/modules/labor/schema'
import type { StaffFixture, TestApp } from '../../harness'

export async function ok(t: TestApp, method: string, path: string, body?: unknown, as?: StaffFixture) {
  const res = await t.request(method, path, { body, as })
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`)
  return res.body
}

/** A job (owner-created) and its assignment to a staff user at the tenant's location. */
export async function jobFor(
  t: TestApp,
  staff: StaffFixture,
  job: Record<string, unknown> = {},
  assignment: Record<string, unknown> = {},
) {
  const created = await ok(t, 'POST', '/labor/jobs', { title: 'Server', defaultWageAmount: 1800, ...job })
  const assigned = await ok(t, 'POST', '/labor/job-assignments', {
    staffUserId: staff.id,
    laborJobId: created.id,
    locationId: t.tenant.locationId,
    ...assignment,
  })
  expect(assigned.active).toBe(true)
  return { job: created, assignment: assigned }
}

const iso = (ms: number) => new Date(ms).toISOString()

/**
 * A shift's timestamps with millisecond noise everywhere: clock-in, a span of up to 16 hours (open
 * shifts run to `until`), non-overlapping paid and unpaid breaks inside it (an open shift's last
 * one possibly still open), and an hourly rate anywhere the API accepts. `unpaidMs` is worked out from the raw
 * milliseconds, not from the timestamps, so it can check the code that parses them.
 */
export const arbitraryShift = fc
  .record({
    clockIn: fc.integer({ min: Date.parse('2025-01-01T00:00:00Z'), max: Date.parse('2025-12-31T00:00:00Z') }),
    spanMs: fc.oneof(fc.integer({ min: 0, max: 5_000 }), fc.integer({ min: 0, max: 16 * 3_600_000 })),
    payRateCents: fc.oneof(
      fc.constantFrom(0, 1, 1800, 1825, 3_600_000),
      fc.integer({ min: 0, max: 100_000_000 }),
    ),
    cuts: fc.array(fc.integer({ min: 0, max: 1_000_000 }), { maxLength: 6 }),
    paid: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
    open: fc.boolean(),
    lastBreakOpen: fc.boolean(),
  })
  .map(({ clockIn, spanMs, payRateCents, cuts, paid, open, lastBreakOpen }) => {
    const end = clockIn + spanMs
    const points = cuts.map((c) => clockIn + Math.floor((spanMs * c) / 1_000_000)).sort((a, b) => a - b)
    const breaks: LaborShiftBreakRow[] = []
    let unpaidMs = 0
    for (let i = 0; i + 1 < points.length; i += 2) {
      const stillOpen = open && lastBreakOpen && i + 3 >= points.length
      const [startedAt, endedAt] = [points[i]!, stillOpen ? end : points[i + 1]!]
      const isPaid = paid[i / 2]!
      if (!isPaid) unpaidMs += endedAt - startedAt
      breaks.push({
        id: `b${i}`,
        shiftId: 's',
        paid: isPaid,
        startedAt: iso(startedAt),
        endedAt: stillOpen ? null : iso(endedAt),
        createdAt: iso(startedAt),
      })
    }
    return {
      shift: { clockInAt: iso(clockIn), clockOutAt: open ? null : iso(end), payRateCents },
      breaks,
      until: end,
      spanMs,
      unpaidMs,
    }
  })

/** round(a / b), halves up, for non-negative integers: the documented rule, spelled out apart from the code. */
export function roundHalfUp(a: bigint, b: bigint): bigint {
  const quotient = a / b
  return 2n * (a % b) >= b ? quotient + 1n : quotient
}
