import { CRUD } from '../../platform/events/catalogue'
import { family } from '../../platform/family'
import * as model from './model'
import { Vendor } from './model'
import { vendorRoutes } from './routes'

export const vendorsFamily = family({
  name: 'vendors',
  tags: {
    Vendors: 'Suppliers the business buys from.',
  },
  models: { vendors: model },
  events: [
    {
      object: 'vendor',
      readPermission: 'vendors:read',
      actions: CRUD,
      emittedBy: '`/vendor`',
      payload: 'the vendor',
      schema: Vendor,
    },
  ],
  routes: (platform) => [vendorRoutes(platform.auth)],
})

// What the other families may use.
export { createVendor, findVendor } from './service'
