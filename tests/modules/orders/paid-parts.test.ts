// Payments and refunds split over the parts of an order's total (charges.ts): properties over
// random orders and random series of partial payments and refunds. Whatever the series, no part
// is ever paid past its amount or refunded below zero, each split sums to its amount, paying the
// balance leaves every part paid whole, and refunding everything paid gives each part back whole.
import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { paymentCovers, refundTakes } from '../../../src/modules/orders/charges'
import type { OrderParts } from '../../../src/modules/orders/schema'

const names = ['lines', 'serviceCharges', 'shipping', 'bottleDeposits', 'tax', 'contribution'] as const
const sum = (p: OrderParts) => names.reduce((s, n) => s + p[n], 0)
const zero: OrderParts = {
  lines: 0,
  serviceCharges: 0,
  shipping: 0,
  bottleDeposits: 0,
  tax: 0,
  contribution: 0,
}
const add = (a: OrderParts, b: OrderParts, sign = 1) =>
  Object.fromEntries(names.map((n) => [n, a[n] + sign * b[n]])) as unknown as OrderParts

const partsArb = fc.record(
  Object.fromEntries(names.map((n) => [n, fc.integer({ min: 0, max: 5_000_000 })])) as {
    [K in keyof OrderParts]: fc.Arbitrary<number>
  },
)
/** A step: pay or refund a fraction (in millionths) of what can be paid or refunded, at least a cent. */
const stepsArb = fc.array(
  fc.tuple(fc.constantFrom('pay', 'refund'), fc.integer({ min: 0, max: 1_000_000 })),
  {
    maxLength: 30,
  },
)

describe('paid parts', () => {
  test('worked example: 75.47 paid in full, refunded 10.00 then the rest', () => {
    const parts = {
      lines: 6000,
      serviceCharges: 1000,
      shipping: 0,
      bottleDeposits: 20,
      tax: 527,
      contribution: 0,
    }
    const paid = paymentCovers(parts, zero, 7547)
    expect(paid).toEqual(parts)
    // 10.00 of 75.47: 795.02, 132.50, 0, 2.65, 69.83 → floors 998, the odd cents to tax and deposits.
    const first = refundTakes(paid, 1000)
    expect(first).toEqual({
      lines: 795,
      serviceCharges: 132,
      shipping: 0,
      bottleDeposits: 3,
      tax: 70,
      contribution: 0,
    })
    const rest = refundTakes(add(paid, first, -1), 6547)
    expect(add(first, rest)).toEqual(parts)
  })

  test('property: bounds and sums hold through any series; settling pays each part whole; refunding everything gives each back', () => {
    fc.assert(
      fc.property(partsArb, stepsArb, fc.integer({ min: 1, max: 7 }), (parts, steps, chunks) => {
        let paid = zero
        const step = (kind: 'pay' | 'refund', amount: number) => {
          const before = sum(paid)
          if (kind === 'pay') {
            const covers = paymentCovers(parts, paid, amount)
            expect(sum(covers)).toBe(Math.min(amount, sum(parts) - before))
            paid = add(paid, covers)
          } else {
            const takes = refundTakes(paid, amount)
            expect(sum(takes)).toBe(Math.min(amount, before))
            for (const n of names) expect(takes[n]).toBeGreaterThanOrEqual(0)
            paid = add(paid, takes, -1)
          }
          for (const n of names) {
            expect(paid[n]).toBeGreaterThanOrEqual(0)
            expect(paid[n]).toBeLessThanOrEqual(parts[n])
          }
        }
        for (const [kind, millionths] of steps) {
          const room = kind === 'pay' ? sum(parts) - sum(paid) : sum(paid)
          step(kind, Math.max(1, Math.floor((room * millionths) / 1_000_000)))
        }
        // Pay the balance: every part is paid whole.
        step('pay', sum(parts) - sum(paid))
        expect(paid).toEqual(parts)
        // Refund it all in `chunks` partial refunds: the refunds give each part back whole.
        let refunded = zero
        for (let i = chunks; i >= 1; i--) {
          const takes = refundTakes(paid, Math.ceil(sum(paid) / i))
          refunded = add(refunded, takes)
          paid = add(paid, takes, -1)
        }
        expect(paid).toEqual(zero)
        expect(refunded).toEqual(parts)
      }),
      { numRuns: 300 },
    )
  })
})
