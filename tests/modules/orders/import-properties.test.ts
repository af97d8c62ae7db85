// Imported orders' money (orders/import.ts) as properties over generated orders: the header's
// totals are its lines', shipping's and tips' sums, the payments pay it in full and read back so
// through the API, a total the file gives that differs is refused naming it, and importing the same
// order again changes nothing.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import fc from 'fast-check'
import { importOrder } from '../../../src/modules/orders'
import { lineTax } from '../../../src/modules/orders/pricing'
import { systemActor } from '../../../src/platform/foundation/actor'
import { ApiError } from '../../../src/platform/foundation/problem'
import { createTestApp, type TestApp } from '../../harness'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t.close())

const actor = () => systemActor(t.tenant.id, 'import', t.tenant.owner.id)
let imports = 0
const row = () => ({ importId: `import-${++imports}`, line: 2, emitEvents: false })

const generatedLine = fc.record({
  quantity: fc.integer({ min: 1, max: 24 }),
  unitPrice: fc.integer({ min: 0, max: 200_000 }),
  discountPercent: fc.integer({ min: 0, max: 100 }),
  taxRateBps: fc.integer({ min: 0, max: 2_500 }),
  taxCalculation: fc.constantFrom('Added' as const, 'Included' as const),
})

const generatedOrder = fc.record({
  lines: fc.array(generatedLine, { minLength: 1, maxLength: 6 }),
  shippingTotal: fc.integer({ min: 0, max: 5_000 }),
  shippingTaxAmount: fc.integer({ min: 0, max: 500 }),
  // Where the payments split what the order comes to before tips (none: one payment of the whole).
  cuts: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 2 }),
  tips: fc.array(fc.integer({ min: 0, max: 3_000 }), { minLength: 3, maxLength: 3 }),
})

type Generated = typeof generatedOrder extends fc.Arbitrary<infer G> ? G : never

/** The order as a file gives it, and what it must come to, worked out here line by line. */
function orderOf(generated: Generated, externalRef: string) {
  let subtotal = 0
  let discountTotal = 0
  let addedTax = 0
  let taxTotal = generated.shippingTaxAmount
  const lineItems = generated.lines.map((line, i) => {
    const lineSubtotal = line.unitPrice * line.quantity
    const discountAmount = Math.floor((lineSubtotal * line.discountPercent) / 100)
    const tax = lineTax(lineSubtotal - discountAmount, line.taxRateBps, line.taxCalculation)
    subtotal += lineSubtotal
    discountTotal += discountAmount
    taxTotal += tax
    if (line.taxCalculation === 'Added') addedTax += tax
    return {
      title: `Line ${i + 1}`,
      quantity: line.quantity,
      unitPrice: line.unitPrice,
      discountAmount,
      taxRateBps: line.taxRateBps,
      taxCalculation: line.taxCalculation,
    }
  })
  const beforeTips =
    subtotal - discountTotal + generated.shippingTotal + addedTax + generated.shippingTaxAmount
  const marks = [
    0,
    ...generated.cuts.map((cut) => Math.floor(cut * beforeTips)).sort((a, b) => a - b),
    beforeTips,
  ]
  const payments = marks.slice(1).map((mark, i) => ({
    tender: 'cash' as const,
    amount: mark - marks[i]!,
    tipAmount: generated.tips[i]!,
  }))
  const tipTotal = payments.reduce((sum, p) => sum + p.tipAmount, 0)
  return {
    input: {
      externalRef,
      locationId: t.tenant.locationId,
      createdAt: '2025-06-01T18:00:00.000Z',
      shippingTotal: generated.shippingTotal,
      shippingTaxAmount: generated.shippingTaxAmount,
      lineItems,
      payments,
    },
    expected: { subtotal, discountTotal, taxTotal, tipTotal, total: beforeTips + tipTotal },
  }
}

const storedId = (externalRef: string) =>
  (
    t.tenant.db.$client
      .query<{ id: string }, [string]>('SELECT id FROM orders WHERE external_ref = ?')
      .get(externalRef) as { id: string }
  ).id

test('an imported order comes to its lines, shipping and tips; its payments pay it; a second import changes nothing', async () => {
  let n = 0
  await fc.assert(
    fc.asyncProperty(generatedOrder, async (generated) => {
      const { input, expected } = orderOf(generated, `prop-${++n}`)
      expect(importOrder(t.tenant.db, actor(), input, row())).toBe('created')
      const order = (await t.request('GET', `/order/${storedId(input.externalRef)}`)).body
      expect(order).toMatchObject({ ...expected, amountPaid: expected.total, balanceDue: 0 })
      const paid = t.tenant.db.$client
        .query<{ amount: number; tips: number }, [string]>(
          'SELECT sum(amount) AS amount, sum(tip_amount) AS tips FROM payment_intents WHERE order_id = ?',
        )
        .get(order.id)!
      expect(paid.amount + paid.tips).toBe(expected.total)
      expect(importOrder(t.tenant.db, actor(), input, row())).toBe('unchanged')
    }),
    { numRuns: 40 },
  )
})

test('a total the file gives that its lines do not make is refused, naming it', () => {
  let n = 0
  fc.assert(
    fc.property(generatedOrder, fc.constantFrom(-1, 1), (generated, off) => {
      const { input, expected } = orderOf(generated, `off-${++n}`)
      if (expected.total + off < 0) return
      let refused: unknown
      try {
        importOrder(t.tenant.db, actor(), { ...input, total: expected.total + off }, row())
      } catch (error) {
        refused = error
      }
      expect(refused).toBeInstanceOf(ApiError)
      expect((refused as ApiError).options.errors?.[0]?.path).toBe('total')
      const stored = t.tenant.db.$client
        .query('SELECT count(*) AS n FROM orders WHERE external_ref = ?')
        .get(input.externalRef) as { n: number }
      expect(stored.n).toBe(0)
    }),
    { numRuns: 40 },
  )
})
