import { made, type WalkFamily } from '../family'

export const shipping: WalkFamily = {
  name: 'shipping configurations',
  // Only the configurations: /shipping/off-premise/... is the off-premise family's.
  prefixes: ['/shipping/:id'],
  located: false,
  async create(t, tenant) {
    const config = await made(t, tenant, 'POST', '/shipping', {
      title: 'Ground',
      regions: [{ countryCode: 'US', stateCode: 'CA' }],
      services: [
        {
          title: 'Ground',
          code: 'ground',
          rates: [{ toWeight: 10, price: 1500 }],
          topRate: { isWrapShipping: true },
        },
      ],
    })
    return { id: config.id }
  },
}
