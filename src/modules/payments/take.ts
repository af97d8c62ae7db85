// Taking a payment on an order: cash (into a drawer), card (through the payment provider) or
// gift card (a redemption). A captured payment is recorded on the order at once, which moves
// its balance and status; a card only authorized (a tab) is recorded when captured.
import { and, eq, sum } from 'drizzle-orm'
import { recordWrite } from '../../platform/audit/record-write'
import { assertReaches, assertVisible, type LocationScope } from '../../platform/auth/location-scope'
import type { Actor } from '../../platform/foundation/actor'
import { newId, nowIso } from '../../platform/foundation/ids'
import { ApiError, conflict, invalid } from '../../platform/foundation/problem'
import {
  type PaymentProvider,
  PaymentProviderError,
  type ProviderPayment,
  providerProblem,
} from '../../platform/payments/provider'
import type { Db } from '../../platform/tenancy/databases'
import { inWriteTransaction, type Queryable } from '../../platform/tenancy/transaction'
import { appendDrawerEntry, cashDrawerFor, drawerLocated } from '../cash'
import { findCustomerPaymentMethod } from '../customers'
import { redeemGiftCard } from '../gift-cards'
import type { OrderRow } from '../orders'
import { assertStatus, getOrderRow, OPEN_STATUSES, recordOrderPayment } from '../orders'
import type { CreatePaymentInput, PaymentView } from './model'
import { type PaymentRow, paymentIntents } from './schema'
import { loadPayment } from './view'

export const CURRENCY = 'usd'

export interface PaymentDeps {
  provider: PaymentProvider
}

/** Cents of the order's balance held by card authorizations not yet captured. */
export function pendingAuthorized(db: Queryable, orderId: string): number {
  return (
    db
      .select({ n: sum(paymentIntents.amount).mapWith(Number) })
      .from(paymentIntents)
      .where(and(eq(paymentIntents.orderId, orderId), eq(paymentIntents.status, 'authorized')))
      .get()?.n ?? 0
  )
}

/** The order, open, at a location the request reaches, with room for `amount` in its balance. */
export function assertPayable(
  db: Queryable,
  locations: LocationScope,
  orderId: string,
  amount: number,
  tipAmount: number,
): OrderRow {
  const order = getOrderRow(db, orderId)
  assertReaches(locations, order.locationId)
  assertStatus(order, OPEN_STATUSES, 'take payments on')
  if (amount + tipAmount === 0)
    throw invalid('body/amount', 'a payment must pay something: amount or tipAmount above 0')
  const pending = pendingAuthorized(db, orderId)
  if (amount > order.balanceDue - pending)
    throw conflict(
      `the payment of ${amount} cents exceeds the ${order.balanceDue - pending} cents still payable (balance due ${order.balanceDue}, authorized and not captured ${pending})`,
      { currentStatus: order.status, balanceDue: order.balanceDue, pendingAuthorizedAmount: pending },
    )
  return order
}

function assertTenderFields(input: CreatePaymentInput) {
  const only: Record<string, (keyof CreatePaymentInput)[]> = {
    cash: ['amountTendered', 'drawerId'],
    card: ['paymentMethod', 'customerPaymentMethodId', 'capture'],
    gift_card: ['giftCardCode', 'giftCardId'],
  }
  for (const [tender, fields] of Object.entries(only)) {
    if (tender === input.tender) continue
    for (const field of fields)
      if (input[field] !== undefined && input[field] !== null)
        throw invalid(`body/${field}`, `not used with tender ${input.tender}`)
  }
}

interface NewPayment {
  id: string
  order: OrderRow
  input: CreatePaymentInput
  status: PaymentRow['status']
  extra: Partial<PaymentRow>
}

