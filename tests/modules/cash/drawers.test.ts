// Cash drawers over HTTP: open, list, read, assign and lock, pause with a replacement.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { countRows, createTestApp, type TestApp } from '../../harness'
import { addEntry, drawer, ok, openDrawer } from './helpers'

let t: TestApp
beforeEach(async () => {
  t = await createTestApp()
})
afterEach(() => t.close())

describe('open a drawer', () => {
  test('opens with the starting balance, defaults, an audit entry and an event', async () => {
    const d = await openDrawer(t, { startingBalance: 15_000 })
    expect(d).toMatchObject({
      locationId: t.tenant.locationId,
      label: 'Bar',
      baseLabel: 'Bar',
      sequenceNumber: 1,
      state: 'open',
      openingStaffUserId: t.tenant.owner.id,
      assignedStaffUserId: null,
      lockedToStaffUserId: null,
      startingBalance: 15_000,
      expectedBalance: 15_000,
      actualBalance: null,
      overShortAmount: null,
      closeoutMode: 'standard',
      closeoutWarningAmount: 500,
      closeoutRequireApprovalAmount: 2000,
      parentDrawerId: null,
      replacementDrawerId: null,
      payload: {},
      pausedAt: null,
      closedAt: null,
    })
    expect(d.openedAt).toBe(d.createdAt)
    const audit = t.tenant.db.$client
      .query("SELECT entity_id AS id FROM audit_entries WHERE action = 'cash_drawer.create'")
      .all()
    expect(audit).toEqual([{ id: d.id }])
    const events = t.tenant.db.$client
      .query("SELECT action FROM outbox_events WHERE object = 'cash_drawer'")
      .all()
    expect(events).toEqual([{ action: 'create' }])
  })

  test('numbers drawers per label (any case) per location', async () => {
    const first = await openDrawer(t, { label: 'Bar' })
    const second = await openDrawer(t, { label: 'bar' })
    const patio = await openDrawer(t, { label: 'Patio' })
    expect([first.sequenceNumber, second.sequenceNumber, patio.sequenceNumber]).toEqual([1, 2, 1])
    expect(second).toMatchObject({ label: 'bar #2', baseLabel: 'bar' })
    const other = await t.addTenant('other')
    expect((await openDrawer(t, { label: 'Bar' }, { tenant: other })).sequenceNumber).toBe(1)
  })

  test('closeout settings and assignment can be given; null turns a threshold off', async () => {
    const d = await openDrawer(t, {
      closeoutWarningAmount: 100,
      closeoutRequireApprovalAmount: null,
      assignedStaffUserId: t.tenant.staff.id,
      stateComment: 'evening',
      payload: { register: 2 },
    })
    expect(d).toMatchObject({
      closeoutWarningAmount: 100,
      closeoutRequireApprovalAmount: null,
      assignedStaffUserId: t.tenant.staff.id,
      stateComment: 'evening',
      payload: { register: 2 },
    })
  })

  test('validation errors write nothing', async () => {
    const location = t.tenant.locationId
    const audits = countRows(t.tenant.db, 'audit_entries')
    for (const body of [
      {},
      { locationId: location, label: 'Bar' },
      { locationId: location, startingBalance: 100 },
      { locationId: location, label: 'Bar', startingBalance: '100' },
      { locationId: location, label: 'Bar', startingBalance: 10.5 },
      { locationId: location, label: 'Bar', startingBalance: -1 },
      { locationId: location, label: '', startingBalance: 0 },
      { locationId: location, label: '   ', startingBalance: 0 },
      { locationId: location, label: 'Bar', startingBalance: 0, colour: 'red' },
      { locationId: location, label: 'Bar', startingBalance: 0, closeoutMode: 'yolo' },
      { locationId: 'nowhere', label: 'Bar', startingBalance: 0 },
      { locationId: location, label: 'Bar', startingBalance: 0, assignedStaffUserId: 'nobody' },
      { locationId: location, label: 'Bar', startingBalance: 0, closeoutWarningAmount: 3000 },
    ]) {
      const res = await t.request('POST', '/cash-management/drawers', { body })
      expect({ body, status: res.status, code: res.body.code }).toEqual({
        body,
        status: 400,
        code: 'validation_failed',
      })
    }
    expect(countRows(t.tenant.db, 'cash_drawers')).toBe(0)
    expect(countRows(t.tenant.db, 'audit_entries')).toBe(audits)
  })

  test('permissions: read_only cannot open; a user without roles cannot read', async () => {
    const res = await t.request('POST', '/cash-management/drawers', {
      as: t.tenant.readOnly,
      body: { locationId: t.tenant.locationId, label: 'Bar', startingBalance: 0 },
    })
    expect(res.status).toBe(403)
    expect(countRows(t.tenant.db, 'cash_drawers')).toBe(0)
    const d = await openDrawer(t, {}, { as: t.tenant.staff })
    const nobody = await t.addStaff(t.tenant)
    expect((await t.request('GET', '/cash-management/drawers', { as: nobody })).status).toBe(403)
    expect((await t.request('GET', `/cash-management/drawers/${d.id}`, { as: nobody })).status).toBe(403)
    expect(
      (await t.request('GET', `/cash-management/drawers/${d.id}`, { as: t.tenant.readOnly })).status,
    ).toBe(200)
    expect((await addEntry(t, d.id, { entryType: 'cash_in', amount: 5 }, t.tenant.readOnly)).status).toBe(403)
    expect(
      (await t.request('POST', `/cash-management/drawers/${d.id}/pause`, { as: t.tenant.readOnly, body: {} }))
        .status,
    ).toBe(403)
  })

  test("another tenant's drawer is 404 on every route", async () => {
    const other = await t.addTenant('other')
    const theirs = await openDrawer(t, {}, { tenant: other })
    for (const [method, path, body] of [
      ['GET', `/cash-management/drawers/${theirs.id}`, undefined],
      ['POST', `/cash-management/drawers/${theirs.id}/entries`, { entryType: 'cash_in', amount: 1 }],
      ['POST', `/cash-management/drawers/${theirs.id}/assign`, {}],
      ['POST', `/cash-management/drawers/${theirs.id}/pause`, {}],
      ['POST', `/cash-management/drawers/${theirs.id}/close`, { actualBalance: 0 }],
    ] as const) {
      const res = await t.request(method, path, { body })
      expect({ path, status: res.status }).toEqual({ path, status: 404 })
    }
    const list = await ok(t.request('GET', '/cash-management/drawers'))
    expect(list.drawers).toEqual([])
    expect(countRows(other.db, 'cash_drawer_entries')).toBe(0)
  })
})

