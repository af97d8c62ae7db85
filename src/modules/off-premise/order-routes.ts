// The off-premise fulfilment flow of an order: /order/{id}/off-premise/..., located by the order.
import { Elysia } from 'elysia'
import type { AuthPlugin } from '../../platform/auth/plugin'
import type { Actor } from '../../platform/foundation/actor'
import type { MessageSender } from '../../platform/messaging/sender'
import type { Db } from '../../platform/tenancy/databases'
import { loadOrder, Order, OrderParams, orderLocated } from '../orders'
import {
  arriveForPickup,
  completePickup,
  deliverOrder,
  dispatchOrder,
  readyBatch,
  readyOrder,
  stageOrder,
} from './fulfilment'
import { sendPendingNotifications } from './notifications'
import { ArriveBody, DeliverBody, DispatchBody, EmptyBody, StageBody } from './order-model'

const FLOW =
  'Only for takeout, pickup, curbside and delivery orders that are `submitted` or `paid`; any other order, or a move the current state does not allow, is 409 with `currentStatus`, `stagingState`, `pickupState` and `deliveryState`. Staging: pending → staged → ready. Pickup: waiting → ready → completed, with the guest’s arrival (`arrived`) any time before completion. Delivery: pending → ready_for_dispatch → dispatched → delivered.'
const MESSAGES =
  'Guest messages queued by the step (when the location’s `guestMessagingEnabled` and the order’s `guestMessaging.enabled` allow) are sent through the service’s message sender before the response, and recorded in `offPremise.guestMessaging.notifications` with their status (`sent`, `failed` with `failureReason`, or `skipped` when the guest has no phone or email for the preferred channel).'

export const offPremiseOrderRoutes = (auth: AuthPlugin, messages: MessageSender) => {
  /** Sends what the step queued, then answers the order as it is after sending. */
  const settle = async (db: Db, actor: Actor, orderId: string, orderIds: string[] = [orderId]) => {
    await sendPendingNotifications(db, messages, actor, orderIds)
    return loadOrder(db, orderId)
  }
  return new Elysia({ name: 'off-premise-orders', prefix: '/order', detail: { tags: ['Off-premise'] } })
    .use(auth)
    .post('/:id/off-premise/stage', ({ db, actor, params, body }) => stageOrder(db, actor, params.id, body), {
      permission: 'orders:write',
      locatedBy: orderLocated,
      params: OrderParams,
      body: StageBody,
      response: Order,
      detail: {
        summary: 'Stage an off-premise order',
        description: `pending → staged, with where it waits. A \`batchId\` groups orders to be made ready together and needs the location’s \`batchReadyEnabled\` (else 409). ${FLOW}`,
      },
    })
    .post(
      '/:id/off-premise/ready',
      async ({ db, actor, params }) => {
        readyOrder(db, actor, params.id)
        return settle(db, actor, params.id)
      },
      {
        permission: 'orders:write',
        locatedBy: orderLocated,
        params: OrderParams,
        body: EmptyBody,
        response: Order,
        detail: {
          summary: 'Mark an off-premise order ready',
          description: `staged → ready (\`readyAt\`, \`readyBy\`): a pickup order becomes ready for the guest and queues \`order_ready\`; a delivery order becomes ready_for_dispatch. ${MESSAGES} ${FLOW}`,
        },
      },
    )
    .post(
      '/:id/off-premise/batch-ready',
      async ({ db, actor, params }) => {
        const { orderIds } = readyBatch(db, actor, params.id)
        return settle(db, actor, params.id, orderIds)
      },
      {
        permission: 'orders:write',
        locatedBy: orderLocated,
        params: OrderParams,
        body: EmptyBody,
        response: Order,
        detail: {
          summary: 'Mark an order’s whole staging batch ready',
          description: `Every staged order of the location in this order’s batch becomes ready at once with the same \`batchReadyAt\`; pickup orders queue \`batch_ready\` (template \`order_ready\`). Needs \`batchReadyEnabled\` and this order staged in a batch. Answers this order. ${MESSAGES} ${FLOW}`,
        },
      },
    )
    .post(
      '/:id/off-premise/arrive',
      ({ db, actor, params, body }) => arriveForPickup(db, actor, params.id, body),
      {
        permission: 'orders:write',
        locatedBy: orderLocated,
        params: OrderParams,
        body: ArriveBody,
        response: Order,
        detail: {
          summary: 'Record the guest’s arrival for pickup',
          description: `Pickup orders only, before they are picked up, once: \`arrivedAt\`, and for curbside (or when vehicle details are sent) the vehicle, spot and note. ${FLOW}`,
        },
      },
    )
    .post('/:id/off-premise/complete', ({ db, actor, params }) => completePickup(db, actor, params.id), {
      permission: 'orders:write',
      locatedBy: orderLocated,
      params: OrderParams,
      body: EmptyBody,
      response: Order,
      detail: {
        summary: 'Hand a pickup order to the guest',
        description: `The order must be ready: pickup becomes \`completed\` (\`completedAt\`). ${FLOW}`,
      },
    })
    .post(
      '/:id/off-premise/dispatch',
      async ({ db, actor, params, body }) => {
        dispatchOrder(db, actor, params.id, body)
        return settle(db, actor, params.id)
      },
      {
        permission: 'orders:write',
        locatedBy: orderLocated,
        params: OrderParams,
        body: DispatchBody,
        response: Order,
        detail: {
          summary: 'Dispatch a delivery order',
          description: `ready_for_dispatch → dispatched, to a staff driver (\`driverStaffUserId\`, an active staff user) or a courier (\`courierName\`), exactly one (else 400), as the location’s \`dispatchAssignmentMode\` allows (\`staff_drivers\` or \`couriers\` only: the other is 409). Records who dispatched and when, and queues \`out_for_delivery\`. ${MESSAGES} ${FLOW}`,
        },
      },
    )
    .post(
      '/:id/off-premise/deliver',
      async ({ db, actor, params, body }) => {
        deliverOrder(db, actor, params.id, body)
        return settle(db, actor, params.id)
      },
      {
        permission: 'orders:write',
        locatedBy: orderLocated,
        params: OrderParams,
        body: DeliverBody,
        response: Order,
        detail: {
          summary: 'Record a delivery',
          description: `dispatched → delivered (\`deliveredAt\`, \`deliveryNotes\`); queues \`order_delivered\`. ${MESSAGES} ${FLOW}`,
        },
      },
    )
}