function insertPayment(tx: Queryable, actor: Actor, p: NewPayment): PaymentRow {
  const now = nowIso()
  const tipAmount = p.input.tipAmount ?? 0
  const total = p.input.amount + tipAmount
  const captured = p.status === 'captured'
  const row = tx
    .insert(paymentIntents)
    .values({
      id: p.id,
      orderId: p.order.id,
      locationId: p.order.locationId,
      tender: p.input.tender,
      status: p.status,
      amount: p.input.amount,
      tipAmount,
      authorizedAmount: total,
      capturedAmount: captured ? total : 0,
      refundedAmount: 0,
      refundedTipAmount: 0,
      createdByStaffUserId: actor.staffUserId,
      authorizedAt: p.status === 'failed' ? null : now,
      capturedAt: captured ? now : null,
      createdAt: now,
      updatedAt: now,
      ...p.extra,
    })
    .returning()
    .get()
  recordWrite(tx, actor, {
    action: `payment.${p.status === 'failed' ? 'fail' : 'create'}`,
    entityType: 'payment',
    entityId: row.id,
    metadata: {
      orderId: row.orderId,
      tender: row.tender,
      status: row.status,
      amount: row.amount,
      tipAmount: row.tipAmount,
      ...(row.failureReason ? { failureReason: row.failureReason } : {}),
    },
    // The event names what happened to the money: failed, captured, or only authorized.
    events: [
      {
        object: 'payment',
        action: p.status === 'failed' ? 'fail' : p.status === 'captured' ? 'capture' : 'authorize',
        aggregateId: row.id,
        payload: loadPayment(tx, row.orderId, row.id),
      },
    ],
  })
  return row
}

/**
 * The open drawer cash goes through at `locationId` (see cashDrawerFor). A `drawerId` naming a
 * drawer at a location the request cannot reach is 404: to this caller it does not exist.
 */
export function cashDrawerAt(
  tx: Queryable,
  actor: Actor,
  locations: LocationScope,
  locationId: string,
  drawerId: string | null | undefined,
) {
  if (drawerId) assertVisible(locations, drawerLocated.locationOf(tx, drawerId), 'cash drawer', drawerId)
  return cashDrawerFor(tx, actor, locationId, drawerId)
}

/** Cash and gift card payments: one transaction (the caller's idempotentWrite joins it). */
export function takeLocalPayment(
  db: Db,
  actor: Actor,
  locations: LocationScope,
  orderId: string,
  input: CreatePaymentInput,
): PaymentView {
  assertTenderFields(input)
  const tipAmount = input.tipAmount ?? 0
  const total = input.amount + tipAmount
  return inWriteTransaction(db, (tx) => {
    const order = assertPayable(tx, locations, orderId, input.amount, tipAmount)
    const id = newId()
    if (input.tender === 'cash') {
      if (input.amountTendered !== undefined && input.amountTendered < total)
        throw invalid('body/amountTendered', `less than the ${total} cents paid`)
      const drawer = cashDrawerAt(tx, actor, locations, order.locationId, input.drawerId)
      insertPayment(tx, actor, {
        id,
        order,
        input,
        status: 'captured',
        extra: {
          drawerId: drawer.id,
          amountTendered: input.amountTendered ?? null,
          changeDue: input.amountTendered === undefined ? null : input.amountTendered - total,
        },
      })
      appendDrawerEntry(tx, actor, drawer.id, {
        entryType: 'cash_collected',
        amount: total,
        reason: 'payment',
        comment: `Order #${order.orderNumber}`,
        paymentIntentId: id,
        orderId: order.id,
        payload: { tipAmount },
      })
    } else {
      if (!input.giftCardCode === !input.giftCardId)
        throw invalid('body/giftCardCode', 'a gift card payment names the card: giftCardCode or giftCardId')
      const redeemed = redeemGiftCard(tx, actor, {
        ...(input.giftCardId ? { id: input.giftCardId } : { code: input.giftCardCode! }),
        amount: total,
        tipAmount,
        paymentReference: id,
        orderId: order.id,
        locationId: order.locationId,
        channel: 'pos',
      })
      insertPayment(tx, actor, {
        id,
        order,
        input,
        status: 'captured',
        extra: { giftCardId: redeemed.giftCard.id },
      })
    }
    recordOrderPayment(db, actor, {
      orderId,
      paymentIntentId: id,
      amount: input.amount,
      tipAmount,
    })
    return loadPayment(tx, orderId, id)
  })
}

