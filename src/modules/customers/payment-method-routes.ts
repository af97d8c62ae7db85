import { Elysia } from 'elysia'
import type { AuthPlugin } from '../../platform/auth/plugin'
import { idempotentCall } from '../../platform/http/idempotency'
import {
  AddPaymentMethod,
  CustomerParams,
  IdempotencyHeaders,
  PaymentMethod,
  PaymentMethodList,
  PaymentMethodParams,
} from './model'
import {
  addPaymentMethod,
  listPaymentMethods,
  type PaymentDeps,
  removePaymentMethod,
} from './payment-methods'

/** A customer's stored cards, under `/customers/{id}` and `/customer/{id}`. */
export const paymentMethodRoutes = (auth: AuthPlugin, deps: PaymentDeps, prefix: string) =>
  new Elysia({ name: `customer-payment-methods${prefix}`, prefix, detail: { tags: ['Customers'] } })
    .use(auth)
    .get('/:id/payment-methods', ({ db, params }) => listPaymentMethods(db, params.id), {
      permission: 'customers:read',
      params: CustomerParams,
      response: PaymentMethodList,
      detail: {
        summary: 'List stored cards',
        description:
          'Provider references, brand, last four digits and expiry only; the cards stay at the provider.',
      },
    })
    .post(
      '/:id/payment-methods',
      async ({ db, actor, params, body, headers, request, set }) => {
        const work = async () => ({
          status: 201,
          body: await addPaymentMethod(db, actor, deps, params.id, body.providerToken),
        })
        const key = headers['idempotency-key']
        const result = key
          ? await idempotentCall(
              db,
              actor,
              { key, method: 'POST', path: new URL(request.url).pathname, body },
              work,
            )
          : await work()
        set.status = result.status
        return result.body
      },
      {
        permission: 'customers:write',
        params: CustomerParams,
        headers: IdempotencyHeaders,
        body: AddPaymentMethod,
        response: { 201: PaymentMethod },
        detail: {
          summary: 'Store a card at the payment provider',
          'x-problems': ['payment_required'],
          description:
            'Attaches the card a provider token stands for to the customer’s account at the configured provider (created on first use) and stores only the provider’s customer and payment-method ids, brand, last four digits and expiry. The token itself is not kept. A card number sent as the token is refused (400) without being stored or forwarded; an unusable token is 400, a declined card 402, a provider outage 503.',
        },
      },
    )
    .delete(
      '/:id/payment-methods/:paymentMethodId',
      ({ db, actor, params }) => removePaymentMethod(db, actor, deps, params.id, params.paymentMethodId),
      {
        permission: 'customers:write',
        params: PaymentMethodParams,
        response: PaymentMethod,
        detail: {
          summary: 'Remove a stored card',
          'x-problems': ['payment_required'],
          description:
            'Detaches the card at the provider, then removes the reference; answers the removed card. Refused (409) while an active club membership charges it.',
        },
      },
    )
