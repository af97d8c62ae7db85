// Shifts: clock-in rules, breaks, clock out, employees' activeShift, one open shift per staff user
// under concurrent requests and under several connections.
import { Database } from 'bun:sqlite'
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import fc from 'fast-check'
import { shiftFigures } from '../../../src/modules/labor/shifts'
import { countRows, createTestApp, type TestApp } from '../../harness'
import { arbitraryShift, jobFor, ok, roundHalfUp } from './helpers'

let t: TestApp
beforeEach(async () => {
  t = await createTestApp()
})
afterEach(() => t.close())

const at = () => ({ 'x-location-id': t.tenant.locationId })

describe('clock in, breaks, clock out', () => {
  test('a full shift: the employee shows the open shift, breaks pause paid time', async () => {
    const staff = t.tenant.staff
    const { job } = await jobFor(t, staff, { title: 'Server', defaultWageAmount: 1800 }, { primaryJob: true })
    const clockIn = await t.request('POST', '/labor/shifts/clock-in', {
      as: staff,
      headers: at(),
      body: { laborJobId: job.id },
    })
    expect(clockIn.status).toBe(201)
    const shift = clockIn.body
    expect(shift).toMatchObject({
      staffUserId: staff.id,
      locationId: t.tenant.locationId,
      laborJobId: job.id,
      jobRole: 'Server',
      payRateCents: 1800,
      status: 'active',
      clockOutAt: null,
      breaks: [],
    })
    expect(shift.businessDate).toMatch(/^\d{4}-\d{2}-\d{2}$/)

    const employee = await ok(t, 'GET', `/labor/employees/${staff.id}`)
    expect(employee.activeShift).toEqual({
      id: shift.id,
      locationId: t.tenant.locationId,
      jobRole: 'Server',
      status: 'active',
      clockInAt: shift.clockInAt,
    })
    expect(employee.primaryJob).toMatchObject({ laborJobId: job.id, title: 'Server', basePayRateCents: 1800 })

    const onBreak = await ok(t, 'POST', `/labor/shifts/${shift.id}/breaks`, {}, staff)
    expect(onBreak.status).toBe('on_break')
    expect(
      (await t.request('POST', `/labor/shifts/${shift.id}/breaks`, { as: staff, body: {} })).status,
    ).toBe(409)
    const back = await ok(t, 'POST', `/labor/shifts/${shift.id}/breaks/end`, undefined, staff)
    expect(back.status).toBe('active')
    expect(back.breaks).toHaveLength(1)
    expect(back.breaks[0].endedAt).not.toBeNull()
    expect((await t.request('POST', `/labor/shifts/${shift.id}/breaks/end`, { as: staff })).status).toBe(409)
    await ok(t, 'POST', `/labor/shifts/${shift.id}/breaks`, { paid: true }, staff)
    const out = await ok(t, 'POST', `/labor/shifts/${shift.id}/clock-out`, undefined, staff)
    expect(out.status).toBe('completed')
    expect(out.clockOutAt).not.toBeNull()
    expect(out.breaks[1]).toMatchObject({ paid: true, endedAt: out.clockOutAt })
    expect((await t.request('POST', `/labor/shifts/${shift.id}/clock-out`, { as: staff })).status).toBe(409)
    expect((await ok(t, 'GET', `/labor/employees/${staff.id}`)).activeShift).toBeNull()

    const list = await ok(t, 'GET', `/labor/shifts?staffUserId=${staff.id}&status=completed`)
    expect(list.shifts.map((s: any) => s.id)).toEqual([shift.id])
    const actions = t.tenant.db.$client
      .query('SELECT action FROM audit_entries WHERE entity_id = ? ORDER BY rowid')
      .all(shift.id) as { action: string }[]
    expect(actions.map((a) => a.action)).toEqual([
      'labor.shift.clock_in',
      'labor.shift.break_start',
      'labor.shift.break_end',
      'labor.shift.break_start',
      'labor.shift.clock_out',
    ])
    const events = t.tenant.db.$client
      .query('SELECT action FROM outbox_events WHERE aggregate_id = ? ORDER BY seq')
      .all(shift.id) as { action: string }[]
    expect(events.map((e) => e.action)).toEqual([
      'clock_in',
      'break_start',
      'break_end',
      'break_start',
      'clock_out',
    ])
  })

  test('clock-in rules: job held there, one open shift, active staff and employment', async () => {
    const staff = t.tenant.staff
    const other = await ok(t, 'POST', '/labor/jobs', { title: 'Cook' })
    const notHeld = await t.request('POST', '/labor/shifts/clock-in', {
      as: staff,
      headers: at(),
      body: { laborJobId: other.id },
    })
    expect(notHeld.status).toBe(409)
    const { job } = await jobFor(t, staff)
    const noLocation = await t.request('POST', '/labor/shifts/clock-in', {
      as: staff,
      body: { laborJobId: job.id },
    })
    expect(noLocation.status).toBe(400)
    const first = await ok(
      t,
      'POST',
      '/labor/shifts/clock-in',
      { laborJobId: job.id, locationId: t.tenant.locationId },
      staff,
    )
    const again = await t.request('POST', '/labor/shifts/clock-in', {
      as: staff,
      headers: at(),
      body: { laborJobId: job.id },
    })
    expect(again.status).toBe(409)
    expect(again.body.activeShift.id).toBe(first.id)
    expect(countRows(t.tenant.db, 'labor_shifts')).toBe(1)

    // A terminated employee does not clock in.
    const readOnly = t.tenant.readOnly
    const held = await jobFor(t, readOnly, { title: 'Host' })
    await ok(t, 'PUT', `/labor/employees/${readOnly.id}/profile`, { employmentStatus: 'terminated' })
    const terminated = await t.request('POST', '/labor/shifts/clock-in', {
      headers: at(),
      body: { laborJobId: held.job.id, staffUserId: readOnly.id },
    })
    expect(terminated.status).toBe(409)
    expect(terminated.body.employmentStatus).toBe('terminated')
  })

  test('clocking someone else needs labor:write; read-only staff cannot clock at all', async () => {
    const { job } = await jobFor(t, t.tenant.staff)
    const colleague = await t.addStaff(t.tenant, { role: 'staff' })
    await jobFor(t, colleague, { title: 'Runner' })
    const forOther = await t.request('POST', '/labor/shifts/clock-in', {
      as: colleague,
      headers: at(),
      body: { laborJobId: job.id, staffUserId: t.tenant.staff.id },
    })
    expect(forOther.status).toBe(403)
    expect(forOther.body.requiredPermission).toBe('labor:write')
    const byManager = await t.request('POST', '/labor/shifts/clock-in', {
      as: t.tenant.manager,
      headers: at(),
      body: { laborJobId: job.id, staffUserId: t.tenant.staff.id },
    })
    expect(byManager.status).toBe(201)
    const outByColleague = await t.request('POST', `/labor/shifts/${byManager.body.id}/clock-out`, {
      as: colleague,
    })
    expect(outByColleague.status).toBe(403)
    const byReadOnly = await t.request('POST', '/labor/shifts/clock-in', {
      as: t.tenant.readOnly,
      headers: at(),
      body: { laborJobId: job.id },
    })
    expect(byReadOnly.status).toBe(403)
  })

  test('validation and tenant isolation', async () => {
    const { job } = await jobFor(t, t.tenant.staff)
    for (const body of [{}, { laborJobId: job.id, extra: true }, { laborJobId: 5 }]) {
      const res = await t.request('POST', '/labor/shifts/clock-in', {
        as: t.tenant.staff,
        headers: at(),
        body,
      })
      expect(res.status).toBe(400)
    }
    const bad = await t.request('POST', '/labor/shifts/clock-in', {
      as: t.tenant.staff,
      body: { laborJobId: job.id, locationId: 'nowhere' },
    })
    expect(bad.status).toBe(400)
    expect(countRows(t.tenant.db, 'labor_shifts')).toBe(0)
    const shift = await ok(
      t,
      'POST',
      '/labor/shifts/clock-in',
      { laborJobId: job.id, locationId: t.tenant.locationId },
      t.tenant.staff,
    )
    const other = await t.addTenant('other')
    expect(
      (await t.request('GET', `/labor/shifts/${shift.id}`, { tenant: other, as: other.owner })).status,
    ).toBe(404)
    const out = await t.request('POST', `/labor/shifts/${shift.id}/clock-out`, {
      tenant: other,
      as: other.owner,
    })
    expect(out.status).toBe(404)
    expect(
      (await t.request('GET', `/labor/employees/${t.tenant.staff.id}`, { tenant: other, as: other.owner }))
        .status,
    ).toBe(404)
  })
})

