import { made, type WalkFamily } from '../family'

/** A cash payment on an order at the location, into a drawer opened there for it. */
export const payments: WalkFamily = {
  name: 'payments',
  prefixes: ['/order/:id/payments'],
  located: true,
  async create(t, tenant, locationId) {
    const order = await made(t, tenant, 'POST', '/order', {
      locationId,
      lineItems: [{ lineType: 'open_item', title: 'Dinner', unitPrice: 3_000, openItemScope: 'food' }],
    })
    const drawer = await made(t, tenant, 'POST', '/cash-management/drawers', {
      locationId,
      label: 'Walk',
      startingBalance: 10_000,
    })
    const payment = await made(
      t,
      tenant,
      'POST',
      `/order/${order.id}/payments`,
      { tender: 'cash', amount: 1_000, drawerId: drawer.id },
      { 'idempotency-key': `walk-${order.id}` },
    )
    return { id: order.id, paymentId: payment.id }
  },
}
