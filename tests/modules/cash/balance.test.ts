// The drawer arithmetic: worked examples and properties of the expected balance and the
// reconciliation, and the same properties through the database.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { balanceDelta, entrySign, expectedBalance, reconcile } from '../../../src/modules/cash/balance'
import { createDrawer } from '../../../src/modules/cash/drawers'
import { addEntry } from '../../../src/modules/cash/entries'
import { type EntryType, entryTypes } from '../../../src/modules/cash/schema'
import { systemActor } from '../../../src/platform/foundation/actor'
import { createTestApp, type TestApp } from '../../harness'

const drawerOf = (warning: number | null, approval: number | null) => ({
  id: 'd',
  closeoutMode: 'standard' as const,
  startingBalance: 0,
  closeoutWarningAmount: warning,
  closeoutRequireApprovalAmount: approval,
})

describe('worked examples', () => {
  test('signs by type', () => {
    expect(entryTypes.map((type) => [type, balanceDelta(type, 1_250)])).toEqual([
      ['cash_in', 1_250],
      ['cash_collected', 1_250],
      ['cash_out', -1_250],
      ['payout', -1_250],
      ['tip_out', -1_250],
      ['cash_drop', -1_250],
      ['no_sale', 0],
    ])
  })

  test('a shift: $200 float, $45.75 collected, $20 payout, $10 tip out, $150 drop', () => {
    const deltas = [
      balanceDelta('cash_collected', 4_575),
      balanceDelta('payout', 2_000),
      balanceDelta('tip_out', 1_000),
      balanceDelta('cash_drop', 15_000),
      balanceDelta('no_sale', 0),
    ]
    expect(expectedBalance(20_000, deltas)).toBe(6_575)
  })

  test('reconciliation: exact, over, short, each threshold strictly above', () => {
    const d = drawerOf(500, 2_000)
    expect(reconcile(d, 6_575, 6_575)).toMatchObject({ overShortAmount: 0, status: 'exact' })
    expect(reconcile(d, 6_575, 7_075)).toMatchObject({
      overShortAmount: 500,
      status: 'over',
      requiresWarningConfirmation: false,
    })
    expect(reconcile(d, 6_575, 6_074)).toMatchObject({
      overShortAmount: -501,
      status: 'short',
      requiresWarningConfirmation: true,
      requiresManagerApproval: false,
    })
    expect(reconcile(d, 6_575, 4_575)).toMatchObject({
      overShortAmount: -2_000,
      requiresManagerApproval: false,
    })
    expect(reconcile(d, 6_575, 4_574)).toMatchObject({
      requiresWarningConfirmation: true,
      requiresManagerApproval: true,
    })
    expect(reconcile(d, 6_575, null)).toMatchObject({
      overShortAmount: null,
      status: null,
      requiresManagerApproval: false,
    })
  })
})

const entryArb = fc.record({
  entryType: fc.constantFrom(...entryTypes),
  amount: fc.integer({ min: 1, max: 1_000_000 }),
})

describe('properties', () => {
  test('expected = starting + sum of deltas; each delta is ±amount by type, 0 for no_sale', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10_000_000 }),
        fc.array(entryArb, { maxLength: 60 }),
        (start, entries) => {
          const deltas = entries.map((e) =>
            balanceDelta(e.entryType, e.entryType === 'no_sale' ? 0 : e.amount),
          )
          for (const [i, e] of entries.entries())
            expect(Math.abs(deltas[i]!)).toBe(e.entryType === 'no_sale' ? 0 : e.amount)
          const ins = entries
            .filter((e) => entrySign[e.entryType] === 1)
            .reduce((acc, e) => acc + e.amount, 0)
          const outs = entries
            .filter((e) => entrySign[e.entryType] === -1)
            .reduce((acc, e) => acc + e.amount, 0)
          expect(expectedBalance(start, deltas)).toBe(start + ins - outs)
          // Order does not matter.
          expect(expectedBalance(start, [...deltas].reverse())).toBe(start + ins - outs)
        },
      ),
    )
  })

  test('over/short is actual − expected; status follows its sign; thresholds are monotone', () => {
    const threshold = fc.option(fc.integer({ min: 0, max: 100_000 }))
    fc.assert(
      fc.property(
        fc.integer({ min: -1_000_000, max: 1_000_000 }),
        fc.integer({ min: 0, max: 2_000_000 }),
        threshold,
        threshold,
        (expected, actual, warning, approval) => {
          const r = reconcile(drawerOf(warning, approval), expected, actual)
          expect(r.overShortAmount).toBe(actual - expected)
          expect(r.status).toBe(actual === expected ? 'exact' : actual > expected ? 'over' : 'short')
          const off = Math.abs(actual - expected)
          expect(r.requiresWarningConfirmation).toBe(warning !== null && off > warning)
          expect(r.requiresManagerApproval).toBe(approval !== null && off > approval)
          // With the warning at or below the approval threshold, an approval implies a warning.
          if (warning !== null && approval !== null && warning <= approval && r.requiresManagerApproval)
            expect(r.requiresWarningConfirmation).toBe(true)
        },
      ),
    )
  })
})

describe('through the database', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await createTestApp()
  })
  afterAll(() => t.close())

  test('any sequence of entries leaves expectedBalance = starting + the sum of the stored deltas', () => {
    const actor = systemActor(t.tenant.id, 'property', t.tenant.owner.id)
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.array(entryArb, { maxLength: 12 }),
        (start, entries) => {
          const d = createDrawer(t.tenant.db, actor, {
            locationId: t.tenant.locationId,
            label: 'Prop',
            startingBalance: start,
          })
          let model = start
          for (const e of entries) {
            const amount = e.entryType === 'no_sale' ? 0 : e.amount
            const result = addEntry(
              t.tenant.db,
              actor,
              d.id,
              { entryType: e.entryType as EntryType, amount },
              { canOverrideLock: false },
            )
            model += balanceDelta(e.entryType, amount)
            expect(result.drawer.expectedBalance).toBe(model)
          }
          const stored = t.tenant.db.$client
            .query(
              'SELECT d.expected_balance AS expected, d.starting_balance + coalesce((SELECT sum(balance_delta) FROM cash_drawer_entries WHERE drawer_id = d.id), 0) AS computed FROM cash_drawers d WHERE d.id = ?',
            )
            .get(d.id) as { expected: number; computed: number }
          expect(stored.expected).toBe(stored.computed)
          expect(stored.expected).toBe(model)
        },
      ),
      { numRuns: 40 },
    )
  })
})
