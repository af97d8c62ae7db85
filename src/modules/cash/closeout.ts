// The closeout summary of the shift behind a drawer. The shift runs from the drawer opening to
// its pause or close (or now). It covers the orders at the drawer's location that were live in
// that span (created before its end, neither closed nor voided before its start), only those of
// the drawer's assigned staff user when it has one, plus any order whose cash went through the
// drawer; and their payments taken in the span, plus any still awaiting capture.
import { and, eq, isNotNull } from 'drizzle-orm'
import { nowIso } from '../../platform/foundation/ids'
import type { Queryable } from '../../platform/tenancy/transaction'
import { type OrderRow, ordersOfShift } from '../orders'
import { lentToCash, type ShiftPayment } from './lent'
import type { CloseoutSummaryView } from './model'
import { type DrawerRow, drawerEntries } from './schema'

const OPEN: readonly OrderRow['status'][] = ['draft', 'submitted']

type OrderFacts = Pick<OrderRow, 'id' | 'status'>
type PaymentFacts = ShiftPayment

export const blockingReasonCodes = {
  open_orders: 'orders still open (draft or submitted): settle or void them',
  unresolved_payments: 'card payments authorized but neither captured nor voided',
} as const

/** The summary arithmetic, pure, over the shift's orders and payments. */
export function summarize(
  shift: { shiftId: string; locationId: string; staffUserId: string | null; from: string; to: string },
  orderRows: readonly OrderFacts[],
  payments: readonly PaymentFacts[],
): CloseoutSummaryView {
  const openOrders = orderRows.filter((o) => OPEN.includes(o.status))
  const authorized = payments.filter((p) => p.status === 'authorized')
  const openIds = new Set(openOrders.map((o) => o.id))
  const tabs = new Set(authorized.filter((p) => openIds.has(p.orderId)).map((p) => p.orderId))
  const captured = payments.filter((p) => p.capturedAmount > 0)
  const total = (rows: readonly PaymentFacts[], f: (p: PaymentFacts) => number) =>
    rows.reduce((acc, p) => acc + f(p), 0)
  const gross = total(captured, (p) => p.capturedAmount)
  const refunded = total(captured, (p) => p.refundedAmount)
  const blockingReasons: string[] = []
  if (openOrders.length > 0) blockingReasons.push('open_orders')
  if (authorized.length > 0) blockingReasons.push('unresolved_payments')
  return {
    ...shift,
    orderIds: orderRows.map((o) => o.id),
    paymentIntentIds: payments.map((p) => p.id),
    openOrderIds: openOrders.map((o) => o.id),
    unresolvedPaymentIntentIds: authorized.map((p) => p.id),
    orderCount: orderRows.length,
    openOrderCount: openOrders.length,
    paidOpenCheckCount: orderRows.filter((o) => o.status === 'paid').length,
    authorizedPaymentCount: authorized.length,
    openTabCount: tabs.size,
    unresolvedPaymentCount: authorized.length,
    capturedPaymentCount: captured.length,
    refundedPaymentCount: captured.filter((p) => p.refundedAmount > 0).length,
    grossCapturedAmount: gross,
    grossRefundedAmount: refunded,
    netCapturedAmount: gross - refunded,
    tipAmount: total(captured, (p) => p.tipAmount),
    refundedTipAmount: total(captured, (p) => p.refundedTipAmount),
    blockingReasons,
    status: blockingReasons.length === 0 ? 'ready' : 'blocked',
  }
}

/** Live summary of a drawer's shift (the frozen one for a closed drawer). */
export function closeoutSummary(
  db: Queryable,
  drawer: DrawerRow,
  at: string = nowIso(),
): CloseoutSummaryView {
  if (drawer.state === 'closed' && drawer.closeoutSummary)
    return drawer.closeoutSummary as unknown as CloseoutSummaryView
  const from = drawer.openedAt
  const to = drawer.pausedAt ?? drawer.closedAt ?? at
  const viaDrawer = db
    .selectDistinct({ id: drawerEntries.orderId })
    .from(drawerEntries)
    .where(and(eq(drawerEntries.drawerId, drawer.id), isNotNull(drawerEntries.orderId)))
    .all()
    .map((r) => r.id!)
  const orderRows = ordersOfShift(db, {
    locationId: drawer.locationId,
    staffUserId: drawer.assignedStaffUserId,
    from,
    to,
    alsoIds: viaDrawer,
  })
  const payments = lentToCash('paymentsOfShift')(db, {
    drawerId: drawer.id,
    orderIds: orderRows.map((o) => o.id),
    from,
    to,
  })
  return summarize(
    { shiftId: drawer.id, locationId: drawer.locationId, staffUserId: drawer.assignedStaffUserId, from, to },
    orderRows,
    payments,
  )
}