describe('list and read', () => {
  test('filters by location, state and assigned staff user; total counts every match', async () => {
    const a = await openDrawer(t, { label: 'A', assignedStaffUserId: t.tenant.staff.id })
    const b = await openDrawer(t, { label: 'B' })
    await ok(t.request('POST', `/cash-management/drawers/${b.id}/pause`, { body: {} }))
    const all = await ok(t.request('GET', '/cash-management/drawers?limit=2'))
    expect(all.page).toEqual({ total: 3, page: 1, limit: 2 })
    expect(all.drawers).toHaveLength(2)
    const open = await ok(t.request('GET', '/cash-management/drawers?state=open'))
    expect(open.drawers.map((d: any) => d.label).sort()).toEqual(['A', 'B #2'])
    const paused = await ok(t.request('GET', '/cash-management/drawers?state=paused'))
    expect(paused.drawers.map((d: any) => d.id)).toEqual([b.id])
    const mine = await ok(
      t.request('GET', `/cash-management/drawers?assignedStaffUserId=${t.tenant.staff.id}`),
    )
    expect(mine.drawers.map((d: any) => d.id)).toEqual([a.id])
    const here = await ok(t.request('GET', `/cash-management/drawers?locationId=${t.tenant.locationId}`))
    expect(here.page.total).toBe(3)
    const elsewhere = await ok(t.request('GET', '/cash-management/drawers?locationId=other'))
    expect(elsewhere.page.total).toBe(0)
    expect((await t.request('GET', '/cash-management/drawers?state=lost')).status).toBe(400)
    expect((await t.request('GET', '/cash-management/drawers?limit=0')).status).toBe(400)
  })

  test('detail: drawer, entries oldest first, reconciliation and closeout summary', async () => {
    const d = await openDrawer(t, { startingBalance: 2000 })
    await ok(addEntry(t, d.id, { entryType: 'cash_in', amount: 500, comment: 'float top-up' }), 201)
    await ok(addEntry(t, d.id, { entryType: 'payout', amount: 300, reason: 'ice delivery' }), 201)
    const detail = await drawer(t, d.id)
    expect(detail.drawer.expectedBalance).toBe(2200)
    expect(detail.entries.map((e: any) => [e.entryType, e.amount, e.balanceDelta])).toEqual([
      ['cash_in', 500, 500],
      ['payout', 300, -300],
    ])
    expect(detail.reconciliation).toEqual({
      drawerId: d.id,
      closeoutMode: 'standard',
      startingBalance: 2000,
      expectedBalance: 2200,
      actualBalance: null,
      overShortAmount: null,
      requiresWarningConfirmation: false,
      requiresManagerApproval: false,
      status: null,
    })
    expect(detail.closeoutSummary).toMatchObject({
      shiftId: d.id,
      locationId: t.tenant.locationId,
      orderCount: 0,
      blockingReasons: [],
      status: 'ready',
    })
    expect((await t.request('GET', '/cash-management/drawers/nope')).status).toBe(404)
  })
})

