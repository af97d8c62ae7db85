// The Stripe provider, through the official `stripe` package. The API base URL is configurable
// (STRIPE_API_URL) so tests run it against a local fake server that records the calls.
import Stripe from 'stripe'
import { type PaymentProvider, PaymentProviderError, type ProviderCard } from './provider'

export interface StripeProviderOptions {
  secretKey: string
  /** e.g. https://api.stripe.com/ (the default) or http://127.0.0.1:PORT/ in tests. */
  apiUrl: string
  timeoutMs?: number
}

function toCard(method: Stripe.PaymentMethod): ProviderCard {
  if (!method.card) throw new PaymentProviderError('invalid_token', 'The payment method is not a card')
  return {
    providerPaymentMethodId: method.id,
    brand: method.card.brand,
    last4: method.card.last4,
    expMonth: method.card.exp_month,
    expYear: method.card.exp_year,
  }
}

/** Stripe's errors, reduced to the three outcomes callers handle; nothing of the request kept. */
function translate(error: unknown): never {
  if (error instanceof PaymentProviderError) throw error
  if (error instanceof Stripe.errors.StripeCardError)
    throw new PaymentProviderError('declined', error.message || 'The card was declined')
  if (error instanceof Stripe.errors.StripeInvalidRequestError)
    throw new PaymentProviderError('invalid_token', error.message || 'The provider refused the request')
  if (error instanceof Stripe.errors.StripeError)
    throw new PaymentProviderError(
      'unavailable',
      `${error.type}${error.statusCode ? ` ${error.statusCode}` : ''}`,
    )
  throw new PaymentProviderError('unavailable', 'no answer from the provider')
}

export function stripeProvider(options: StripeProviderOptions): PaymentProvider {
  const base = new URL(options.apiUrl)
  const protocol = base.protocol === 'http:' ? 'http' : 'https'
  const stripe = new Stripe(options.secretKey, {
    host: base.hostname,
    port: base.port || (protocol === 'http' ? 80 : 443),
    protocol,
    timeout: options.timeoutMs ?? 20_000,
    maxNetworkRetries: 1,
    telemetry: false,
  })

  /** A card token (tok_...) becomes a PaymentMethod first; a PaymentMethod id is used as it is. */
  const methodFor = async (paymentMethod: string) =>
    paymentMethod.startsWith('tok_')
      ? (await stripe.paymentMethods.create({ type: 'card', card: { token: paymentMethod } })).id
      : paymentMethod

  return {
    name: 'stripe',
    async authorizePayment(input) {
      try {
        const intent = await stripe.paymentIntents.create(
          {
            amount: input.amount,
            currency: input.currency,
            payment_method: await methodFor(input.paymentMethod),
            ...(input.providerCustomerId ? { customer: input.providerCustomerId } : {}),
            allowed_payment_method_types: ['card'],
            capture_method: input.capture ? 'automatic' : 'manual',
            confirm: true,
            metadata: input.metadata,
            expand: ['payment_method'],
          },
          { idempotencyKey: input.idempotencyKey },
        )
        const status =
          intent.status === 'succeeded'
            ? 'captured'
            : intent.status === 'requires_capture'
              ? 'authorized'
              : null
        if (!status)
          throw new PaymentProviderError('declined', `The payment was not authorized (${intent.status})`)
        const method = typeof intent.payment_method === 'object' ? intent.payment_method : null
        return {
          providerPaymentId: intent.id,
          status,
          brand: method?.card?.brand ?? null,
          last4: method?.card?.last4 ?? null,
        }
      } catch (error) {
        translate(error)
      }
    },
    async capturePayment(providerPaymentId, amount, idempotencyKey) {
      try {
        await stripe.paymentIntents.capture(
          providerPaymentId,
          { amount_to_capture: amount },
          { idempotencyKey },
        )
      } catch (error) {
        translate(error)
      }
    },
    async cancelPayment(providerPaymentId, idempotencyKey) {
      try {
        await stripe.paymentIntents.cancel(providerPaymentId, {}, { idempotencyKey })
      } catch (error) {
        translate(error)
      }
    },
    async refundPayment(providerPaymentId, amount, idempotencyKey) {
      try {
        const refund = await stripe.refunds.create(
          { payment_intent: providerPaymentId, amount },
          { idempotencyKey },
        )
        return { providerRefundId: refund.id }
      } catch (error) {
        translate(error)
      }
    },
    async createCustomer(input) {
      try {
        const customer = await stripe.customers.create(
          {
            name: input.name,
            ...(input.email ? { email: input.email } : {}),
            metadata: { restaurantOpsCustomerId: input.customerId, restaurantOpsTenantId: input.tenantId },
          },
          { idempotencyKey: input.idempotencyKey },
        )
        return { providerCustomerId: customer.id }
      } catch (error) {
        translate(error)
      }
    },
    async attachPaymentMethod(providerCustomerId, providerToken) {
      try {
        // A card token (tok_...) from Stripe.js or a mobile SDK becomes a PaymentMethod first;
        // a PaymentMethod id (pm_...) is attached as it is.
        const methodId = await methodFor(providerToken)
        return toCard(await stripe.paymentMethods.attach(methodId, { customer: providerCustomerId }))
      } catch (error) {
        translate(error)
      }
    },
    async detachPaymentMethod(providerPaymentMethodId) {
      try {
        await stripe.paymentMethods.detach(providerPaymentMethodId)
      } catch (error) {
        translate(error)
      }
    },
    async listPaymentMethods(providerCustomerId) {
      try {
        const cards: ProviderCard[] = []
        for await (const method of stripe.customers.listPaymentMethods(providerCustomerId, {
          type: 'card',
          limit: 100,
        })) {
          cards.push(toCard(method))
        }
        return cards
      } catch (error) {
        translate(error)
      }
    },
  }
}
