import { newId } from '../../../../src/platform/ids'
import { made, type WalkFamily } from '../family'

export const giftCards: WalkFamily = {
  name: 'gift cards',
  prefixes: ['/gift-card'],
  located: false,
  async create(t, tenant, locationId) {
    const card = await made(t, tenant, 'POST', '/gift-card', {
      title: 'Holiday card',
      type: 'Virtual',
      code: newId(),
      initialAmount: 5000,
      originLocationId: locationId,
      activate: true,
    })
    const load = await made(t, tenant, 'POST', `/gift-card/${card.id}/load`, { amount: 2500, locationId })
    return { id: card.id, transactionId: load.transaction.id }
  },
}
