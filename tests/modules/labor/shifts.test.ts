// Shifts: clock-in rules, breaks, clock out, employees' activeShift, one open shift per staff user
// under concurrent requests and under several connections.
import { Database } from 'bun:sqlite'
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { payFor, workedMs } from '../../../src/modules/labor/shifts'
import { countRows, createTestApp, type TestApp } from '../../harness'
import { jobFor, ok } from './helpers'

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
      'clock-in',
      'break-start',
      'break-end',
      'break-start',
      'clock-out',
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
  const shift = { clockInAt: '2025-03-01T17:00:00.000Z', clockOutAt: '2025-03-01T23:30:00.000Z' }
  test('unpaid breaks are not worked time; paid breaks are', () => {
    const breaks = [
      {
        id: 'a',
        shiftId: 's',
        paid: false,
        startedAt: '2025-03-01T20:00:00.000Z',
        endedAt: '2025-03-01T20:30:00.000Z',
        createdAt: '',
      },
      {
        id: 'b',
        shiftId: 's',
        paid: true,
        startedAt: '2025-03-01T21:00:00.000Z',
        endedAt: '2025-03-01T21:10:00.000Z',
        createdAt: '',
      },
    ]
    expect(workedMs(shift, breaks)).toBe(6 * 3_600_000)
    expect(payFor(6 * 3_600_000, 1825)).toBe(10_950)
  })
  test('pay rounds half-up to the cent', () => {
    // 20 minutes at 1000 c/h = 333.33 → 333; 3 minutes at 1010 c/h = 50.5 → 51.
    expect(payFor(20 * 60_000, 1000)).toBe(333)
    expect(payFor(3 * 60_000, 1010)).toBe(51)
  })
})
