import { made, type WalkFamily } from '../family'

/** A shipping configuration: the tenant's, at no location. */
export const shipping: WalkFamily = {
  name: 'shipping',
  prefixes: ['/shipping'],
  located: false,
  async create(t, tenant) {
    const configuration = await made(t, tenant, 'POST', '/shipping', {
      title: 'Walk',
      regions: [{ countryCode: 'US' }],
      services: [
        {
          title: 'Ground',
          code: 'GND',
          rates: [{ toWeight: 2, price: 800 }],
          topRate: { isWrapShipping: true },
        },
      ],
    })
    return { id: configuration.id }
  },
}
