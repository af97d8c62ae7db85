// Everything that moves value on a card, each one ledger entry (merge: one on each card).
// Each function takes the caller's transaction, so payments and orders can compose them into
// their own unit of work; the HTTP routes wrap them in inWriteTransaction.
import { and, eq } from 'drizzle-orm'
import type { Actor } from '../../platform/foundation/actor'
import { nowIso } from '../../platform/foundation/ids'
import { ApiError, conflict, invalid, notFound } from '../../platform/foundation/problem'
import type { Queryable } from '../../platform/tenancy/transaction'
import { assertLocation, codeNotFound, findByCode, getGiftCardRow } from './cards'
import { appendLedgerEntry, type LedgerResult } from './ledger'
import { type GiftCardRow, type GiftCardStatus, giftCardTransactions } from './schema'
import { actorHoldsRole, assertEnabled, assertPurchaseAmount, getGiftCardSettings } from './settings'

interface Where {
  locationId?: string | null
  reason?: string | null
}

function assertStatus(card: GiftCardRow, allowed: GiftCardStatus[], action: string) {
  if (!allowed.includes(card.status)) {
    throw conflict(`a ${card.status} gift card cannot be ${action}`, { giftCardStatus: card.status })
  }
}

function assertNotExpired(card: GiftCardRow) {
  if (card.expiryDate && card.expiryDate < nowIso().slice(0, 10)) {
    throw conflict(`the gift card expired on ${card.expiryDate}`, {
      giftCardStatus: card.status,
      expiryDate: card.expiryDate,
    })
  }
}

function locationOf(tx: Queryable, actor: Actor, input: Where): string | null {
  const locationId = input.locationId ?? actor.locationId
  assertLocation(tx, locationId, 'body/locationId')
  return locationId
}

export interface ActivateInput extends Where {
  amount?: number
  orderId?: string | null
  paymentReference?: string | null
}

/** Inactive to Active with its first value (the initialAmount unless another amount is given). */
export function activateGiftCard(
  tx: Queryable,
  actor: Actor,
  id: string,
  input: ActivateInput,
): LedgerResult {
  const card = getGiftCardRow(tx, id)
  const settings = getGiftCardSettings(tx)
  assertEnabled(settings)
  assertStatus(card, ['Inactive'], 'activated')
  const amount = input.amount ?? card.initialAmount
  assertPurchaseAmount(settings, card.type, amount, 'body/amount')
  const locationId = locationOf(tx, actor, input)
  return appendLedgerEntry(
    tx,
    actor,
    id,
    {
      entryType: 'activate',
      amountDelta: amount,
      orderId: input.orderId,
      paymentReference: input.paymentReference,
      reason: input.reason,
      transactionLocationId: locationId,
    },
    { status: 'Active', originLocationId: card.originLocationId ?? locationId, initialAmount: amount },
  )
}

export function loadGiftCard(
  tx: Queryable,
  actor: Actor,
  id: string,
  input: ActivateInput & { amount: number },
) {
  const card = getGiftCardRow(tx, id)
  const settings = getGiftCardSettings(tx)
  assertEnabled(settings)
  assertStatus(card, ['Active'], 'loaded')
  assertNotExpired(card)
  if (!(input.amount > 0)) throw invalid('body/amount', 'a load adds a positive amount')
  assertPurchaseAmount(settings, card.type, input.amount, 'body/amount')
  return appendLedgerEntry(tx, actor, id, {
    entryType: 'load',
    amountDelta: input.amount,
    orderId: input.orderId,
    paymentReference: input.paymentReference,
    reason: input.reason,
    transactionLocationId: locationOf(tx, actor, input),
  })
}

export interface RedeemInput {
  id?: string
  code?: string
  amount: number
  /** The part of `amount` that pays a tip: refused unless the settings' `tipsEnabled` is on. */
  tipAmount?: number
  paymentReference: string
  orderId?: string | null
  locationId?: string | null
  channel?: 'pos' | 'online'
}

/**
 * Takes `amount` off a card for a payment. Idempotent by `paymentReference`: the same reference
 * for the same card and amount answers the first redemption again (`replayed: true`); another
 * card or amount under a used reference is 409. Never overdraws (409 with the balance). With
 * `sharedAcrossLocations` off, only the card's origin location may redeem it.
 */
