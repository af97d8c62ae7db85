// The gift card value ledger. `appendLedgerEntry` is the one function that changes a card's
// balance: it appends an entry carrying `balanceAfter` and sets `currentBalance` to it, in the
// caller's transaction. The database backs this up (migration gift_cards_ledger_guards): entries
// are append-only, each must continue its card's previous entry, and `current_balance` cannot be
// set to anything but the newest entry's `balance_after`. So currentBalance = sum(amountDelta).
import { and, asc, count, desc, eq } from 'drizzle-orm'
import { recordWrite } from '../../platform/audit/record-write'
import type { Actor } from '../../platform/foundation/actor'
import { newId, nowIso } from '../../platform/foundation/ids'
import { conflict, invalid } from '../../platform/foundation/problem'
import type { Queryable } from '../../platform/tenancy/transaction'
import {
  type GiftCardRow,
  type GiftCardTransactionRow,
  giftCards,
  giftCardTransactions,
  type LedgerEntryType,
} from './schema'

export interface LedgerEntryInput {
  entryType: LedgerEntryType
  amountDelta: number
  orderId?: string | null
  paymentReference?: string | null
  reason?: string | null
  transactionLocationId?: string | null
  voidsTransactionId?: string | null
  relatedGiftCardId?: string | null
}

/** Card fields an operation changes together with its entry (status, origin, openedAt...). */
export type CardChanges = Partial<
  Pick<GiftCardRow, 'status' | 'originLocationId' | 'mergedIntoGiftCardId' | 'openedAt' | 'initialAmount'>
>

export interface LedgerResult {
  giftCard: GiftCardRow
  transaction: GiftCardTransactionRow
  replayed: boolean
}

/**
 * Appends one entry to a card's ledger and moves its balance to match. Refuses (409) an entry
 * that would take the balance below zero, so nothing can overdraw a card. `recordedByCaller`: the
 * caller's own audit entry covers it (a bulk import's row), and it emits no event.
 */
export function appendLedgerEntry(
  tx: Queryable,
  actor: Actor,
  cardId: string,
  entry: LedgerEntryInput,
  changes: CardChanges = {},
  { recordedByCaller = false }: { recordedByCaller?: boolean } = {},
): LedgerResult {
  if (!Number.isSafeInteger(entry.amountDelta)) throw invalid('amount', 'amounts are integer cents')
  const card = tx.select().from(giftCards).where(eq(giftCards.id, cardId)).get()
  if (!card) throw new Error(`gift card ${cardId} vanished inside its transaction`)
  const balanceAfter = card.currentBalance + entry.amountDelta
  if (balanceAfter < 0) {
    throw conflict(`the card's balance of ${card.currentBalance} does not cover ${-entry.amountDelta}`, {
      currentBalance: card.currentBalance,
      requested: -entry.amountDelta,
    })
  }
  const last = tx
    .select({ sequence: giftCardTransactions.sequence })
    .from(giftCardTransactions)
    .where(eq(giftCardTransactions.giftCardId, cardId))
    .orderBy(desc(giftCardTransactions.sequence))
    .limit(1)
    .get()
  const now = nowIso()
  const transaction = tx
    .insert(giftCardTransactions)
    .values({
      id: newId(),
      giftCardId: cardId,
      sequence: (last?.sequence ?? 0) + 1,
      accountId: card.valueAccountId,
      entryType: entry.entryType,
      amountDelta: entry.amountDelta,
      balanceAfter,
      orderId: entry.orderId ?? null,
      paymentReference: entry.paymentReference ?? null,
      reason: entry.reason ?? null,
      originLocationId: changes.originLocationId ?? card.originLocationId,
      transactionLocationId: entry.transactionLocationId ?? null,
      voidsTransactionId: entry.voidsTransactionId ?? null,
      relatedGiftCardId: entry.relatedGiftCardId ?? null,
      staffUserId: actor.staffUserId,
      occurredAt: now,
    })
    .returning()
    .get()
  const giftCard = tx
    .update(giftCards)
    .set({ ...changes, currentBalance: balanceAfter, updatedAt: now })
    .where(eq(giftCards.id, cardId))
    .returning()
    .get()
  if (!recordedByCaller)
    recordWrite(tx, actor, {
      action: `gift_card.${entry.entryType}`,
      entityType: 'gift_card',
      entityId: cardId,
      metadata: { transaction, balanceBefore: card.currentBalance, changes },
      event: { giftCard: presentGiftCard(giftCard), transaction: presentTransaction(transaction) },
    })
  return { giftCard, transaction, replayed: false }
}

export function presentGiftCard(row: GiftCardRow) {
  const { codeHash: _hash, ...card } = row
  return card
}

export function presentTransaction(row: GiftCardTransactionRow) {
  const { paymentReference, ...rest } = row
  return { ...rest, paymentIntentId: paymentReference }
}

export const presentResult = (result: LedgerResult) => ({
  giftCard: presentGiftCard(result.giftCard),
  transaction: presentTransaction(result.transaction),
  replayed: result.replayed,
})

export function listCardTransactions(db: Queryable, cardId: string, page: { page: number; limit: number }) {
  const where = eq(giftCardTransactions.giftCardId, cardId)
  const total = db.select({ n: count() }).from(giftCardTransactions).where(where).get()?.n ?? 0
  const rows = db
    .select()
    .from(giftCardTransactions)
    .where(where)
    .orderBy(asc(giftCardTransactions.sequence))
    .limit(page.limit)
    .offset((page.page - 1) * page.limit)
    .all()
  return { transactions: rows.map(presentTransaction), total }
}

export function findTransaction(db: Queryable, cardId: string, transactionId: string) {
  return db
    .select()
    .from(giftCardTransactions)
    .where(and(eq(giftCardTransactions.id, transactionId), eq(giftCardTransactions.giftCardId, cardId)))
    .get()
}
