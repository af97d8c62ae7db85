// Gift cards sold on order lines (`giftCardSale`), issued when the order is paid. Lent to orders
// (hooks.ts), which call issueGiftCardsForPaidOrder inside their payment transaction.
import { and, eq, inArray } from 'drizzle-orm'
import type { Actor } from '../../platform/foundation/actor'
import { nowIso } from '../../platform/foundation/ids'
import { conflict, invalid } from '../../platform/foundation/problem'
import type { Queryable } from '../../platform/tenancy/transaction'
import { codeHashOf, findByCode, generateCode, getGiftCardRow, insertGiftCard } from './cards'
import { appendLedgerEntry, presentGiftCard } from './ledger'
import { activateGiftCard, loadGiftCard } from './operations'
import { type GiftCardRow, giftCards, giftCardTransactions } from './schema'
import { assertEnabled, assertPurchaseAmount, getGiftCardSettings } from './settings'

/** The `giftCardSale` of an order line (api-spec.md, Order). */
export interface GiftCardSale {
  cardType?: 'Virtual' | 'Physical' | null
  code?: string | null
  recipientName?: string | null
  recipientEmail?: string | null
  recipientPhone?: string | null
  fromName?: string | null
  purchaserEmail?: string | null
  purchaserPhone?: string | null
  giftMessage?: string | null
  notes?: string | null
  deliveryChannel?: 'email' | 'sms' | null
  deliveryDestination?: string | null
  deliveryScheduledAt?: string | null
  notifyPurchaserWhenOpened?: boolean | null
}

export interface PaidOrderGiftCards {
  orderId: string
  orderNumber: string | number
  /** Where the order was paid: the cards' origin location. Defaults to the actor's location. */
  locationId?: string | null
  lines: {
    lineId: string
    giftCardSale: GiftCardSale
    amount: number
    productId?: string | null
    title?: string | null
  }[]
}

/** The payment reference of a line's activation or load, which makes issuing idempotent. */
export const saleReference = (orderId: string, lineId: string) => `order-line:${orderId}:${lineId}`

/**
 * Issues (or, for a pre-printed Physical card named by `code`, activates or reloads) one card per
 * line. Idempotent: a line already issued is answered with its card and not issued twice. Any
 * refusal (gift cards off, amount outside the purchase limits, a code of a disabled card) throws,
 * so the caller's payment transaction rolls back whole.
 */
export function issueGiftCardsForPaidOrder(tx: Queryable, actor: Actor, input: PaidOrderGiftCards) {
  const settings = getGiftCardSettings(tx)
  const orderNumber = String(input.orderNumber)
  const cards: GiftCardRow[] = []
  for (const [index, line] of input.lines.entries()) {
    const path = `lines/${index}`
    const reference = saleReference(input.orderId, line.lineId)
    const done = tx
      .select({ giftCardId: giftCardTransactions.giftCardId })
      .from(giftCardTransactions)
      .where(
        and(
          eq(giftCardTransactions.paymentReference, reference),
          inArray(giftCardTransactions.entryType, ['activate', 'load']),
        ),
      )
      .get()
    if (done) {
      cards.push(getGiftCardRow(tx, done.giftCardId))
      continue
    }
    if (!Number.isSafeInteger(line.amount) || line.amount <= 0)
      throw invalid(`${path}/amount`, 'a positive integer of cents')
    assertEnabled(settings)
    const sale = line.giftCardSale
    const type = sale.cardType ?? (sale.code ? 'Physical' : 'Virtual')
    assertPurchaseAmount(settings, type, line.amount, `${path}/amount`)
    const ledger = {
      amount: line.amount,
      orderId: input.orderId,
      paymentReference: reference,
      locationId: input.locationId ?? actor.locationId,
    }
    const existing = sale.code ? findByCode(tx, sale.code) : undefined
    if (existing) {
      if (existing.status === 'Inactive') {
        // A pre-printed card handed over at the counter: it becomes the card sold on this line.
        tx.update(giftCards)
          .set({
            ...purchaseFields(input, line, orderNumber),
            ...recipientFields(sale),
            source: 'sale',
            updatedAt: nowIso(),
          })
          .where(eq(giftCards.id, existing.id))
          .run()
        cards.push(activateGiftCard(tx, actor, existing.id, ledger).giftCard)
      } else if (existing.status === 'Active') {
        cards.push(loadGiftCard(tx, actor, existing.id, ledger).giftCard)
      } else {
        throw conflict(`the gift card sold on line ${line.lineId} is ${existing.status}`, {
          lineId: line.lineId,
          giftCardStatus: existing.status,
        })
      }
      continue
    }
    const card = insertGiftCard(tx, actor, {
      title: line.title ?? `Gift card (order ${orderNumber})`,
      type,
      code: sale.code ?? freshCode(tx),
      initialAmount: line.amount,
      source: 'sale',
      originLocationId: ledger.locationId,
      productId: line.productId ?? null,
      ...purchaseFields(input, line, orderNumber),
      ...recipientFields(sale),
      deliveryChannel: sale.deliveryChannel ?? null,
      deliveryDestination: sale.deliveryDestination ?? null,
      deliveryScheduledAt: sale.deliveryScheduledAt ?? null,
      notifyPurchaserWhenOpened: sale.notifyPurchaserWhenOpened ?? false,
    })
    cards.push(
      appendLedgerEntry(
        tx,
        actor,
        card.id,
        {
          entryType: 'activate',
          amountDelta: line.amount,
          orderId: input.orderId,
          paymentReference: reference,
          transactionLocationId: ledger.locationId,
        },
        { status: 'Active' },
      ).giftCard,
    )
  }
  return { giftCards: cards.map(presentGiftCard) }
}

function freshCode(tx: Queryable): string {
  for (;;) {
    const code = generateCode()
    if (
      !tx
        .select({ id: giftCards.id })
        .from(giftCards)
        .where(eq(giftCards.codeHash, codeHashOf(code)))
        .get()
    )
      return code
  }
}

const purchaseFields = (input: PaidOrderGiftCards, line: { lineId: string }, orderNumber: string) => ({
  purchasedOnOrderId: input.orderId,
  purchasedOnOrderNumber: orderNumber,
  purchasedOnOrderLineId: line.lineId,
})

const recipientFields = (sale: GiftCardSale) => ({
  recipientName: sale.recipientName ?? null,
  recipientEmail: sale.recipientEmail ?? null,
  recipientPhone: sale.recipientPhone ?? null,
  fromName: sale.fromName ?? null,
  purchaserEmail: sale.purchaserEmail ?? null,
  purchaserPhone: sale.purchaserPhone ?? null,
  giftMessage: sale.giftMessage ?? null,
  notes: sale.notes ?? null,
})
