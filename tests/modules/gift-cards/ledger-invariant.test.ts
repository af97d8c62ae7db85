// currentBalance always equals the sum of the card's ledger: a fast-check model test over random
// operation sequences, and parallel redemptions from several processes.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import fc from 'fast-check'
import { changeGiftCardStatus, createGiftCard } from '../../../src/modules/gift-cards/cards'
import {
  adjustGiftCard,
  cashOutGiftCard,
  expireGiftCard,
  loadGiftCard,
  mergeGiftCards,
  redeemGiftCard,
  voidGiftCardTransaction,
} from '../../../src/modules/gift-cards/operations'
import { putGiftCardSettings } from '../../../src/modules/gift-cards/settings'
import { type Actor, systemActor } from '../../../src/platform/foundation/actor'
import { ApiError } from '../../../src/platform/foundation/problem'
import { inWriteTransaction } from '../../../src/platform/tenancy/transaction'
import { createTestApp, type TestApp } from '../../harness'
import { uniqueCode } from './helpers'

let t: TestApp
let actor: Actor
beforeAll(async () => {
  t = await createTestApp()
  actor = systemActor(t.tenant.id, 'property')
  putGiftCardSettings(t.tenant.db, actor, {
    enabled: true,
    tipsEnabled: false,
    cashOutEnabled: true,
    cashOutThreshold: 0,
    cashOutPermission: 'manager',
    allowDiscounts: false,
    allowOnlineRedemption: true,
    sharedAcrossLocations: true,
    minimumPurchaseAmount: 0,
    digitalPurchaseLimit: 0,
    physicalPurchaseLimit: 0,
  })
})
afterAll(() => t.close())

type Op =
  | { kind: 'load'; card: number; amount: number }
  | { kind: 'redeem'; card: number; amount: number; ref: number }
  | { kind: 'void'; card: number; pick: number }
  | { kind: 'adjust'; card: number; delta: number }
  | { kind: 'cashOut'; card: number }
  | { kind: 'merge'; card: number }
  | { kind: 'disable' | 'enable' | 'expire'; card: number }

const card = fc.integer({ min: 0, max: 1 })
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('load' as const),
      card,
      amount: fc.integer({ min: 1, max: 5000 }),
    }),
  },
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('redeem' as const),
      card,
      amount: fc.integer({ min: 1, max: 8000 }),
      ref: fc.integer({ min: 0, max: 5 }),
    }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('void' as const), card, pick: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('adjust' as const),
      card,
      delta: fc.integer({ min: -5000, max: 5000 }).filter((d) => d !== 0),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cashOut' as const), card }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('merge' as const), card }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constantFrom('disable' as const, 'enable' as const), card }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('expire' as const), card }) },
)

const client = () => t.tenant.db.$client
const cardState = (id: string) =>
  client().query('SELECT current_balance AS balance, status FROM gift_cards WHERE id = ?').get(id) as {
    balance: number
    status: string
  }
const ledgerOf = (id: string) =>
  client().query('SELECT * FROM gift_card_transactions WHERE gift_card_id = ? ORDER BY sequence').all(id) as {
    id: string
    sequence: number
    amount_delta: number
    balance_after: number
    entry_type: string
  }[]

function checkInvariant(id: string) {
  const { balance } = cardState(id)
  const ledger = ledgerOf(id)
  expect(balance).toBeGreaterThanOrEqual(0)
  expect(balance).toBe(ledger.reduce((sum, e) => sum + e.amount_delta, 0))
  let running = 0
  ledger.forEach((e, i) => {
    expect(e.sequence).toBe(i + 1)
    running += e.amount_delta
    expect(e.balance_after).toBe(running)
  })
}

let run = 0

