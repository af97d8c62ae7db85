// After a payment is taken: capture or void a card authorization, refund a captured payment
// (in part or in full, never more than was captured and not yet refunded).
import { eq } from 'drizzle-orm'
import { recordWrite } from '../../platform/audit/record-write'
import { assertReaches, type LocationScope } from '../../platform/auth/location-scope'
import type { Actor } from '../../platform/foundation/actor'
import { newId, nowIso } from '../../platform/foundation/ids'
import { conflict, invalid } from '../../platform/foundation/problem'
import { PaymentProviderError, providerProblem } from '../../platform/payments/provider'
import type { Db } from '../../platform/tenancy/databases'
import { inWriteTransaction, type Queryable } from '../../platform/tenancy/transaction'
import { appendDrawerEntry, findDrawerRow } from '../cash'
import { adjustGiftCard, voidRedemption } from '../gift-cards'
import {
  assertStatus as assertOrderStatus,
  getOrderRow,
  OPEN_STATUSES,
  recordOrderPayment,
  recordOrderRefund,
} from '../orders'
import type { CapturePaymentInput, PaymentView, RefundPaymentInput } from './model'
import { type PaymentRow, type PaymentStatus, paymentIntents, paymentRefunds } from './schema'
import { cashDrawerAt, type PaymentDeps, providerKey } from './take'
import { getPaymentRow, loadPayment } from './view'

function assertPaymentStatus(payment: PaymentRow, allowed: PaymentStatus[], doing: string) {
  if (!allowed.includes(payment.status))
    throw conflict(`cannot ${doing} a ${payment.status} payment (allowed when ${allowed.join(' or ')})`, {
      currentStatus: payment.status,
      allowedStatuses: allowed,
    })
}

async function atProvider<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  } catch (error) {
    if (error instanceof PaymentProviderError) throw providerProblem(error, 'providerPaymentId')
    throw error
  }
}

/** Moves a payment on (`capture`, `void`, `refund`): the row, then its audit entry and event. */
function changePayment(
  tx: Queryable,
  actor: Actor,
  payment: PaymentRow,
  verb: 'capture' | 'void' | 'refund',
  changes: Partial<PaymentRow>,
  metadata: Record<string, unknown>,
): PaymentRow {
  const row = tx
    .update(paymentIntents)
    .set({ ...changes, updatedAt: nowIso() })
    .where(eq(paymentIntents.id, payment.id))
    .returning()
    .get()
  recordWrite(tx, actor, {
    action: `payment.${verb}`,
    entityType: 'payment',
    entityId: payment.id,
    metadata: {
      orderId: payment.orderId,
      tender: payment.tender,
      from: payment.status,
      to: row.status,
      ...metadata,
    },
    event: loadPayment(tx, payment.orderId, payment.id),
  })
  return row
}

/**
 * authorized → captured: captures amount + tip (the tip may change here, within the authorized
 * amount) and records it on the order, which moves its balance and status.
 */
export async function capturePayment(
  db: Db,
  actor: Actor,
  deps: PaymentDeps,
  orderId: string,
  paymentId: string,
  input: CapturePaymentInput,
  idempotencyKey: string,
): Promise<PaymentView> {
  const payment = getPaymentRow(db, orderId, paymentId)
  assertPaymentStatus(payment, ['authorized'], 'capture')
  const tipAmount = input.tipAmount ?? payment.tipAmount
  const total = payment.amount + tipAmount
  if (total > payment.authorizedAmount)
    throw invalid(
      'body/tipAmount',
      `amount + tip (${total}) exceeds the ${payment.authorizedAmount} cents authorized: authorize the tip allowance up front`,
    )
  assertOrderStatus(getOrderRow(db, orderId), OPEN_STATUSES, 'take payments on')
  const key = providerKey(actor, paymentId, 'capture', idempotencyKey)
  await atProvider(() => deps.provider.capturePayment(payment.providerPaymentId!, total, key))
  try {
    return inWriteTransaction(db, (tx) => {
      const current = getPaymentRow(tx, orderId, paymentId)
      assertPaymentStatus(current, ['authorized'], 'capture')
      changePayment(
        tx,
        actor,
        current,
        'capture',
        { status: 'captured', tipAmount, capturedAmount: total, capturedAt: nowIso() },
        { amount: current.amount, tipAmount, capturedAmount: total },
      )
      recordOrderPayment(db, actor, {
        orderId,
        paymentIntentId: paymentId,
        amount: current.amount,
        tipAmount,
      })
      return loadPayment(tx, orderId, paymentId)
    })
  } catch (error) {
    await deps.provider.refundPayment(payment.providerPaymentId!, total, `${key}:undo`)
    throw error
  }
}

