// A card payment whose order moves on while the card is at the provider: the charge is given
// back before the refusal, and nothing is recorded.
import { afterEach, beforeEach, expect, test } from 'bun:test'
import { takeCardPayment, takeLocalPayment } from '../../../src/modules/payments/take'
import { everyLocation } from '../../../src/platform/auth/location-scope'
import { systemActor } from '../../../src/platform/foundation/actor'
import type { PaymentProvider } from '../../../src/platform/payments/provider'
import { sandboxProvider } from '../../../src/platform/payments/sandbox'
import { countRows, createTestApp, type TestApp } from '../../harness'
import { openDrawer } from '../cash/helpers'
import { orderOf } from './helpers'

let t: TestApp
beforeEach(async () => {
  t = await createTestApp()
})
afterEach(() => t.close())

test('the order is paid in cash while the card is out: the card charge is refunded, the payment refused', async () => {
  await openDrawer(t)
  const order = await orderOf(t, 3_000)
  const actor = systemActor(t.tenant.id, 'test', t.tenant.owner.id)
  const sandbox = sandboxProvider()
  const undone: string[] = []
  const provider: PaymentProvider = {
    ...sandbox,
    async authorizePayment(input) {
      const result = await sandbox.authorizePayment(input)
      // Meanwhile, another terminal takes the whole balance in cash.
      takeLocalPayment(t.tenant.db, actor, everyLocation, order.id, {
        tender: 'cash',
        amount: 3_000,
      })
      return result
    },
    async refundPayment(id, amount, key) {
      undone.push(`refund ${id} ${amount}`)
      return sandbox.refundPayment(id, amount, key)
    },
  }
  const attempt = takeCardPayment(
    t.tenant.db,
    actor,
    everyLocation,
    { provider },
    order.id,
    { tender: 'card', amount: 3_000, paymentMethod: 'tok_visa' },
    'race-key-1',
  )
  await expect(attempt).rejects.toMatchObject({ code: 'conflict' })
  expect(undone).toHaveLength(1)
  expect(undone[0]).toEndWith(' 3000')
  // Only the cash payment is recorded.
  expect(countRows(t.tenant.db, 'payment_intents')).toBe(1)
})