export function redeemGiftCard(tx: Queryable, actor: Actor, input: RedeemInput): LedgerResult {
  if ((input.id === undefined) === (input.code === undefined))
    throw invalid('id', 'give either a card id or a code')
  if (!Number.isSafeInteger(input.amount) || input.amount <= 0)
    throw invalid('amount', 'a positive integer of cents')
  if (!input.paymentReference) throw invalid('paymentReference', 'required')
  if ((input.tipAmount ?? 0) > input.amount) throw invalid('tipAmount', 'at most the amount redeemed')
  const card = input.id !== undefined ? getGiftCardRow(tx, input.id) : findByCode(tx, input.code!)
  if (!card) throw codeNotFound()

  const earlier = tx
    .select()
    .from(giftCardTransactions)
    .where(
      and(
        eq(giftCardTransactions.paymentReference, input.paymentReference),
        eq(giftCardTransactions.entryType, 'redeem'),
      ),
    )
    .get()
  if (earlier) {
    if (earlier.giftCardId === card.id && earlier.amountDelta === -input.amount) {
      return { giftCard: getGiftCardRow(tx, card.id), transaction: earlier, replayed: true }
    }
    throw conflict('this payment reference already redeemed another card or amount', {
      giftCardId: earlier.giftCardId === card.id ? card.id : undefined,
      transactionId: earlier.giftCardId === card.id ? earlier.id : undefined,
    })
  }

  const settings = getGiftCardSettings(tx)
  assertEnabled(settings)
  assertStatus(card, ['Active'], 'redeemed')
  assertNotExpired(card)
  if ((input.tipAmount ?? 0) > 0 && !settings.tipsEnabled)
    throw conflict('gift cards cannot pay tips (tipsEnabled is off)', { tipsEnabled: false })
  if (input.channel === 'online' && !settings.allowOnlineRedemption) {
    throw conflict('gift cards cannot be redeemed online (allowOnlineRedemption is off)')
  }
  const locationId = input.locationId ?? actor.locationId
  assertLocation(tx, locationId, 'locationId')
  if (!settings.sharedAcrossLocations && card.originLocationId) {
    if (!locationId)
      throw invalid('locationId', 'cards are not shared across locations: name the redeeming location')
    if (locationId !== card.originLocationId) {
      throw conflict('this card can only be redeemed at the location that issued it', {
        originLocationId: card.originLocationId,
        sharedAcrossLocations: false,
      })
    }
  }
  return appendLedgerEntry(
    tx,
    actor,
    card.id,
    {
      entryType: 'redeem',
      amountDelta: -input.amount,
      orderId: input.orderId,
      paymentReference: input.paymentReference,
      transactionLocationId: locationId,
    },
    card.openedAt ? {} : { openedAt: nowIso() },
  )
}

/**
 * Reverses one redemption, activation or load by appending its opposite (`void_redeem` or
 * `void_load`). Each entry can be voided once; voiding value already spent is 409.
 */
export function voidGiftCardTransaction(
  tx: Queryable,
  actor: Actor,
  input: { giftCardId: string; transactionId: string } & Where,
): LedgerResult {
  const card = getGiftCardRow(tx, input.giftCardId)
  const entry = tx
    .select()
    .from(giftCardTransactions)
    .where(
      and(
        eq(giftCardTransactions.id, input.transactionId),
        eq(giftCardTransactions.giftCardId, input.giftCardId),
      ),
    )
    .get()
  if (!entry) throw notFound('gift card transaction', input.transactionId)
  const entryType =
    entry.entryType === 'redeem'
      ? 'void_redeem'
      : entry.entryType === 'activate' || entry.entryType === 'load'
        ? 'void_load'
        : null
  if (!entryType)
    throw conflict(`a ${entry.entryType} entry cannot be voided`, { entryType: entry.entryType })
  const already = tx
    .select({ id: giftCardTransactions.id })
    .from(giftCardTransactions)
    .where(eq(giftCardTransactions.voidsTransactionId, entry.id))
    .get()
  if (already) throw conflict('this transaction is already voided', { voidedByTransactionId: already.id })
  assertStatus(card, ['Active', 'Disabled'], 'changed')
  return appendLedgerEntry(tx, actor, card.id, {
    entryType,
    amountDelta: -entry.amountDelta,
    orderId: entry.orderId,
    paymentReference: entry.paymentReference,
    reason: input.reason,
    voidsTransactionId: entry.id,
    transactionLocationId: locationOf(tx, actor, input),
  })
}