function cardSource(db: Queryable, order: OrderRow, input: CreatePaymentInput) {
  if (!input.paymentMethod === !input.customerPaymentMethodId)
    throw invalid('body/paymentMethod', 'a card payment needs paymentMethod or customerPaymentMethodId')
  if (input.paymentMethod) return { paymentMethod: input.paymentMethod, providerCustomerId: null }
  const stored = order.customerId
    ? findCustomerPaymentMethod(db, order.customerId, input.customerPaymentMethodId!)
    : undefined
  if (!stored) throw invalid('body/customerPaymentMethodId', 'not a stored card of the order’s customer')
  return { paymentMethod: stored.providerPaymentMethodId, providerCustomerId: stored.providerCustomerId }
}

/** A key for the provider, the same on every retry of one request: no second charge there either. */
export const providerKey = (actor: Actor, ...parts: string[]) =>
  new Bun.CryptoHasher('sha256').update(JSON.stringify([actor.tenantId, ...parts])).digest('hex')

/**
 * Card payments: checked first, authorized (and captured, unless `capture: false`) at the
 * provider, then recorded in one transaction. A decline is recorded as a `failed` payment and
 * answered 402. If the order changed meanwhile so the payment no longer fits, the
 * authorization is released (or the charge refunded) and the refusal stands.
 */
export async function takeCardPayment(
  db: Db,
  actor: Actor,
  locations: LocationScope,
  deps: PaymentDeps,
  orderId: string,
  input: CreatePaymentInput,
  idempotencyKey: string,
): Promise<PaymentView> {
  assertTenderFields(input)
  const tipAmount = input.tipAmount ?? 0
  const order = assertPayable(db, locations, orderId, input.amount, tipAmount)
  const source = cardSource(db, order, input)
  const capture = input.capture ?? true
  const id = newId()
  const key = providerKey(actor, orderId, idempotencyKey)
  let result: ProviderPayment
  try {
    result = await deps.provider.authorizePayment({
      amount: input.amount + tipAmount,
      currency: CURRENCY,
      ...source,
      capture,
      idempotencyKey: key,
      metadata: {
        restaurantOpsOrderId: orderId,
        restaurantOpsPaymentId: id,
        restaurantOpsTenantId: actor.tenantId,
      },
    })
  } catch (error) {
    if (!(error instanceof PaymentProviderError)) throw error
    if (error.kind === 'declined') {
      inWriteTransaction(db, (tx) =>
        insertPayment(tx, actor, {
          id,
          order,
          input,
          status: 'failed',
          extra: { provider: deps.provider.name, failureReason: error.message },
        }),
      )
      throw new ApiError('payment_required', error.message, {
        extensions: { paymentIntentId: id, paymentStatus: 'failed' },
      })
    }
    throw providerProblem(error, 'body/paymentMethod')
  }
  const extra = {
    provider: deps.provider.name,
    providerPaymentId: result.providerPaymentId,
    cardBrand: result.brand,
    cardLast4: result.last4,
  }
  try {
    return inWriteTransaction(db, (tx) => {
      const current = assertPayable(tx, locations, orderId, input.amount, tipAmount)
      insertPayment(tx, actor, { id, order: current, input, status: result.status, extra })
      if (result.status === 'captured')
        recordOrderPayment(db, actor, {
          orderId,
          paymentIntentId: id,
          amount: input.amount,
          tipAmount,
        })
      return loadPayment(tx, orderId, id)
    })
  } catch (error) {
    // The order moved on while the card was out: give the money back before refusing.
    if (result.status === 'captured')
      await deps.provider.refundPayment(result.providerPaymentId, input.amount + tipAmount, `${key}:undo`)
    else await deps.provider.cancelPayment(result.providerPaymentId, `${key}:undo`)
    throw error
  }
}
