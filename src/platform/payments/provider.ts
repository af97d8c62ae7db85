// Cards stay at the payment provider. The service keeps only the provider's references (customer
// and payment-method ids) and what a receipt shows (brand, last four digits, expiry); the card
// itself is tokenised by the provider's own client-side tools before it ever reaches us.
import { ApiError, unavailable } from '../foundation/problem'

export type PaymentProviderName = 'sandbox' | 'stripe'

/** A stored card as the provider describes it: references and display data, never the number. */
export interface ProviderCard {
  providerPaymentMethodId: string
  brand: string
  last4: string
  expMonth: number
  expYear: number
}

export interface ProviderCustomerInput {
  /** Our customer id, kept in the provider's metadata so its dashboard links back. */
  customerId: string
  tenantId: string
  email: string | null
  name: string
  /** The same key, the same customer: concurrent first cards in two processes make one. */
  idempotencyKey: string
}

/** A card payment to authorize (and, with `capture`, capture at once). Amounts in cents. */
export interface CardPaymentInput {
  amount: number
  /** ISO 4217, lower case (`usd`). */
  currency: string
  /** A provider token or payment-method id: from the card reader, or a stored card's id. */
  paymentMethod: string
  /** The provider customer a stored card belongs to. */
  providerCustomerId?: string | null
  capture: boolean
  /** Passed to the provider, so a retried request never charges twice there either. */
  idempotencyKey: string
  metadata: Record<string, string>
}

export interface ProviderPayment {
  providerPaymentId: string
  status: 'authorized' | 'captured'
  brand: string | null
  last4: string | null
}

export interface PaymentProvider {
  readonly name: PaymentProviderName
  /** Authorizes a card payment; captures it too when asked. Declines throw `declined`. */
  authorizePayment(input: CardPaymentInput): Promise<ProviderPayment>
  /** Captures `amount` (at most what was authorized) of an authorized payment; the rest is released. */
  capturePayment(providerPaymentId: string, amount: number, idempotencyKey: string): Promise<void>
  /** Releases an authorization that was never captured. */
  cancelPayment(providerPaymentId: string, idempotencyKey: string): Promise<void>
  /** Refunds `amount` of a captured payment. */
  refundPayment(
    providerPaymentId: string,
    amount: number,
    idempotencyKey: string,
  ): Promise<{ providerRefundId: string }>
  createCustomer(input: ProviderCustomerInput): Promise<{ providerCustomerId: string }>
  /** Attaches the card a provider token stands for to the provider customer. */
  attachPaymentMethod(providerCustomerId: string, providerToken: string): Promise<ProviderCard>
  detachPaymentMethod(providerPaymentMethodId: string): Promise<void>
  listPaymentMethods(providerCustomerId: string): Promise<ProviderCard[]>
}

export type PaymentProviderFailure = 'invalid_token' | 'declined' | 'unavailable'

/** A provider refusal or outage, already stripped of anything but the provider's own message. */
export class PaymentProviderError extends Error {
  constructor(
    readonly kind: PaymentProviderFailure,
    message: string,
  ) {
    super(message)
    this.name = 'PaymentProviderError'
  }
}

/** The problem a provider failure becomes: 400 for a bad token, 402 declined, 503 outage. */
export function providerProblem(error: PaymentProviderError, tokenPath = 'body/providerToken'): ApiError {
  switch (error.kind) {
    case 'invalid_token':
      return new ApiError('validation_failed', error.message, {
        errors: [{ path: tokenPath, message: error.message }],
      })
    case 'declined':
      return new ApiError('payment_required', error.message)
    case 'unavailable':
      return unavailable(`The payment provider is unavailable: ${error.message}`, 5)
  }
}

/**
 * True when text looks like a primary account number (13..19 digits, spaces or dashes allowed,
 * passing the Luhn check). Used to refuse a raw card number sent where a token belongs, so it is
 * never forwarded, stored or logged.
 */
export function looksLikeCardNumber(text: string): boolean {
  const digits = text.replace(/[\s-]/g, '')
  if (!/^\d{13,19}$/.test(digits)) return false
  let sum = 0
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48
    if (i % 2 === 1) {
      d *= 2
      if (d > 9) d -= 9
    }
    sum += d
  }
  return sum % 10 === 0
}
