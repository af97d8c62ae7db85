import { made, type WalkFamily } from '../family'

let fixtures = 0

/** A note about an order at the location: it lives where the order does (notes about no order are the business's). */
export const notes: WalkFamily = {
  name: 'notes',
  prefixes: ['/note'],
  located: true,
  async create(t, tenant, locationId) {
    const sku = `NOTE-${++fixtures}`
    await made(t, tenant, 'POST', '/product', {
      title: 'Noted bottle',
      type: 'Wine',
      variants: [{ title: 'Bottle', sku, price: 1_800 }],
    })
    const order = await made(t, tenant, 'POST', '/order', { locationId, lineItems: [{ sku, quantity: 1 }] })
    const note = await made(t, tenant, 'POST', '/note', {
      content: 'Called back',
      noteDate: '2031-03-14',
      orderId: order.id,
    })
    return { id: note.id }
  },
}