/** authorized → voided: the hold is released; the order never saw the money. */
export async function voidPayment(
  db: Db,
  actor: Actor,
  deps: PaymentDeps,
  orderId: string,
  paymentId: string,
  reason: string | null | undefined,
  idempotencyKey: string,
): Promise<PaymentView> {
  const payment = getPaymentRow(db, orderId, paymentId)
  assertPaymentStatus(payment, ['authorized'], 'void')
  await atProvider(() =>
    deps.provider.cancelPayment(
      payment.providerPaymentId!,
      providerKey(actor, paymentId, 'void', idempotencyKey),
    ),
  )
  return inWriteTransaction(db, (tx) => {
    const current = getPaymentRow(tx, orderId, paymentId)
    assertPaymentStatus(current, ['authorized'], 'void')
    changePayment(
      tx,
      actor,
      current,
      'void',
      { status: 'voided', voidedAt: nowIso() },
      { reason: reason ?? null },
    )
    return loadPayment(tx, orderId, paymentId)
  })
}

/** What a refund request asks for, checked against what is left: 409 beyond it. */
export function refundAmounts(payment: PaymentRow, input: RefundPaymentInput) {
  const leftTip = payment.tipAmount - payment.refundedTipAmount
  const leftAmount =
    payment.capturedAmount - payment.tipAmount - (payment.refundedAmount - payment.refundedTipAmount)
  const whole = input.amount === undefined && input.tipAmount === undefined
  const amount = whole ? leftAmount : (input.amount ?? 0)
  const tipAmount = whole ? leftTip : (input.tipAmount ?? 0)
  if (amount + tipAmount === 0)
    throw invalid('body/amount', 'a refund returns something: amount or tipAmount above 0')
  if (amount > leftAmount || tipAmount > leftTip)
    throw conflict(
      `the refund of ${amount} + ${tipAmount} tip exceeds what is left to refund (${leftAmount} + ${leftTip} tip)`,
      {
        currentStatus: payment.status,
        capturedAmount: payment.capturedAmount,
        refundedAmount: payment.refundedAmount,
        refundableAmount: payment.capturedAmount - payment.refundedAmount,
        refundableTipAmount: leftTip,
      },
    )
  return { amount, tipAmount }
}

