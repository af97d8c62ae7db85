import { CRUD } from '../../platform/events/catalogue'
import { family } from '../../platform/family'
import * as model from './model'
import { Tax } from './model'
import { taxRoutes } from './routes'

export const taxesFamily = family({
  name: 'taxes',
  tags: {
    Taxes: 'Tax rates by country and state.',
  },
  models: { taxes: model },
  events: [
    {
      object: 'tax',
      readPermission: 'taxes:read',
      actions: CRUD,
      emittedBy: '`/tax`',
      payload: 'the tax',
      schema: Tax,
    },
  ],
  routes: (platform) => [taxRoutes(platform.auth)],
})

// What the other families may use.
export { taxRateFor } from './rates'
export { createTax } from './service'