describe('assign and lock', () => {
  test('an empty body assigns the caller; lock pins entries to the assignee', async () => {
    const d = await openDrawer(t)
    const mine = await ok(
      t.request('POST', `/cash-management/drawers/${d.id}/assign`, { as: t.tenant.staff, body: {} }),
    )
    expect(mine).toMatchObject({ assignedStaffUserId: t.tenant.staff.id, lockedToStaffUserId: null })
    const locked = await ok(
      t.request('POST', `/cash-management/drawers/${d.id}/assign`, {
        body: { staffUserId: t.tenant.staff.id, lock: true },
      }),
    )
    expect(locked.lockedToStaffUserId).toBe(t.tenant.staff.id)
    const colleague = await t.addStaff(t.tenant, { role: 'staff' })
    const refused = await addEntry(t, d.id, { entryType: 'cash_in', amount: 100 }, colleague)
    expect(refused.status).toBe(403)
    expect(countRows(t.tenant.db, 'cash_drawer_entries')).toBe(0)
    await ok(addEntry(t, d.id, { entryType: 'cash_in', amount: 100 }, t.tenant.staff), 201)
    // A manager (cash:approve) may override the lock.
    await ok(addEntry(t, d.id, { entryType: 'no_sale' }, t.tenant.manager), 201)
    // Re-assigning to someone else drops the lock; null unassigns.
    const moved = await ok(
      t.request('POST', `/cash-management/drawers/${d.id}/assign`, { body: { staffUserId: colleague.id } }),
    )
    expect(moved).toMatchObject({ assignedStaffUserId: colleague.id, lockedToStaffUserId: null })
    const none = await ok(
      t.request('POST', `/cash-management/drawers/${d.id}/assign`, { body: { staffUserId: null } }),
    )
    expect(none).toMatchObject({ assignedStaffUserId: null, lockedToStaffUserId: null })
  })

  test('unknown staff is 400, lock without an assignee is 400, a closed drawer is 409', async () => {
    const d = await openDrawer(t)
    const path = `/cash-management/drawers/${d.id}/assign`
    expect((await t.request('POST', path, { body: { staffUserId: 'ghost' } })).status).toBe(400)
    expect((await t.request('POST', path, { body: { staffUserId: null, lock: true } })).status).toBe(400)
    expect((await t.request('POST', path, { body: { lock: 'yes' } })).status).toBe(400)
    await ok(t.request('POST', `/cash-management/drawers/${d.id}/close`, { body: { actualBalance: 10_000 } }))
    const closed = await t.request('POST', path, { body: {} })
    expect(closed.status).toBe(409)
    expect(closed.body.currentState).toBe('closed')
  })
})