describe('one open shift per staff user', () => {
  test('concurrent clock-ins: exactly one succeeds, the rest are 409', async () => {
    const { job } = await jobFor(t, t.tenant.staff)
    const results = await Promise.all(
      Array.from({ length: 8 }, () =>
        t.request('POST', '/labor/shifts/clock-in', {
          as: t.tenant.staff,
          headers: at(),
          body: { laborJobId: job.id },
        }),
      ),
    )
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409, 409, 409])
    expect(countRows(t.tenant.db, 'labor_shifts')).toBe(1)
  })

  test('several processes clocking the same staff user in at once: exactly one shift', async () => {
    const { job } = await jobFor(t, t.tenant.staff)
    const path = t.tenant.db.$client.filename
    const worker = join(import.meta.dir, 'clock-worker.ts')
    const args = [path, t.tenant.id, t.tenant.staff.id, job.id, t.tenant.locationId]
    const workers = [1, 2, 3].map(() =>
      Bun.spawn([process.execPath, worker, ...args], { stdout: 'pipe', stderr: 'pipe' }),
    )
    const here = await Promise.all(
      [1, 2].map(() =>
        t.request('POST', '/labor/shifts/clock-in', {
          as: t.tenant.staff,
          headers: at(),
          body: { laborJobId: job.id },
        }),
      ),
    )
    const outcomes = await Promise.all(workers.map((w) => new Response(w.stdout).text()))
    const all = [...outcomes, ...here.map((r) => (r.status === 201 ? 'created' : r.body.code))]
    expect(all.sort()).toEqual(['conflict', 'conflict', 'conflict', 'conflict', 'created'])
    expect(countRows(t.tenant.db, 'labor_shifts')).toBe(1)
  })

  test('the partial unique index refuses a second open shift from another connection', async () => {
    const { job } = await jobFor(t, t.tenant.staff)
    await ok(
      t,
      'POST',
      '/labor/shifts/clock-in',
      { laborJobId: job.id, locationId: t.tenant.locationId },
      t.tenant.staff,
    )
    const file = t.tenant.db.$client.filename
    const other = new Database(file)
    try {
      const now = new Date().toISOString()
      expect(() =>
        other
          .query(
            `INSERT INTO labor_shifts (id, staff_user_id, location_id, labor_job_id, job_role, pay_rate_cents, status,
             business_date, clock_in_at, created_at, updated_at) VALUES ('x', ?, ?, ?, 'Server', 0, 'active', '2025-01-01', ?, ?, ?)`,
          )
          .run(t.tenant.staff.id, t.tenant.locationId, job.id, now, now, now),
      ).toThrow(/UNIQUE/)
    } finally {
      other.close()
    }
  })
})

