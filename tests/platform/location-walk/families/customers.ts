import { newId } from '../../../../src/platform/foundation/ids'
import type { TenantFixture, TestApp } from '../../../harness'
import { made, type WalkFamily } from '../family'

const address = {
  label: 'shipping',
  name: 'Ada Lovelace',
  line1: '1 Vineyard Way',
  city: 'Napa',
  region: 'CA',
  postalCode: '94558',
  countryCode: 'US',
}

/** A customer with an address, a stored card (the sandbox provider's test token) and a tag. */
export async function madeCustomer(t: TestApp, tenant: TenantFixture) {
  const customer = await made(t, tenant, 'POST', '/customers', {
    firstName: 'Ada',
    lastName: 'Lovelace',
    email: `${newId()}@example.test`,
    addresses: [address],
  })
  const card = await made(t, tenant, 'POST', `/customers/${customer.id}/payment-methods`, {
    providerToken: 'tok_visa',
  })
  const tag = await made(t, tenant, 'POST', '/tag/customer', { title: `Regular ${newId()}` })
  await made(t, tenant, 'POST', `/customers/${customer.id}/tags`, { tagId: tag.id })
  return { id: customer.id, addressId: customer.addresses[0].id, paymentMethodId: card.id, tagId: tag.id }
}

export const customers: WalkFamily = {
  name: 'customers',
  prefixes: ['/customers', '/customer'],
  located: false,
  create: (t, tenant) => madeCustomer(t, tenant),
}
