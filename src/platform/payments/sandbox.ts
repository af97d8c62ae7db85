// The embedded default provider: no network, no card data. It recognises the well-known test
// tokens of the Stripe documentation (tok_visa, pm_card_mastercard, ...) and answers with fake
// references (sandbox_cus_..., sandbox_pm_...), remembered in memory only so list can answer.
// tok_chargeCustomerFail behaves as Stripe's: the card saves, then every charge on it declines.
import { newId } from '../foundation/ids'
import { type PaymentProvider, PaymentProviderError, type ProviderCard } from './provider'

interface TestCard {
  brand: string
  last4: string
  declinesCharges?: true
}

const testCards: Record<string, TestCard | 'declined'> = {
  visa: { brand: 'visa', last4: '4242' },
  visa_debit: { brand: 'visa', last4: '5556' },
  mastercard: { brand: 'mastercard', last4: '4444' },
  amex: { brand: 'amex', last4: '8431' },
  discover: { brand: 'discover', last4: '1117' },
  diners: { brand: 'diners', last4: '0004' },
  jcb: { brand: 'jcb', last4: '0000' },
  unionpay: { brand: 'unionpay', last4: '0005' },
  chargeDeclined: 'declined',
  chargeCustomerFail: { brand: 'visa', last4: '0341', declinesCharges: true },
}

function cardFor(token: string) {
  const match = /^(?:tok|pm_card)_([A-Za-z_]+)$/.exec(token)
  return match ? testCards[match[1]!] : undefined
}

interface SandboxPayment {
  authorized: number
  captured: number
  refunded: number
  state: 'authorized' | 'captured' | 'canceled'
}

type SandboxCard = ProviderCard & Pick<TestCard, 'declinesCharges'>
const described = ({ declinesCharges: _, ...card }: SandboxCard): ProviderCard => card

export function sandboxProvider(): PaymentProvider {
  const cardsByCustomer = new Map<string, SandboxCard[]>()
  const payments = new Map<string, SandboxPayment>()
  /** Answers per idempotency key, as the real provider keeps them: a retry gets the first answer. */
  const answers = new Map<string, unknown>()
  const once = async <T>(key: string, work: () => T): Promise<T> => {
    if (answers.has(key)) return answers.get(key) as T
    const answer = work()
    answers.set(key, answer)
    return answer
  }
  const paymentOf = (id: string) => {
    const payment = payments.get(id)
    if (!payment) throw new PaymentProviderError('invalid_token', `No such payment: ${id}`)
    return payment
  }
  const storedCard = (id: string) => {
    for (const cards of cardsByCustomer.values()) {
      const card = cards.find((c) => c.providerPaymentMethodId === id)
      if (card) return card
    }
    return undefined
  }
  return {
    name: 'sandbox',
    authorizePayment(input) {
      return once(input.idempotencyKey, () => {
        const stored = storedCard(input.paymentMethod)
        const card = stored ?? cardFor(input.paymentMethod)
        if (card === 'declined' || card?.declinesCharges)
          throw new PaymentProviderError('declined', 'Your card was declined.')
        if (!card)
          throw new PaymentProviderError(
            'invalid_token',
            'The sandbox provider accepts the test tokens tok_visa, tok_mastercard, ... (tok_chargeDeclined declines; tok_chargeCustomerFail saves, then declines), or a stored sandbox card',
          )
        const providerPaymentId = `sandbox_pi_${newId()}`
        payments.set(providerPaymentId, {
          authorized: input.amount,
          captured: input.capture ? input.amount : 0,
          refunded: 0,
          state: input.capture ? 'captured' : 'authorized',
        })
        return {
          providerPaymentId,
          status: input.capture ? ('captured' as const) : ('authorized' as const),
          brand: card.brand,
          last4: card.last4,
        }
      })
    },
    capturePayment(providerPaymentId, amount, idempotencyKey) {
      return once(idempotencyKey, () => {
        const payment = paymentOf(providerPaymentId)
        if (payment.state !== 'authorized' || amount > payment.authorized)
          throw new PaymentProviderError('invalid_token', 'This payment cannot be captured for that amount')
        payment.captured = amount
        payment.state = 'captured'
      })
    },
    cancelPayment(providerPaymentId, idempotencyKey) {
      return once(idempotencyKey, () => {
        const payment = paymentOf(providerPaymentId)
        if (payment.state !== 'authorized')
          throw new PaymentProviderError('invalid_token', 'Only an uncaptured payment can be canceled')
        payment.state = 'canceled'
      })
    },
    refundPayment(providerPaymentId, amount, idempotencyKey) {
      return once(idempotencyKey, () => {
        const payment = paymentOf(providerPaymentId)
        if (payment.state !== 'captured' || amount > payment.captured - payment.refunded)
          throw new PaymentProviderError('invalid_token', 'The refund exceeds what was captured')
        payment.refunded += amount
        return { providerRefundId: `sandbox_re_${newId()}` }
      })
    },
    createCustomer(input) {
      return once(input.idempotencyKey, () => ({ providerCustomerId: `sandbox_cus_${newId()}` }))
    },
    async attachPaymentMethod(providerCustomerId, providerToken) {
      const card = cardFor(providerToken)
      if (card === 'declined') throw new PaymentProviderError('declined', 'Your card was declined.')
      if (!card)
        throw new PaymentProviderError(
          'invalid_token',
          'The sandbox provider accepts the test tokens tok_visa, tok_mastercard, tok_amex, tok_discover, ...',
        )
      const stored: SandboxCard = {
        providerPaymentMethodId: `sandbox_pm_${newId()}`,
        ...card,
        expMonth: 12,
        expYear: new Date().getUTCFullYear() + 3,
      }
      cardsByCustomer.set(providerCustomerId, [...(cardsByCustomer.get(providerCustomerId) ?? []), stored])
      return described(stored)
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
      return (cardsByCustomer.get(providerCustomerId) ?? []).map(described)
    },
  }
}
