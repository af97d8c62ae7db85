// The configured payment provider: `sandbox` (default) or `stripe` (PAYMENT_PROVIDER).
import type { Config } from '../../config'
import type { PaymentProvider } from './provider'
import { sandboxProvider } from './sandbox'
import { stripeProvider } from './stripe'

export function openPaymentProvider(config: Config): PaymentProvider {
  if (config.paymentGateway === 'stripe') {
    if (!config.stripeSecretKey) throw new Error('STRIPE_SECRET_KEY: required when PAYMENT_PROVIDER=stripe')
    return stripeProvider({ secretKey: config.stripeSecretKey, apiUrl: config.stripeApiUrl })
  }
  return sandboxProvider()
}
