// The closeout arithmetic on its own: worked example and properties.
import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { summarize } from '../../../src/modules/cash/closeout'

const shift = { shiftId: 's', locationId: 'l', staffUserId: null, from: 'a', to: 'b' }

const payment = (
  over: Partial<Parameters<typeof summarize>[2][number]> & { id: string; orderId: string },
) => ({
  status: 'captured' as const,
  capturedAmount: 0,
  refundedAmount: 0,
  tipAmount: 0,
  refundedTipAmount: 0,
  ...over,
})

describe('worked example', () => {
  test('two paid checks, a tab, a refund', () => {
    const s = summarize(
      shift,
      [
        { id: 'o1', status: 'paid' },
        { id: 'o2', status: 'closed' },
        { id: 'o3', status: 'submitted' },
      ],
      [
        payment({ id: 'p1', orderId: 'o1', capturedAmount: 3_400, tipAmount: 400 }),
        payment({
          id: 'p2',
          orderId: 'o2',
          capturedAmount: 6_000,
          tipAmount: 1_000,
          refundedAmount: 1_200,
          refundedTipAmount: 200,
        }),
        payment({ id: 'p3', orderId: 'o3', status: 'authorized', tipAmount: 300 }),
        payment({ id: 'p4', orderId: 'o3', status: 'failed' }),
      ],
    )
    expect(s).toMatchObject({
      orderCount: 3,
      openOrderCount: 1,
      paidOpenCheckCount: 1,
      authorizedPaymentCount: 1,
      openTabCount: 1,
      capturedPaymentCount: 2,
      refundedPaymentCount: 1,
      grossCapturedAmount: 9_400,
      grossRefundedAmount: 1_200,
      netCapturedAmount: 8_200,
      tipAmount: 1_400,
      refundedTipAmount: 200,
      blockingReasons: ['open_orders', 'unresolved_payments'],
      status: 'blocked',
    })
  })
})

const statuses = ['draft', 'submitted', 'paid', 'closed', 'voided'] as const
const paymentStatuses = ['authorized', 'captured', 'refunded', 'voided', 'failed'] as const

describe('properties', () => {
  test('net = gross − refunded ≥ 0; ready exactly when nothing is open or unresolved', () => {
    const arb = fc
      .array(fc.constantFrom(...statuses), { minLength: 0, maxLength: 8 })
      .chain((orderStatuses) =>
        fc.tuple(
          fc.constant(orderStatuses.map((status, i) => ({ id: `o${i}`, status }))),
          fc.array(
            fc.record({
              status: fc.constantFrom(...paymentStatuses),
              amount: fc.integer({ min: 1, max: 100_000 }),
              tip: fc.integer({ min: 0, max: 10_000 }),
              refundShare: fc.double({ min: 0, max: 1, noNaN: true }),
              order: fc.nat(),
            }),
            { maxLength: 10 },
          ),
        ),
      )
    fc.assert(
      fc.property(arb, ([orders, raw]) => {
        const payments =
          orders.length === 0
            ? []
            : raw.map((p, i) => {
                const captured = p.status === 'captured' || p.status === 'refunded' ? p.amount + p.tip : 0
                const refunded = p.status === 'refunded' ? captured : Math.floor(captured * p.refundShare)
                return payment({
                  id: `p${i}`,
                  orderId: orders[p.order % orders.length]!.id,
                  status: p.status,
                  capturedAmount: captured,
                  tipAmount: p.tip,
                  refundedAmount: refunded,
                  refundedTipAmount: Math.min(p.tip, refunded),
                })
              })
        const s = summarize(shift, orders, payments)
        expect(s.netCapturedAmount).toBe(s.grossCapturedAmount - s.grossRefundedAmount)
        expect(s.netCapturedAmount).toBeGreaterThanOrEqual(0)
        expect(s.grossCapturedAmount).toBe(payments.reduce((a, p) => a + p.capturedAmount, 0))
        const open = orders.filter((o) => o.status === 'draft' || o.status === 'submitted').length
        const held = payments.filter((p) => p.status === 'authorized').length
        expect(s.openOrderCount).toBe(open)
        expect(s.unresolvedPaymentCount).toBe(held)
        expect(s.status === 'ready').toBe(open === 0 && held === 0)
        expect(s.blockingReasons.length === 0).toBe(s.status === 'ready')
        expect(s.openTabCount).toBeLessThanOrEqual(Math.min(open, held))
        expect(s.orderIds).toHaveLength(orders.length)
      }),
    )
  })
})
