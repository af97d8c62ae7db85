// The `offPremise` block of orders (orders/model-off-premise.ts), loaded in one query per table
// for any number of orders: what off-premise lends orders as their offPremiseBlocks (hooks.ts).
import { groupBy, rowsWhereIn } from '../../platform/tenancy/table-rows'
import type { Queryable } from '../../platform/tenancy/transaction'
import type { OffPremiseView } from '../orders'
import {
  type OffPremiseNotificationRow,
  type OrderOffPremiseRow,
  offPremiseNotifications,
  orderOffPremise,
} from './schema'

export function presentOffPremise(
  row: OrderOffPremiseRow,
  notifications: OffPremiseNotificationRow[],
): OffPremiseView {
  return {
    channel: row.channel,
    customer: row.customer,
    quote: row.quote,
    readyAt: row.readyAt,
    staging: row.staging,
    guestMessaging: {
      ...row.guestMessaging,
      notifications: notifications.map((n) => ({
        id: n.id,
        event: n.event,
        template: n.template,
        channel: n.channel,
        status: n.status,
        recipient: n.recipient,
        subject: n.subject,
        body: n.body,
        updatedAt: n.updatedAt,
        sentAt: n.sentAt,
        failureReason: n.failureReason,
      })),
    },
    pickup: row.pickup ?? null,
    delivery: row.delivery ?? null,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  }
}

/** The off-premise block of each of the orders that has one (list pages ask for fifty at once). */
export function offPremiseViews(db: Queryable, orderIds: string[]): Map<string, OffPremiseView> {
  const views = new Map<string, OffPremiseView>()
  const rows = rowsWhereIn<OrderOffPremiseRow>(db, orderOffPremise, orderOffPremise.orderId, orderIds)
  if (rows.length === 0) return views
  const notifications = groupBy(
    rowsWhereIn<OffPremiseNotificationRow>(
      db,
      offPremiseNotifications,
      offPremiseNotifications.orderId,
      rows.map((r) => r.orderId),
      [offPremiseNotifications.createdAt, offPremiseNotifications.id],
    ),
    (n) => n.orderId,
  )
  for (const row of rows) views.set(row.orderId, presentOffPremise(row, notifications.get(row.orderId) ?? []))
  return views
}
