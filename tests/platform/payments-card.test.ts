// Card payments at the provider: the sandbox's test cards and its idempotency, and the Stripe
// provider's PaymentIntent calls against a local fake of the Stripe API.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Server } from 'bun'
import { PaymentProviderError } from '../../src/platform/payments/provider'
import { sandboxProvider } from '../../src/platform/payments/sandbox'
import { stripeProvider } from '../../src/platform/payments/stripe'

const input = (
  over: Partial<Parameters<ReturnType<typeof sandboxProvider>['authorizePayment']>[0]> = {},
) => ({
  amount: 2_500,
  currency: 'usd',
  paymentMethod: 'tok_visa',
  capture: true,
  idempotencyKey: `k-${Math.random()}`,
  metadata: {},
  ...over,
})

describe('sandbox', () => {
  test('authorize, capture up to the authorization, refund up to the capture', async () => {
    const p = sandboxProvider()
    const auth = await p.authorizePayment(input({ capture: false, amount: 3_000 }))
    expect(auth).toMatchObject({ status: 'authorized', brand: 'visa', last4: '4242' })
    await expect(p.capturePayment(auth.providerPaymentId, 3_001, 'c1')).rejects.toBeInstanceOf(
      PaymentProviderError,
    )
    await p.capturePayment(auth.providerPaymentId, 2_800, 'c2')
    await p.refundPayment(auth.providerPaymentId, 2_000, 'r1')
    await expect(p.refundPayment(auth.providerPaymentId, 801, 'r2')).rejects.toBeInstanceOf(
      PaymentProviderError,
    )
    await p.refundPayment(auth.providerPaymentId, 800, 'r3')
    await expect(p.cancelPayment(auth.providerPaymentId, 'v1')).rejects.toBeInstanceOf(PaymentProviderError)
  })

  test('the same idempotency key answers the first result; declines throw declined', async () => {
    const p = sandboxProvider()
    const a = await p.authorizePayment(input({ idempotencyKey: 'same' }))
    const b = await p.authorizePayment(input({ idempotencyKey: 'same' }))
    expect(b.providerPaymentId).toBe(a.providerPaymentId)
    const refundA = await p.refundPayment(a.providerPaymentId, 2_500, 'refund-1')
    const refundB = await p.refundPayment(a.providerPaymentId, 2_500, 'refund-1')
    expect(refundB).toEqual(refundA)
    const declined = await p.authorizePayment(input({ paymentMethod: 'tok_chargeDeclined' })).catch((e) => e)
    expect(declined).toBeInstanceOf(PaymentProviderError)
    expect(declined.kind).toBe('declined')
  })

  test('tok_chargeCustomerFail saves as a card, then every charge on it declines (as at Stripe)', async () => {
    const p = sandboxProvider()
    const { providerCustomerId } = await p.createCustomer({
      customerId: 'c',
      tenantId: 't',
      email: null,
      name: 'A',
      idempotencyKey: 'customer-c',
    })
    const card = await p.attachPaymentMethod(providerCustomerId, 'tok_chargeCustomerFail')
    expect(card).toMatchObject({ brand: 'visa', last4: '0341' })
    expect(await p.listPaymentMethods(providerCustomerId)).toEqual([card])
    for (const key of ['k1', 'k2']) {
      const charge = { paymentMethod: card.providerPaymentMethodId, providerCustomerId, idempotencyKey: key }
      const declined = await p.authorizePayment(input(charge)).catch((e) => e)
      expect(declined).toBeInstanceOf(PaymentProviderError)
      expect(declined.kind).toBe('declined')
    }
  })
})

describe('stripe', () => {
  const calls: { method: string; path: string; key: string | null; form: Record<string, string> }[] = []
  let server: Server<undefined>
  beforeAll(() => {
    server = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      async fetch(request) {
        const url = new URL(request.url)
        const form = Object.fromEntries(new URLSearchParams(await request.text()))
        calls.push({
          method: request.method,
          path: url.pathname,
          key: request.headers.get('idempotency-key'),
          form,
        })
        if (url.pathname === '/v1/payment_methods')
          return Response.json({ id: 'pm_from_tok', object: 'payment_method', type: 'card' })
        if (url.pathname === '/v1/payment_intents') {
          if (form.payment_method === 'pm_declined')
            return Response.json(
              { error: { type: 'card_error', message: 'Your card was declined.', code: 'card_declined' } },
              { status: 402 },
            )
          return Response.json({
            id: 'pi_123',
            object: 'payment_intent',
            status: form.capture_method === 'manual' ? 'requires_capture' : 'succeeded',
            payment_method: {
              id: form.payment_method,
              object: 'payment_method',
              card: { brand: 'visa', last4: '4242' },
            },
          })
        }
        if (/^\/v1\/payment_intents\/pi_123\/(capture|cancel)$/.test(url.pathname))
          return Response.json({ id: 'pi_123', object: 'payment_intent', status: 'succeeded' })
        if (url.pathname === '/v1/refunds') return Response.json({ id: 're_1', object: 'refund' })
        return Response.json(
          { error: { type: 'invalid_request_error', message: 'unknown' } },
          { status: 404 },
        )
      },
    })
  })
  afterAll(() => server.stop(true))

  test('PaymentIntents: manual capture, capture, cancel, refund, each with its idempotency key', async () => {
    const p = stripeProvider({ secretKey: 'sk_test_fake', apiUrl: `http://127.0.0.1:${server.port}/` })
    const auth = await p.authorizePayment(
      input({ capture: false, idempotencyKey: 'auth-key', paymentMethod: 'tok_visa' }),
    )
    expect(auth).toEqual({ providerPaymentId: 'pi_123', status: 'authorized', brand: 'visa', last4: '4242' })
    const create = calls.find((c) => c.path === '/v1/payment_intents')!
    expect(create.key).toBe('auth-key')
    expect(create.form).toMatchObject({
      amount: '2500',
      currency: 'usd',
      payment_method: 'pm_from_tok',
      capture_method: 'manual',
      confirm: 'true',
    })
    await p.capturePayment('pi_123', 2_000, 'cap-key')
    const capture = calls.find((c) => c.path.endsWith('/capture'))!
    expect(capture).toMatchObject({ key: 'cap-key', form: { amount_to_capture: '2000' } })
    await p.cancelPayment('pi_123', 'cancel-key')
    expect(calls.find((c) => c.path.endsWith('/cancel'))!.key).toBe('cancel-key')
    expect(await p.refundPayment('pi_123', 500, 'refund-key')).toEqual({ providerRefundId: 're_1' })
    expect(calls.find((c) => c.path === '/v1/refunds')).toMatchObject({
      key: 'refund-key',
      form: { payment_intent: 'pi_123', amount: '500' },
    })
    const captured = await p.authorizePayment(input({ paymentMethod: 'pm_card' }))
    expect(captured.status).toBe('captured')
    const declined = await p.authorizePayment(input({ paymentMethod: 'pm_declined' })).catch((e) => e)
    expect(declined).toBeInstanceOf(PaymentProviderError)
    expect(declined.kind).toBe('declined')
  })
})
