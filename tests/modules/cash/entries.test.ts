// Drawer entries and their effect on the expected balance, and closing with over/short/exact.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { countRows, createTestApp, type TestApp } from '../../harness'
import { addEntry, drawer, ok, openDrawer } from './helpers'

let t: TestApp
beforeEach(async () => {
  t = await createTestApp()
})
afterEach(() => t.close())

describe('entries', () => {
  test('every entry type moves the expected balance by its signed amount', async () => {
    const d = await openDrawer(t, { startingBalance: 10_000 })
    // [type, amount, balanceDelta, expected balance after]
    const steps: [string, number | undefined, number, number][] = [
      ['cash_in', 2_500, 2_500, 12_500],
      ['cash_collected', 1_875, 1_875, 14_375],
      ['cash_out', 1_000, -1_000, 13_375],
      ['payout', 2_250, -2_250, 11_125],
      ['tip_out', 1_500, -1_500, 9_625],
      ['cash_drop', 5_000, -5_000, 4_625],
      ['no_sale', undefined, 0, 4_625],
      ['no_sale', 0, 0, 4_625],
    ]
    for (const [entryType, amount, delta, expected] of steps) {
      const res = await ok(addEntry(t, d.id, { entryType, amount, comment: `a ${entryType}` }), 201)
      expect({ entryType, delta: res.entry.balanceDelta, expected: res.drawer.expectedBalance }).toEqual({
        entryType,
        delta,
        expected,
      })
      expect(res.entry).toMatchObject({
        drawerId: d.id,
        locationId: t.tenant.locationId,
        entryType,
        amount: amount ?? 0,
        createdByStaffUserId: t.tenant.owner.id,
        comment: `a ${entryType}`,
      })
      expect(res.reconciliation.expectedBalance).toBe(expected)
      expect(res.closeoutSummary.shiftId).toBe(d.id)
    }
    const detail = await drawer(t, d.id)
    expect(detail.entries).toHaveLength(steps.length)
    const sum = detail.entries.reduce((acc: number, e: any) => acc + e.balanceDelta, 0)
    expect(detail.drawer.expectedBalance).toBe(10_000 + sum)
    expect(
      t.tenant.db.$client
        .query("SELECT count(*) AS n FROM outbox_events WHERE object = 'cash_drawer' AND action = 'entry'")
        .get(),
    ).toEqual({ n: steps.length })
    expect(
      t.tenant.db.$client
        .query("SELECT count(*) AS n FROM audit_entries WHERE action LIKE 'cash_drawer.entry.%'")
        .get(),
    ).toEqual({ n: steps.length })
  })

  test('a drop larger than the drawer is recorded as counted: the balance may go negative', async () => {
    const d = await openDrawer(t, { startingBalance: 100 })
    const res = await ok(addEntry(t, d.id, { entryType: 'cash_drop', amount: 300 }), 201)
    expect(res.drawer.expectedBalance).toBe(-200)
  })

  test('validation: amounts by type, unknown types and fields, unknown related staff; nothing written', async () => {
    const d = await openDrawer(t)
    for (const body of [
      {},
      { amount: 100 },
      { entryType: 'cash_in' },
      { entryType: 'cash_in', amount: 0 },
      { entryType: 'cash_in', amount: -5 },
      { entryType: 'cash_in', amount: '5' },
      { entryType: 'cash_in', amount: 1.5 },
      { entryType: 'no_sale', amount: 100 },
      { entryType: 'refund', amount: 100 },
      { entryType: 'tip_out', amount: 100, relatedStaffUserId: 'ghost' },
      { entryType: 'cash_in', amount: 100, extra: true },
    ]) {
      const res = await addEntry(t, d.id, body)
      expect({ body, status: res.status }).toEqual({ body, status: 400 })
    }
    expect(countRows(t.tenant.db, 'cash_drawer_entries')).toBe(0)
    expect((await drawer(t, d.id)).drawer.expectedBalance).toBe(10_000)
    const tipOut = await ok(
      addEntry(t, d.id, { entryType: 'tip_out', amount: 100, relatedStaffUserId: t.tenant.staff.id }),
      201,
    )
    expect(tipOut.entry.relatedStaffUserId).toBe(t.tenant.staff.id)
  })

  test('a closed drawer refuses entries with 409 and its state', async () => {
    const d = await openDrawer(t, { startingBalance: 0 })
    await ok(t.request('POST', `/cash-management/drawers/${d.id}/close`, { body: { actualBalance: 0 } }))
    const res = await addEntry(t, d.id, { entryType: 'cash_in', amount: 1 })
    expect(res.status).toBe(409)
    expect(res.body).toMatchObject({ code: 'conflict', currentState: 'closed' })
    expect(countRows(t.tenant.db, 'cash_drawer_entries')).toBe(0)
  })

  test('concurrent entries on one drawer are all kept and all counted', async () => {
    const d = await openDrawer(t, { startingBalance: 1_000 })
    const amounts = Array.from({ length: 30 }, (_, i) => (i + 1) * 10)
    const responses = await Promise.all(
      amounts.map((amount, i) =>
        addEntry(t, d.id, { entryType: i % 3 === 0 ? 'cash_out' : 'cash_in', amount }),
      ),
    )
    expect(responses.every((r) => r.status === 201)).toBe(true)
    const expected = 1_000 + amounts.reduce((acc, amount, i) => acc + (i % 3 === 0 ? -amount : amount), 0)
    const detail = await drawer(t, d.id)
    expect(detail.entries).toHaveLength(30)
    expect(detail.drawer.expectedBalance).toBe(expected)
  })
})

