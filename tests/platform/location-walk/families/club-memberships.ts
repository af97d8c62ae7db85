import { newId } from '../../../../src/platform/foundation/ids'
import { made, type WalkFamily } from '../family'
import { madeCustomer } from './customers'

export const clubMemberships: WalkFamily = {
  name: 'club memberships',
  prefixes: ['/club-membership'],
  located: false,
  async create(t, tenant, locationId) {
    const customer = await madeCustomer(t, tenant)
    const club = await made(t, tenant, 'POST', '/club', { title: 'Reserve club', slug: newId() })
    const membership = await made(
      t,
      tenant,
      'POST',
      '/club-membership',
      {
        customerId: customer.id,
        clubId: club.id,
        orderDeliveryMethod: 'Pickup',
        customerCreditCardId: customer.paymentMethodId,
      },
      { 'x-location-id': locationId },
    )
    return { id: membership.id }
  },
}
