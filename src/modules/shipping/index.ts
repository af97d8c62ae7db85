import { CRUD } from '../../platform/events/catalogue'
import { family } from '../../platform/family'
import { registerShippingHooks } from './hooks'
import * as model from './model'
import { ShippingConfiguration } from './model'
import { orderShippingRoutes, shippingRoutes } from './routes'

export const shippingFamily = family({
  name: 'shipping',
  tags: {
    Shipping: 'Shipping configurations and rates.',
  },
  models: { shipping: model },
  events: [
    {
      object: 'shipping',
      readPermission: 'shipping:read',
      actions: CRUD,
      emittedBy: '`/shipping`',
      payload: 'the shipping configuration',
      schema: ShippingConfiguration,
    },
  ],
  hooks: registerShippingHooks,
  routes: (platform) => [shippingRoutes(platform.auth), orderShippingRoutes(platform.auth)],
})