describe('pause with a replacement', () => {
  test('pauses, opens a linked replacement that inherits the starting balance when asked', async () => {
    const d = await openDrawer(t, { startingBalance: 7500, assignedStaffUserId: t.tenant.staff.id })
    await ok(addEntry(t, d.id, { entryType: 'cash_in', amount: 1000 }), 201)
    const result = await ok(
      t.request('POST', `/cash-management/drawers/${d.id}/pause`, {
        body: { inheritStartingBalance: true, stateComment: 'till swap' },
      }),
    )
    const { pausedDrawer, replacementDrawer } = result
    expect(pausedDrawer).toMatchObject({
      id: d.id,
      state: 'paused',
      replacementDrawerId: replacementDrawer.id,
      expectedBalance: 8500,
      stateComment: 'till swap',
    })
    expect(pausedDrawer.pausedAt).toBeString()
    expect(replacementDrawer).toMatchObject({
      state: 'open',
      parentDrawerId: d.id,
      startingBalance: 7500,
      expectedBalance: 7500,
      baseLabel: 'Bar',
      label: 'Bar #2',
      sequenceNumber: 2,
      assignedStaffUserId: t.tenant.staff.id,
      closeoutWarningAmount: 500,
    })
    expect(result.reconciliation).toMatchObject({ drawerId: d.id, expectedBalance: 8500 })
    // The paused drawer takes no entries; the replacement does.
    const refused = await addEntry(t, d.id, { entryType: 'cash_in', amount: 1 })
    expect(refused.status).toBe(409)
    expect(refused.body.currentState).toBe('paused')
    await ok(addEntry(t, replacementDrawer.id, { entryType: 'cash_in', amount: 1 }), 201)
    // Pausing again is 409; a paused drawer can still be closed.
    expect((await t.request('POST', `/cash-management/drawers/${d.id}/pause`, { body: {} })).status).toBe(409)
    const closed = await ok(
      t.request('POST', `/cash-management/drawers/${d.id}/close`, { body: { actualBalance: 8500 } }),
    )
    expect(closed.drawer).toMatchObject({ state: 'closed', replacementDrawerId: replacementDrawer.id })
  })

  test('the replacement starts at 0 by default, or at the balance given; both at once is 400', async () => {
    const d = await openDrawer(t)
    const path = `/cash-management/drawers/${d.id}/pause`
    const both = await t.request('POST', path, { body: { inheritStartingBalance: true, startingBalance: 5 } })
    expect(both.status).toBe(400)
    expect(countRows(t.tenant.db, 'cash_drawers')).toBe(1)
    const plain = await ok(t.request('POST', path, { body: {} }))
    expect(plain.replacementDrawer.startingBalance).toBe(0)
    const next = await ok(
      t.request('POST', `/cash-management/drawers/${plain.replacementDrawer.id}/pause`, {
        body: { startingBalance: 2500 },
      }),
    )
    expect(next.replacementDrawer).toMatchObject({
      startingBalance: 2500,
      sequenceNumber: 3,
      label: 'Bar #3',
    })
    expect(
      t.tenant.db.$client
        .query("SELECT count(*) AS n FROM audit_entries WHERE action = 'cash_drawer.pause'")
        .get(),
    ).toEqual({ n: 2 })
  })
})