describe('ledger invariant', () => {
  test('over random operation sequences, every balance equals its ledger and follows the model', () => {
    fc.assert(
      fc.property(
        fc.tuple(fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: 0, max: 10_000 })),
        fc.array(opArb, { maxLength: 25 }),
        (initial, ops) => {
          run++
          const ids = initial.map(
            (amount) =>
              createGiftCard(t.tenant.db, actor, {
                title: 'P',
                type: 'Virtual',
                code: uniqueCode(),
                initialAmount: amount,
                activate: true,
              }).id,
          )
          const refs = new Map<string, { card: number; amount: number }>()
          for (const op of ops) {
            const id = ids[op.card]!
            const other = ids[1 - op.card]!
            const before = cardState(id)
            const otherBefore = cardState(other)
            const active = before.status === 'Active'
            let expectedDelta = 'unknown' as number | 'refused' | 'unknown'
            const attempt = () =>
              inWriteTransaction(t.tenant.db, (tx) => {
                switch (op.kind) {
                  case 'load':
                    expectedDelta = active ? op.amount : 'refused'
                    return loadGiftCard(tx, actor, id, { amount: op.amount })
                  case 'redeem': {
                    const ref = `run${run}-r${op.ref}`
                    const earlier = refs.get(ref)
                    if (earlier)
                      expectedDelta = earlier.card === op.card && earlier.amount === op.amount ? 0 : 'refused'
                    else expectedDelta = active && op.amount <= before.balance ? -op.amount : 'refused'
                    const result = redeemGiftCard(tx, actor, { id, amount: op.amount, paymentReference: ref })
                    if (!earlier) refs.set(ref, { card: op.card, amount: op.amount })
                    return result
                  }
                  case 'void': {
                    const ledger = ledgerOf(id)
                    const entry = ledger[op.pick % ledger.length]!
                    return voidGiftCardTransaction(tx, actor, { giftCardId: id, transactionId: entry.id })
                  }
                  case 'adjust':
                    if (before.status === 'Active' || before.status === 'Disabled')
                      expectedDelta = before.balance + op.delta >= 0 ? op.delta : 'refused'
                    else expectedDelta = 'refused'
                    return adjustGiftCard(tx, actor, id, { amountDelta: op.delta, reason: 'property' })
                  case 'cashOut':
                    expectedDelta = active && before.balance > 0 ? -before.balance : 'refused'
                    return cashOutGiftCard(tx, actor, id, {})
                  case 'merge':
                    return mergeGiftCards(tx, actor, id, { sourceGiftCardId: other })
                  case 'expire':
                    return expireGiftCard(tx, actor, id, {})
                  default:
                    return changeGiftCardStatus(t.tenant.db, actor, id, op.kind, null)
                }
              })
            let refused = false
            try {
              attempt()
            } catch (error) {
              if (!(error instanceof ApiError)) throw error
              refused = true
            }
            const after = cardState(id)
            if (expectedDelta === 'refused') expect(refused).toBe(true)
            else if (typeof expectedDelta === 'number') {
              expect(refused).toBe(false)
              expect(after.balance - before.balance).toBe(expectedDelta)
            }
            if (refused) {
              expect(after.balance).toBe(before.balance)
              expect(cardState(other).balance).toBe(otherBefore.balance)
            }
            if (op.kind === 'merge' && !refused) {
              expect(after.balance).toBe(before.balance + otherBefore.balance)
              expect(cardState(other)).toEqual({ balance: 0, status: 'Merged' })
            }
            for (const cardId of ids) checkInvariant(cardId)
          }
        },
      ),
      { numRuns: 60 },
    )
  })
})

describe('parallel redemption from several processes', () => {
  const worker = join(import.meta.dir, 'redeem-worker.ts')
  const spawnWorkers = async (cardId: string, refPrefixes: string[], count: number, amount: number) => {
    const procs = refPrefixes.map((prefix) =>
      Bun.spawn(
        [
          process.execPath,
          worker,
          t.tenant.db.$client.filename,
          t.tenant.id,
          cardId,
          prefix,
          String(count),
          String(amount),
        ],
        { stdout: 'pipe', stderr: 'pipe' },
      ),
    )
    return Promise.all(
      procs.map(async (p) => {
        const [out, err, code] = await Promise.all([
          new Response(p.stdout).text(),
          new Response(p.stderr).text(),
          p.exited,
        ])
        if (code !== 0) throw new Error(`worker failed: ${err}`)
        return JSON.parse(out.trim().split('\n').pop()!) as { ok: number; replayed: number; refused: number }
      }),
    )
  }

  test('four processes racing for one card: never overdrawn, the ledger adds up', async () => {
    const id = createGiftCard(t.tenant.db, actor, {
      title: 'Race',
      type: 'Virtual',
      code: uniqueCode(),
      initialAmount: 2000,
      activate: true,
    }).id
    const results = await spawnWorkers(id, ['a', 'b', 'c', 'd'], 8, 100)
    expect(results.reduce((n, r) => n + r.ok, 0)).toBe(20)
    expect(results.reduce((n, r) => n + r.refused, 0)).toBe(12)
    expect(cardState(id).balance).toBe(0)
    checkInvariant(id)
  }, 30_000)

  test('the same payment references from three processes redeem once each', async () => {
    const id = createGiftCard(t.tenant.db, actor, {
      title: 'Retry',
      type: 'Virtual',
      code: uniqueCode(),
      initialAmount: 100_000,
      activate: true,
    }).id
    const results = await spawnWorkers(id, ['same', 'same', 'same'], 10, 100)
    expect(results.reduce((n, r) => n + r.ok, 0)).toBe(10)
    expect(results.reduce((n, r) => n + r.replayed, 0)).toBe(20)
    expect(cardState(id).balance).toBe(99_000)
    checkInvariant(id)
  }, 30_000)
})
