import { made, type WalkFamily } from '../family'

/** A submitted takeout order at the location, whose off-premise flow can move. */
export const offPremiseOrders: WalkFamily = {
  name: 'off-premise orders',
  prefixes: ['/order/:id/off-premise'],
  located: true,
  async create(t, tenant, locationId) {
    const order = await made(t, tenant, 'POST', '/order', {
      locationId,
      fulfillmentMode: 'takeout',
      lineItems: [{ lineType: 'open_item', title: 'Water', unitPrice: 300, openItemScope: 'food' }],
    })
    await made(t, tenant, 'POST', `/order/${order.id}/submit`)
    return { id: order.id }
  },
}
