import { made, type WalkFamily } from '../family'

let fixtures = 0

/** An order at the location with a catalog line, a coupon discount, a service charge and one fulfillment. */
export const orders: WalkFamily = {
  name: 'orders',
  prefixes: ['/order'],
  located: true,
  async create(t, tenant, locationId) {
    const sku = `WALK-${++fixtures}`
    await made(t, tenant, 'POST', '/product', {
      title: 'Walk bottle',
      type: 'Wine',
      variants: [{ title: 'Bottle', sku, price: 2_000 }],
    })
    const coupon = await made(t, tenant, 'POST', '/coupon', { title: `Walk ${fixtures}` })
    const order = await made(t, tenant, 'POST', '/order', { locationId, lineItems: [{ sku, quantity: 2 }] })
    const discounted = await made(t, tenant, 'POST', `/order/${order.id}/discount`, {
      couponCode: coupon.code,
    })
    const charged = await made(t, tenant, 'POST', `/order/${order.id}/service-charges`, {
      title: 'Walk service charge',
      chargeType: 'percent',
      value: 1800,
    })
    await made(t, tenant, 'POST', `/order/${order.id}/submit`)
    const fulfilled = await made(t, tenant, 'POST', `/order/${order.id}/fulfillment`, {
      type: 'Carry Out',
      fulfillmentDate: '2031-03-14',
      packageCount: 1,
      sendTransactionEmail: false,
      items: [{ sku, quantityFulfilled: 1 }],
    })
    return {
      id: order.id,
      lineId: order.lineItems[0].id,
      discountId: discounted.appliedDiscounts[0].id,
      fulfillmentId: fulfilled.fulfillments[0].id,
      serviceChargeId: charged.serviceCharges[0].id,
    }
  },
}