describe('worked time and pay', () => {
  const instant = (time: string) => `2025-03-01T${time}Z`
  const breakAt = (paid: boolean, from: string, to: string | null) => ({
    id: from,
    shiftId: 's',
    paid,
    startedAt: instant(from),
    endedAt: to === null ? null : instant(to),
    createdAt: instant(from),
  })
  const examples = [
    {
      name: '1.613 s at 3,600,000 c/h (10.00 a second) is 1 whole second: 1000, not 1613',
      clockIn: '17:00:00.000',
      clockOut: '17:00:01.613',
      payRateCents: 3_600_000,
      breaks: [],
      figures: { breakSeconds: 0, paidSeconds: 1, payCents: 1000 },
    },
    {
      name: 'unpaid breaks are not worked time; paid breaks are: 6 h at 18.25/h',
      clockIn: '17:00:00.000',
      clockOut: '23:30:00.000',
      payRateCents: 1825,
      breaks: [breakAt(false, '20:00:00.000', '20:30:00.000'), breakAt(true, '21:00:00.000', '21:10:00.000')],
      figures: { breakSeconds: 1800, paidSeconds: 21_600, payCents: 10_950 },
    },
    {
      // 3599.2 s − 599.4 s = 2999.8 s. Truncating each timestamp, or the span and the break apart,
      // would make it 3000.
      name: 'fractions of a second are truncated once per shift, after unpaid breaks are taken off',
      clockIn: '17:00:00.900',
      clockOut: '18:00:00.100',
      payRateCents: 3600,
      breaks: [breakAt(false, '17:30:00.600', '17:40:00.000')],
      figures: { breakSeconds: 599, paidSeconds: 2999, payCents: 2999 },
    },
    {
      name: 'a second short by a millisecond is not paid',
      clockIn: '17:00:00.001',
      clockOut: '17:00:01.000',
      payRateCents: 3_600_000,
      breaks: [],
      figures: { breakSeconds: 0, paidSeconds: 0, payCents: 0 },
    },
    {
      name: 'half a cent rounds up: 180 s at 10.10/h = 50.5',
      clockIn: '17:00:00.000',
      clockOut: '17:03:00.999',
      payRateCents: 1010,
      breaks: [],
      figures: { breakSeconds: 0, paidSeconds: 180, payCents: 51 },
    },
    {
      name: 'half a cent rounds up: 1 s at 18.00/h = 0.5',
      clockIn: '17:00:00.000',
      clockOut: '17:00:01.000',
      payRateCents: 1800,
      breaks: [],
      figures: { breakSeconds: 0, paidSeconds: 1, payCents: 1 },
    },
    {
      name: 'less than half a cent rounds down: 1 s at 17.99/h = 0.4997',
      clockIn: '17:00:00.000',
      clockOut: '17:00:01.000',
      payRateCents: 1799,
      breaks: [],
      figures: { breakSeconds: 0, paidSeconds: 1, payCents: 0 },
    },
    {
      name: '1200 s at 10.00/h = 333.33 rounds down',
      clockIn: '17:00:00.000',
      clockOut: '17:20:00.000',
      payRateCents: 1000,
      breaks: [],
      figures: { breakSeconds: 0, paidSeconds: 1200, payCents: 333 },
    },
    {
      // Up to 18:00:00.000: a break of 1799.5 s still running, 1800.5 s worked.
      name: 'an open shift and its open break count up to now',
      clockIn: '17:00:00.000',
      clockOut: null,
      payRateCents: 1800,
      breaks: [breakAt(false, '17:30:00.500', null)],
      figures: { breakSeconds: 1799, paidSeconds: 1800, payCents: 900 },
    },
  ]
  for (const example of examples) {
    test(example.name, () => {
      const shift = {
        clockInAt: instant(example.clockIn),
        clockOutAt: example.clockOut === null ? null : instant(example.clockOut),
        payRateCents: example.payRateCents,
      }
      expect(shiftFigures(shift, example.breaks, Date.parse(instant('18:00:00.000')))).toEqual(
        example.figures,
      )
    })
  }

  test('property: whole seconds truncated once per shift, payCents = round-half-up(paidSeconds × rate / 3600)', () => {
    fc.assert(
      fc.property(arbitraryShift, ({ shift, breaks, until, spanMs, unpaidMs }) => {
        const figures = shiftFigures(shift, breaks, until)
        expect(figures.paidSeconds).toBe(Math.floor((spanMs - unpaidMs) / 1000))
        expect(figures.breakSeconds).toBe(Math.floor(unpaidMs / 1000))
        expect(BigInt(figures.payCents)).toBe(
          roundHalfUp(BigInt(figures.paidSeconds) * BigInt(shift.payRateCents), 3600n),
        )
      }),
      { numRuns: 2000 },
    )
  })

  test('the API reports pay computed from the paidSeconds it reports', async () => {
    const staff = t.tenant.staff
    const { job } = await jobFor(t, staff, { title: 'Sommelier', defaultWageAmount: 3_600_000 })
    const shift = await ok(
      t,
      'POST',
      '/labor/shifts/clock-in',
      { laborJobId: job.id, locationId: t.tenant.locationId },
      staff,
    )
    await ok(t, 'POST', `/labor/shifts/${shift.id}/clock-out`, undefined, staff)
    t.tenant.db.$client
      .query('UPDATE labor_shifts SET clock_in_at = ?, clock_out_at = ? WHERE id = ?')
      .run('2025-03-01T17:00:00.000Z', '2025-03-01T17:00:01.613Z', shift.id)
    const figures = { payRateCents: 3_600_000, breakSeconds: 0, paidSeconds: 1, payCents: 1000 }
    expect(await ok(t, 'GET', `/labor/shifts/${shift.id}`)).toMatchObject(figures)
    const listed = await ok(t, 'GET', `/labor/shifts?staffUserId=${staff.id}`)
    expect(listed.shifts).toEqual([expect.objectContaining(figures)])
  })

  test('the OpenAPI document states the rule', async () => {
    const spec = (await t.request('GET', '/openapi.json', { as: null })).body
    const ref = spec.paths['/labor/shifts/{id}'].get.responses['200'].content['application/json'].schema.$ref
    const shift = spec.components.schemas[ref.split('/').at(-1)]
    expect(shift.properties.payCents.description).toContain(
      'paidSeconds × payRateCents / 3600, rounded half-up',
    )
    expect(shift.properties.paidSeconds.description).toContain('truncated once per shift')
    expect(shift.properties.payRateCents.description).toContain('Cents an hour')
  })
})
