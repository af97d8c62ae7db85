// Cash drawers under the location rule: a caller bound to location A (a manager whose only role is
// there, or a `vps_` passcode session there) sees and touches only A's drawers and their entries.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { boundCallers } from '../../bound-callers'
import { countRows, createTestApp, type TestApp } from '../../harness'
import { ok, openDrawer } from './helpers'

let t: TestApp
let locationB: string
let atA: any
let atB: any

beforeEach(async () => {
  t = await createTestApp()
  locationB = t.addLocation(t.tenant, { name: 'B', timezone: 'UTC' }).id
  atA = await openDrawer(t, { label: 'Front' })
  atB = await openDrawer(t, { label: 'Patio', locationId: locationB })
})
afterEach(() => t.close())

const tables = ['cash_drawers', 'cash_drawer_entries', 'audit_entries', 'outbox_events']
const written = () => tables.map((table) => countRows(t.tenant.db, table))

const callersAtA = boundCallers.map(
  ([name, bind]) => [name, () => bind(t, t.tenant, t.tenant.locationId)] as const,
)

describe.each(callersAtA)('%s', (_name, callerAtA) => {
  test("uses A's drawers: read, entries, assign, pause and close", async () => {
    const as = await callerAtA()
    expect((await ok(t.request('GET', `/cash-management/drawers/${atA.id}`, { as }))).drawer.id).toBe(atA.id)
    const entry = await ok(
      t.request('POST', `/cash-management/drawers/${atA.id}/entries`, {
        as,
        body: { entryType: 'cash_in', amount: 500 },
      }),
      201,
    )
    expect(entry.drawer.expectedBalance).toBe(10_500)
    await ok(
      t.request('POST', `/cash-management/drawers/${atA.id}/assign`, {
        as,
        body: { staffUserId: t.tenant.staff.id },
      }),
    )
    const paused = await ok(t.request('POST', `/cash-management/drawers/${atA.id}/pause`, { as, body: {} }))
    expect(paused.replacementDrawer.locationId).toBe(t.tenant.locationId)
    await ok(
      t.request('POST', `/cash-management/drawers/${atA.id}/close`, { as, body: { actualBalance: 10_500 } }),
    )
    const opened = await ok(
      t.request('POST', '/cash-management/drawers', {
        as,
        body: { locationId: t.tenant.locationId, label: 'Bar', startingBalance: 0 },
      }),
      201,
    )
    expect(opened.locationId).toBe(t.tenant.locationId)
  })

  test("B's drawer is 404 on every route and nothing is written", async () => {
    const as = await callerAtA()
    const before = written()
    for (const [method, path, body] of [
      ['GET', `/cash-management/drawers/${atB.id}`, undefined],
      ['POST', `/cash-management/drawers/${atB.id}/entries`, { entryType: 'cash_in', amount: 100 }],
      ['POST', `/cash-management/drawers/${atB.id}/assign`, {}],
      ['POST', `/cash-management/drawers/${atB.id}/pause`, {}],
      ['POST', `/cash-management/drawers/${atB.id}/close`, { actualBalance: 0 }],
    ] as const) {
      const res = await t.request(method, path, { as, body })
      expect({ path, status: res.status, code: res.body.code }).toEqual({
        path,
        status: 404,
        code: 'not_found',
      })
    }
    expect(written()).toEqual(before)
    const untouched = await ok(t.request('GET', `/cash-management/drawers/${atB.id}`))
    expect(untouched.drawer).toEqual(atB)
  })

  test("the list holds only A's drawers and its total counts only them", async () => {
    const as = await callerAtA()
    const list = await ok(t.request('GET', '/cash-management/drawers', { as }))
    expect(list.drawers.map((d: any) => d.id)).toEqual([atA.id])
    expect(list.page.total).toBe(1)
    const everyone = await ok(t.request('GET', '/cash-management/drawers'))
    expect(everyone.page.total).toBe(2)
    const namingB = await t.request('GET', `/cash-management/drawers?locationId=${locationB}`, { as })
    expect(namingB.status).toBe(403)
  })

  test('opening a drawer at B is 403 and writes nothing', async () => {
    const as = await callerAtA()
    const before = written()
    const res = await t.request('POST', '/cash-management/drawers', {
      as,
      body: { locationId: locationB, label: 'Sneaky', startingBalance: 0 },
    })
    expect(res.status).toBe(403)
    expect(res.body.code).toBe('forbidden')
    expect(written()).toEqual(before)
  })
})

describe('staff named on a drawer work at its location', () => {
  test('assigning, opening for or tipping out someone who works only at B is 400 and writes nothing', async () => {
    const onlyAtB = await t.addStaff(t.tenant, { role: 'staff', locationId: locationB })
    const before = written()
    for (const [path, body] of [
      [`/cash-management/drawers/${atA.id}/assign`, { staffUserId: onlyAtB.id }],
      [
        '/cash-management/drawers',
        {
          locationId: t.tenant.locationId,
          label: 'Bar',
          startingBalance: 0,
          assignedStaffUserId: onlyAtB.id,
        },
      ],
      [
        `/cash-management/drawers/${atA.id}/entries`,
        { entryType: 'tip_out', amount: 100, relatedStaffUserId: onlyAtB.id },
      ],
    ] as const) {
      const res = await t.request('POST', path, { body })
      expect({ path, status: res.status }).toEqual({ path, status: 400 })
      expect(res.body.errors[0].message).toBe(`no active staff user ${onlyAtB.id} at the drawer's location`)
    }
    expect(written()).toEqual(before)
    // At B's own drawer they are who it is for.
    const assigned = await ok(
      t.request('POST', `/cash-management/drawers/${atB.id}/assign`, { body: { staffUserId: onlyAtB.id } }),
    )
    expect(assigned.assignedStaffUserId).toBe(onlyAtB.id)
  })
})
