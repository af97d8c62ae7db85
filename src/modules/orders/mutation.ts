// One shape for every change to an order: one write transaction that checks the order's status,
// makes the change, reprices, and records the audit entry and the outbox event.
import { recordWrite } from '../../platform/audit/record-write'
import type { Actor } from '../../platform/foundation/actor'
import { conflict } from '../../platform/foundation/problem'
import type { Db } from '../../platform/tenancy/databases'
import { inWriteTransaction, type Queryable } from '../../platform/tenancy/transaction'
import type { OrderView } from './model'
import { repriceOrder } from './reprice'
import type { OrderRow, OrderStatus } from './schema'
import { getOrderRow, loadOrder } from './view'

/** Orders whose lines, discounts and header may still change. */
export const OPEN_STATUSES: readonly OrderStatus[] = ['draft', 'submitted']

export function assertStatus(order: OrderRow, allowed: readonly OrderStatus[], doing: string): void {
  if (!allowed.includes(order.status))
    throw conflict(
      `cannot ${doing} an order that is ${order.status} (allowed when ${allowed.join(' or ')})`,
      {
        currentStatus: order.status,
        allowedStatuses: allowed,
      },
    )
}

export interface OrderChange {
  /** Audit action, e.g. `order.line.add`. */
  action: string
  /** Outbox action on object `order`: `update`, `submit`, `void`, `fulfill`... */
  event: string
  allowed: readonly OrderStatus[]
  /** Verb phrase for the refusal message: "add lines to". */
  doing: string
  /** Audit metadata beside the order id. */
  metadata?: (result: OrderView) => Record<string, unknown>
  /** Runs after repricing, with the repriced header: status moves that depend on the new totals. */
  settle?: (tx: Queryable, repriced: OrderRow) => void
  /** Details of the change its event carries beside the order (a refund's parts). */
  eventDetails?: (details: Record<string, unknown>) => Record<string, unknown>
}

/** Runs `work` inside one write transaction on an order, then reprices, audits and emits. */
export function changeOrder(
  db: Db,
  actor: Actor,
  orderId: string,
  change: OrderChange,
  work: (tx: Queryable, order: OrderRow) => Record<string, unknown> | undefined,
): OrderView {
  return inWriteTransaction(db, (tx) => {
    const order = getOrderRow(tx, orderId)
    assertStatus(order, change.allowed, change.doing)
    const details = work(tx, order) ?? {}
    const before = { total: order.total, balanceDue: order.balanceDue }
    const after = repriceOrder(tx, orderId)
    change.settle?.(tx, after)
    const view = loadOrder(tx, orderId)
    recordWrite(tx, actor, {
      action: change.action,
      entityType: 'order',
      entityId: orderId,
      metadata: {
        orderNumber: order.orderNumber,
        ...details,
        ...change.metadata?.(view),
        totals: { before, after: { total: after.total, balanceDue: after.balanceDue } },
      },
      events: [
        {
          object: 'order',
          action: change.event,
          aggregateId: orderId,
          payload: { ...view, ...change.eventDetails?.(details) },
        },
      ],
    })
    return view
  })
}
