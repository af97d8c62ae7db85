// The embedded default provider: no network, no card data. It recognises the well-known test
// tokens of the Stripe documentation (tok_visa, pm_card_mastercard, ...) and answers with fake
// references (sandbox_cus_..., sandbox_pm_...), remembered in memory only so list can answer.
import { newId } from '../ids'
import { type PaymentProvider, PaymentProviderError, type ProviderCard } from './provider'

const testCards: Record<string, { brand: string; last4: string } | 'declined'> = {
  visa: { brand: 'visa', last4: '4242' },
  visa_debit: { brand: 'visa', last4: '5556' },
  mastercard: { brand: 'mastercard', last4: '4444' },
  amex: { brand: 'amex', last4: '8431' },
  discover: { brand: 'discover', last4: '1117' },
  diners: { brand: 'diners', last4: '0004' },
  jcb: { brand: 'jcb', last4: '0000' },
  unionpay: { brand: 'unionpay', last4: '0005' },
  chargeDeclined: 'declined',
}

function cardFor(token: string) {
  const match = /^(?:tok|pm_card)_([A-Za-z_]+)$/.exec(token)
  return match ? testCards[match[1]!] : undefined
}

export function sandboxProvider(): PaymentProvider {
  const cardsByCustomer = new Map<string, ProviderCard[]>()
  return {
    name: 'sandbox',
    async createCustomer() {
      return { providerCustomerId: `sandbox_cus_${newId()}` }
    },
    async attachPaymentMethod(providerCustomerId, providerToken) {
      const card = cardFor(providerToken)
      if (card === 'declined') throw new PaymentProviderError('declined', 'Your card was declined.')
      if (!card)
        throw new PaymentProviderError(
          'invalid_token',
          'The sandbox provider accepts the test tokens tok_visa, tok_mastercard, tok_amex, tok_discover, ...',
        )
      const stored: ProviderCard = {
        providerPaymentMethodId: `sandbox_pm_${newId()}`,
        ...card,
        expMonth: 12,
        expYear: new Date().getUTCFullYear() + 3,
      }
      cardsByCustomer.set(providerCustomerId, [...(cardsByCustomer.get(providerCustomerId) ?? []), stored])
      return stored
    },
    async detachPaymentMethod(providerPaymentMethodId) {
      for (const [customer, cards] of cardsByCustomer) {
        cardsByCustomer.set(
          customer,
          cards.filter((c) => c.providerPaymentMethodId !== providerPaymentMethodId),
        )
      }
    },
    async listPaymentMethods(providerCustomerId) {
      return [...(cardsByCustomer.get(providerCustomerId) ?? [])]
    },
  }
}
