import { withMembers } from '../../platform/events/catalogue'
import { family } from '../../platform/family'
import { orderActionRoutes } from './action-routes'
import { registerOrdersHooks } from './hooks'
import * as model from './model'
import { Fulfillment, Order, OrderSettings } from './model'
import * as modelImport from './model-import'
import * as modelLines from './model-lines'
import * as modelOffPremise from './model-off-premise'
import { orderRoutes, orderSettingsRoutes } from './routes'

/** The off-premise steps an order goes through, each an `order` event (off-premise/fulfilment.ts). */
const OFF_PREMISE_STEPS = ['staged', 'ready', 'arrived', 'picked_up', 'dispatched', 'delivered'].map(
  (step) => `off_premise_${step}`,
)

export const ordersFamily = family({
  name: 'orders',
  tags: {
    Orders:
      'Orders and their lines, discounts and fulfillments through submit, void and close; tax settings per location.',
  },
  models: {
    orders: model,
    ordersImport: modelImport,
    ordersLines: modelLines,
    ordersOffPremise: modelOffPremise,
  },
  events: [
    {
      object: 'order',
      readPermission: 'orders:read',
      actions: ['create', 'update', 'submit', 'void', 'close', 'pay', 'refund', ...OFF_PREMISE_STEPS],
      emittedBy: '`/order` and its lines, discounts, lifecycle, payments and off-premise routes',
      payload: 'the order',
      schema: Order,
    },
    {
      object: 'order',
      readPermission: 'orders:read',
      actions: ['fulfill'],
      emittedBy: '`POST /order/{id}/fulfillment`, `.../fulfillment/all`',
      payload: 'the order, plus `fulfillment` (the new one)',
      schema: withMembers(Order, { fulfillment: Fulfillment }),
    },
    {
      object: 'order_settings',
      readPermission: 'orders:read',
      actions: ['update'],
      emittedBy: '`PUT /order-settings`',
      payload: 'the settings',
      schema: OrderSettings,
    },
  ],
  hooks: registerOrdersHooks,
  routes: (platform) => [
    orderRoutes(platform.auth),
    orderActionRoutes(platform.auth, platform.messages),
    orderSettingsRoutes(platform.auth),
  ],
})

// What the other families may use.
export { applyCoupon } from './discounts'
export { orderExport } from './export'
export { importOrder } from './import'
export { closeOrder, recordOrderPayment, recordOrderRefund, submitOrder } from './lifecycle'
export type { OrderView } from './model'
export { Order, OrderParams } from './model'
export {
  ImportedOrder,
  type ImportedOrderInput,
  MAX_IMPORTED_LINES,
  MAX_IMPORTED_PAYMENTS,
} from './model-import'
export type { OffPremiseInputValue, OffPremiseView } from './model-off-premise'
export { assertStatus, OPEN_STATUSES } from './mutation'
export { createOrder, putLocationTaxPlace } from './orders'
export { type ImportedPaymentRecord, lendToOrders, type ShipTo } from './others'
export {
  liveVariantLines,
  orderIdsInStatus,
  orderIdsWithin,
  ordersOfShift,
  ordersOpenedBetween,
} from './queries'
export type { OrderLineRow, OrderRow } from './schema'
export { getOrderRow, loadOrder, orderLocated } from './view'