describe('close', () => {
  const close = (id: string, body: Record<string, unknown>, as = t.tenant.staff) =>
    t.request('POST', `/cash-management/drawers/${id}/close`, { body, as })

  test('exact: counted equals expected', async () => {
    const d = await openDrawer(t, { startingBalance: 10_000 })
    await ok(addEntry(t, d.id, { entryType: 'cash_in', amount: 500 }), 201)
    const res = await ok(close(d.id, { actualBalance: 10_500, stateComment: 'all good' }))
    expect(res.reconciliation).toEqual({
      drawerId: d.id,
      closeoutMode: 'standard',
      startingBalance: 10_000,
      expectedBalance: 10_500,
      actualBalance: 10_500,
      overShortAmount: 0,
      requiresWarningConfirmation: false,
      requiresManagerApproval: false,
      status: 'exact',
    })
    expect(res.drawer).toMatchObject({
      state: 'closed',
      actualBalance: 10_500,
      overShortAmount: 0,
      reconciliationStatus: 'exact',
      stateComment: 'all good',
      closedByStaffUserId: t.tenant.staff.id,
      approvedByStaffUserId: null,
    })
    expect(res.closeoutSummary.status).toBe('ready')
    const detail = await drawer(t, d.id)
    expect(detail.reconciliation).toEqual(res.reconciliation)
    expect(detail.closeoutSummary).toEqual(res.closeoutSummary)
    // Closed is final.
    const again = await close(d.id, { actualBalance: 10_500 })
    expect(again.status).toBe(409)
    expect(again.body.currentState).toBe('closed')
  })

  test('over and short within the warning amount close at once', async () => {
    const over = await openDrawer(t, { startingBalance: 1_000 })
    expect((await ok(close(over.id, { actualBalance: 1_500 }))).reconciliation).toMatchObject({
      overShortAmount: 500,
      status: 'over',
      requiresWarningConfirmation: false,
    })
    const short = await openDrawer(t, { startingBalance: 1_000 })
    expect((await ok(close(short.id, { actualBalance: 600 }))).reconciliation).toMatchObject({
      overShortAmount: -400,
      status: 'short',
    })
  })

  test('above the warning amount: 409 until confirmed, nothing written', async () => {
    const d = await openDrawer(t, { startingBalance: 1_000 })
    const refused = await close(d.id, { actualBalance: 399 })
    expect(refused.status).toBe(409)
    expect(refused.body).toMatchObject({
      reason: 'warning_confirmation_required',
      reconciliation: { overShortAmount: -601, status: 'short', requiresWarningConfirmation: true },
    })
    expect((await drawer(t, d.id)).drawer.state).toBe('open')
    const closed = await ok(close(d.id, { actualBalance: 399, confirmWarning: true }))
    expect(closed.drawer).toMatchObject({
      state: 'closed',
      overShortAmount: -601,
      approvedByStaffUserId: null,
    })
  })

  test('above the approval amount: a manager must approve', async () => {
    const d = await openDrawer(t, { startingBalance: 1_000 })
    const body = { actualBalance: 3_500, confirmWarning: true }
    // Staff (no cash:approve) alone: 403 with the reconciliation.
    const refused = await close(d.id, body)
    expect(refused.status).toBe(403)
    expect(refused.body).toMatchObject({
      reason: 'manager_approval_required',
      reconciliation: { overShortAmount: 2_500, status: 'over', requiresManagerApproval: true },
    })
    // Naming someone without cash:approve: 403; naming nobody real: 400.
    const colleague = await t.addStaff(t.tenant, { role: 'staff' })
    expect((await close(d.id, { ...body, managerApprovedByStaffUserId: colleague.id })).status).toBe(403)
    expect((await close(d.id, { ...body, managerApprovedByStaffUserId: 'ghost' })).status).toBe(400)
    // The warning still needs its confirmation even with a manager.
    expect(
      (await close(d.id, { actualBalance: 3_500, managerApprovedByStaffUserId: t.tenant.manager.id })).status,
    ).toBe(409)
    expect((await drawer(t, d.id)).drawer.state).toBe('open')
    const closed = await ok(close(d.id, { ...body, managerApprovedByStaffUserId: t.tenant.manager.id }))
    expect(closed.drawer).toMatchObject({
      state: 'closed',
      approvedByStaffUserId: t.tenant.manager.id,
      closedByStaffUserId: t.tenant.staff.id,
    })
    const audit = t.tenant.db.$client
      .query("SELECT metadata FROM audit_entries WHERE action = 'cash_drawer.close'")
      .get() as { metadata: string }
    expect(JSON.parse(audit.metadata)).toMatchObject({ approvedByStaffUserId: t.tenant.manager.id })
  })

  test('a manager closing is their own approval; a location-scoped manager elsewhere is not', async () => {
    const d = await openDrawer(t, { startingBalance: 0 })
    const closed = await ok(close(d.id, { actualBalance: 5_000, confirmWarning: true }, t.tenant.manager))
    expect(closed.drawer.approvedByStaffUserId).toBe(t.tenant.manager.id)
    const patio = t.addLocation(t.tenant, {
      name: 'Patio',
      timezone: 'America/Los_Angeles',
    })
    const elsewhere = await t.addStaff(t.tenant, { role: 'manager', locationId: patio.id })
    const e = await openDrawer(t, { startingBalance: 0 })
    const res = await close(e.id, {
      actualBalance: 5_000,
      confirmWarning: true,
      managerApprovedByStaffUserId: elsewhere.id,
    })
    expect(res.status).toBe(403)
  })

  test('thresholds turned off never require anything', async () => {
    const d = await openDrawer(t, { closeoutWarningAmount: null, closeoutRequireApprovalAmount: null })
    const res = await ok(close(d.id, { actualBalance: 0 }))
    expect(res.reconciliation).toMatchObject({
      overShortAmount: -10_000,
      requiresWarningConfirmation: false,
      requiresManagerApproval: false,
    })
  })

  test('validation: the count is a non-negative integer of cents', async () => {
    const d = await openDrawer(t)
    for (const body of [
      {},
      { actualBalance: -1 },
      { actualBalance: '100' },
      { actualBalance: 1.25 },
      { actualBalance: 1, x: 1 },
    ])
      expect((await close(d.id, body)).status).toBe(400)
    expect((await drawer(t, d.id)).drawer.state).toBe('open')
    expect((await close(d.id, { actualBalance: 10_000 }, t.tenant.readOnly)).status).toBe(403)
  })
})
