import { t } from 'elysia'
import { CRUD } from '../../platform/events/catalogue'
import { family } from '../../platform/family'
import * as model from './model'
import { Customer, CustomerAlias, PaymentMethod } from './model'
import { customerRoutes } from './routes'

export const customersFamily = family({
  name: 'customers',
  tags: {
    Customers:
      'Customers with their addresses, tags, stored payment methods and merges (`/customer` and `/customers` are the same).',
  },
  models: { customers: model },
  events: [
    {
      object: 'customer',
      readPermission: 'customers:read',
      actions: CRUD,
      emittedBy: '`/customers`, `/customer`, their addresses and tags',
      payload: 'the customer',
      schema: Customer,
    },
    {
      object: 'customer',
      readPermission: 'customers:read',
      actions: ['merge'],
      emittedBy: '`POST /customers/merge` (one event, on the primary)',
      payload: '`{customer, aliases, moved: {sourceId: {kind: count}}}`',
      schema: t.Object({
        customer: Customer,
        aliases: t.Array(CustomerAlias),
        moved: t.Record(t.String(), t.Record(t.String(), t.Integer())),
      }),
    },
    {
      object: 'customer_payment_method',
      readPermission: 'customers:read',
      formerly: { object: 'customer-payment-method' },
      actions: ['create', 'delete'],
      emittedBy: '`/customers/{id}/payment-methods` (`aggregateId` is the customer)',
      payload: 'the stored card',
      schema: PaymentMethod,
    },
  ],
  routes: (platform) => [customerRoutes(platform.auth, platform)],
})

export { customerExport } from './export'
// What the other families may use.
export { importCustomer } from './import'
export { type ImportedCard, importPaymentMethod } from './imported-cards'
export { Customer, ImportedCustomer, type ImportedCustomerInput } from './model'
export {
  addressesOfCustomer,
  customerIdsByExternalRef,
  customerIdsMatching,
  customersByExternalRef,
  customersByIds,
  findAddress,
  findCustomerAddress,
  findCustomerPaymentMethod,
} from './queries'
export {
  registerCustomerLocationLink,
  registerCustomerReferenceCount,
  registerCustomerReferenceMover,
  registerPaymentMethodUse,
} from './references'
export type { AddressRow, PaymentMethodRow } from './schema'
export { createCustomer, customerViews, findCustomerRow, resolveCustomerId } from './service'