/** The local half of a refund: the refund row, the payment's totals, the drawer or card, the order. */
function bookRefund(
  db: Db,
  actor: Actor,
  locations: LocationScope,
  payment: PaymentRow,
  input: RefundPaymentInput,
  refund: { amount: number; tipAmount: number },
  providerRefundId: string | null,
): PaymentView {
  return inWriteTransaction(db, (tx) => {
    const current = getPaymentRow(tx, payment.orderId, payment.id)
    assertReaches(locations, current.locationId)
    assertPaymentStatus(current, ['captured'], 'refund')
    refundAmounts(current, { amount: refund.amount, tipAmount: refund.tipAmount })
    const total = refund.amount + refund.tipAmount
    let drawerId: string | null = null
    if (current.tender === 'cash') {
      const original = current.drawerId ? findDrawerRow(tx, current.drawerId) : undefined
      const drawer = cashDrawerAt(
        tx,
        actor,
        locations,
        current.locationId,
        input.drawerId ?? (original?.state === 'open' ? original.id : null),
      )
      drawerId = drawer.id
      appendDrawerEntry(tx, actor, drawer.id, {
        entryType: 'cash_out',
        amount: total,
        reason: 'refund',
        comment: input.reason ?? null,
        paymentIntentId: current.id,
        orderId: current.orderId,
        payload: { tipAmount: refund.tipAmount },
      })
    } else if (current.tender === 'gift_card') {
      // An imported payment (import.ts) is history: it names no card to give the money back to.
      if (current.giftCardId === null)
        throw conflict('the gift card payment was imported and names no card: refund it another way', {
          paymentIntentId: current.id,
        })
      if (total === current.capturedAmount && current.refundedAmount === 0)
        voidRedemption(tx, actor, { paymentReference: current.id, reason: input.reason ?? 'refund' })
      else
        adjustGiftCard(tx, actor, current.giftCardId!, {
          amountDelta: total,
          reason: `refund of payment ${current.id}${input.reason ? `: ${input.reason}` : ''}`,
          locationId: current.locationId,
        })
    }
    const now = nowIso()
    const refundId = newId()
    tx.insert(paymentRefunds)
      .values({
        id: refundId,
        paymentIntentId: current.id,
        amount: refund.amount,
        tipAmount: refund.tipAmount,
        reason: input.reason ?? null,
        providerRefundId,
        drawerId,
        createdByStaffUserId: actor.staffUserId,
        createdAt: now,
      })
      .run()
    const refundedAmount = current.refundedAmount + total
    changePayment(
      tx,
      actor,
      current,
      'refund',
      {
        refundedAmount,
        refundedTipAmount: current.refundedTipAmount + refund.tipAmount,
        status: refundedAmount === current.capturedAmount ? 'refunded' : 'captured',
        refundedAt: now,
      },
      { refundId, ...refund, reason: input.reason ?? null, drawerId },
    )
    recordOrderRefund(db, actor, {
      orderId: current.orderId,
      paymentIntentId: current.id,
      ...refund,
    })
    return loadPayment(tx, current.orderId, current.id)
  })
}

/** Cash and gift card refunds: one transaction. */
export function refundLocalPayment(
  db: Db,
  actor: Actor,
  locations: LocationScope,
  orderId: string,
  paymentId: string,
  input: RefundPaymentInput,
) {
  return inWriteTransaction(db, (tx) => {
    const payment = getPaymentRow(tx, orderId, paymentId)
    assertPaymentStatus(payment, ['captured'], 'refund')
    if (input.drawerId && payment.tender !== 'cash')
      throw invalid('body/drawerId', 'only cash refunds go through a drawer')
    return bookRefund(db, actor, locations, payment, input, refundAmounts(payment, input), null)
  })
}

/** Card refunds: at the provider first, then recorded. */
export async function refundCardPayment(
  db: Db,
  actor: Actor,
  locations: LocationScope,
  deps: PaymentDeps,
  orderId: string,
  paymentId: string,
  input: RefundPaymentInput,
  idempotencyKey: string,
): Promise<PaymentView> {
  const payment = getPaymentRow(db, orderId, paymentId)
  assertPaymentStatus(payment, ['captured'], 'refund')
  if (input.drawerId) throw invalid('body/drawerId', 'only cash refunds go through a drawer')
  // An imported payment (import.ts) may name no payment at the provider, or another provider's.
  if (payment.providerPaymentId === null || (payment.provider ?? deps.provider.name) !== deps.provider.name)
    throw conflict(
      `the card payment names no payment at ${deps.provider.name} (it was imported): refund it another way`,
      { paymentIntentId: payment.id, provider: payment.provider },
    )
  const refund = refundAmounts(payment, input)
  const { providerRefundId } = await atProvider(() =>
    deps.provider.refundPayment(
      payment.providerPaymentId!,
      refund.amount + refund.tipAmount,
      providerKey(actor, paymentId, 'refund', idempotencyKey),
    ),
  )
  return bookRefund(db, actor, locations, payment, input, refund, providerRefundId)
}
