// The transaction email of a fulfillment recorded with `sendTransactionEmail`: once the
// fulfillment has committed, one email to the order's customer through the platform's message
// sender (the one gift card delivery and off-premise notices use). The outcome is audited on the
// order (`order.fulfillment.email`): `sent`, `failed` with the sender's reason, or `skipped` when
// the order has no customer with an email address. A failed email does not undo the fulfillment.
import { recordWrite } from '../../platform/audit/record-write'
import type { Actor } from '../../platform/foundation/actor'
import { MessageSendError, type MessageSender } from '../../platform/messaging/sender'
import type { Db } from '../../platform/tenancy/databases'
import { inWriteTransaction } from '../../platform/tenancy/transaction'
import type { OrderView } from './model'
import { others } from './others'

type FulfillmentView = OrderView['fulfillments'][number]

const verbs: Record<FulfillmentView['type'], string> = {
  Shipped: 'shipped',
  'Picked Up': 'picked up',
  'Carry Out': 'handed over',
  'Local Delivery': 'delivered',
}

function emailText(name: string, order: OrderView, fulfillment: FulfillmentView): string {
  const items = fulfillment.items.map((i) => `- ${i.sku} x ${i.quantityFulfilled}`).join('\n')
  const tracking = fulfillment.shipped?.trackingNumbers.length
    ? `\nTracking: ${fulfillment.shipped.trackingNumbers.join(', ')}${fulfillment.shipped.carrier ? ` (${fulfillment.shipped.carrier})` : ''}`
    : ''
  return `Hi ${name},\n\nItems of your order #${order.orderNumber} were ${verbs[fulfillment.type]} on ${fulfillment.fulfillmentDate}:\n${items}${tracking}\n`
}

/** Sends the email of the order's latest fulfillment when it asks for one; answers the order. */
export async function withFulfillmentEmail(
  db: Db,
  actor: Actor,
  sender: MessageSender,
  order: OrderView,
): Promise<OrderView> {
  const fulfillment = order.fulfillments.at(-1)
  if (!fulfillment?.sendTransactionEmail) return order
  const customer = order.customerId ? others.findCustomer(db, order.customerId) : undefined
  let outcome: Record<string, unknown>
  if (!customer?.email) outcome = { status: 'skipped', reason: 'no customer email address on the order' }
  else
    try {
      const sent = await sender.send(db, {
        channel: 'email',
        to: customer.email,
        subject: `Your order #${order.orderNumber} was ${verbs[fulfillment.type]}`,
        text: emailText(customer.name, order, fulfillment),
        category: 'order_fulfillment',
      })
      outcome = { status: 'sent', to: customer.email, ...sent }
    } catch (error) {
      if (!(error instanceof MessageSendError)) throw error
      outcome = { status: 'failed', to: customer.email, provider: error.provider, reason: error.message }
    }
  inWriteTransaction(db, (tx) =>
    recordWrite(tx, actor, {
      action: 'order.fulfillment.email',
      entityType: 'order',
      entityId: order.id,
      metadata: { fulfillmentId: fulfillment.id, ...outcome },
    }),
  )
  return order
}
