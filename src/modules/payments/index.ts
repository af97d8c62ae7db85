import { family } from '../../platform/family'
import { lendToCash } from '../cash'
import { lendToOrders } from '../orders'
import { importedPayments, replaceImportedPayments } from './import'
import * as model from './model'
import { Payment } from './model'
import { paymentsOfShift } from './queries'
import { paymentMixRoutes, paymentRoutes } from './routes'

export const paymentsFamily = family({
  name: 'payments',
  tags: {
    Payments: 'Payments on orders: cash, card (authorize, capture, void), gift card; refunds.',
  },
  models: { payments: model },
  events: [
    {
      object: 'payment',
      readPermission: 'orders:read',
      actions: ['capture', 'authorize', 'fail', 'void', 'refund'],
      emittedBy: '`/order/{id}/payments` and its capture, void and refund routes',
      payload: 'the payment, with its refunds',
      schema: Payment,
    },
  ],
  hooks: () => {
    lendToCash({ paymentsOfShift })
    lendToOrders({ importedPayments, replaceImportedPayments })
  },
  routes: (platform) => [
    paymentRoutes(platform.auth, { provider: platform.payments }),
    paymentMixRoutes(platform.auth),
  ],
})

export { paymentExport } from './export'
// What the other families may use.
export { takeCardPayment, takeLocalPayment } from './take'