/** For payments: void the redemption a payment made, found by its payment reference. */
export function voidRedemption(
  tx: Queryable,
  actor: Actor,
  input: { paymentReference: string } & Where,
): LedgerResult {
  const redemption = tx
    .select()
    .from(giftCardTransactions)
    .where(
      and(
        eq(giftCardTransactions.paymentReference, input.paymentReference),
        eq(giftCardTransactions.entryType, 'redeem'),
      ),
    )
    .get()
  if (!redemption) throw notFound('gift card redemption for payment', input.paymentReference)
  return voidGiftCardTransaction(tx, actor, {
    giftCardId: redemption.giftCardId,
    transactionId: redemption.id,
    reason: input.reason,
    locationId: input.locationId ?? redemption.transactionLocationId,
  })
}

export function adjustGiftCard(
  tx: Queryable,
  actor: Actor,
  id: string,
  input: { amountDelta: number; reason: string } & Where,
) {
  const card = getGiftCardRow(tx, id)
  if (input.amountDelta === 0) throw invalid('body/amountDelta', 'an adjustment changes the balance')
  if (!input.reason?.trim()) throw invalid('body/reason', 'an adjustment needs a reason')
  assertStatus(card, ['Active', 'Disabled'], 'adjusted')
  return appendLedgerEntry(tx, actor, id, {
    entryType: 'adjust',
    amountDelta: input.amountDelta,
    reason: input.reason,
    transactionLocationId: locationOf(tx, actor, input),
  })
}

/**
 * Pays out the whole balance in cash. Needs cash out turned on, a balance above
 * `cashOutThreshold`, and a staff user holding `cashOutPermission` (or a higher role).
 */
export function cashOutGiftCard(tx: Queryable, actor: Actor, id: string, input: Where) {
  const card = getGiftCardRow(tx, id)
  const settings = getGiftCardSettings(tx)
  if (!settings.cashOutEnabled) throw conflict('cash out is turned off in the gift card settings')
  if (!actorHoldsRole(tx, actor, settings.cashOutPermission)) {
    throw new ApiError('forbidden', `cashing out a gift card needs the ${settings.cashOutPermission} role`, {
      extensions: { requiredRole: settings.cashOutPermission },
    })
  }
  assertStatus(card, ['Active'], 'cashed out')
  if (card.currentBalance <= settings.cashOutThreshold) {
    throw conflict(`cash out needs a balance above ${settings.cashOutThreshold}`, {
      currentBalance: card.currentBalance,
      cashOutThreshold: settings.cashOutThreshold,
    })
  }
  return appendLedgerEntry(tx, actor, id, {
    entryType: 'cash_out',
    amountDelta: -card.currentBalance,
    reason: input.reason,
    transactionLocationId: locationOf(tx, actor, input),
  })
}

/** Removes the remaining balance of a card (breakage) and marks it Expired. */
export function expireGiftCard(tx: Queryable, actor: Actor, id: string, input: Where) {
  const card = getGiftCardRow(tx, id)
  assertStatus(card, ['Active', 'Disabled', 'Inactive'], 'expired')
  return appendLedgerEntry(
    tx,
    actor,
    id,
    {
      entryType: 'expire',
      amountDelta: -card.currentBalance,
      reason: input.reason,
      transactionLocationId: locationOf(tx, actor, input),
    },
    { status: 'Expired' },
  )
}

/** Moves the source card's whole balance onto the target; the source ends Merged with 0. */
export function mergeGiftCards(
  tx: Queryable,
  actor: Actor,
  targetId: string,
  input: { sourceGiftCardId: string } & Where,
) {
  const target = getGiftCardRow(tx, targetId)
  if (input.sourceGiftCardId === targetId)
    throw invalid('body/sourceGiftCardId', 'a card cannot merge into itself')
  const source = getGiftCardRow(tx, input.sourceGiftCardId)
  assertStatus(target, ['Active'], 'merged into')
  assertStatus(source, ['Active', 'Disabled'], 'merged')
  const locationId = locationOf(tx, actor, input)
  const amount = source.currentBalance
  const out = appendLedgerEntry(
    tx,
    actor,
    source.id,
    {
      entryType: 'merge',
      amountDelta: -amount,
      reason: input.reason,
      relatedGiftCardId: target.id,
      transactionLocationId: locationId,
    },
    { status: 'Merged', mergedIntoGiftCardId: target.id },
  )
  const into = appendLedgerEntry(tx, actor, target.id, {
    entryType: 'merge',
    amountDelta: amount,
    reason: input.reason,
    relatedGiftCardId: source.id,
    transactionLocationId: locationId,
  })
  return { giftCard: into.giftCard, source: out.giftCard, transactions: [out.transaction, into.transaction] }
}
