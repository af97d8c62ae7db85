// Gift cards themselves: issuing, reading, looking up by code, descriptive changes, status.
import { timingSafeEqual } from 'node:crypto'
import { desc, eq, max, or, sql } from 'drizzle-orm'
import { diffFields } from '../../platform/audit/diff'
import { recordWrite } from '../../platform/audit/record-write'
import type { Actor } from '../../platform/foundation/actor'
import { newId, nowIso } from '../../platform/foundation/ids'
import { offsetOf, type PageRequest, searchColumns } from '../../platform/foundation/paging'
import { conflict, invalid, notFound } from '../../platform/foundation/problem'
import type { Db } from '../../platform/tenancy/databases'
import { inWriteTransaction, type Queryable } from '../../platform/tenancy/transaction'
import { customersByIds, customerViews, resolveCustomerId } from '../customers'
import { findLocation } from '../locations'
import { findProductRow } from '../products'
import { appendLedgerEntry, presentGiftCard } from './ledger'
import type { CreateGiftCardInput, UpdateGiftCardInput } from './model'
import { type GiftCardRow, type GiftCardStatus, type GiftCardType, giftCards } from './schema'
import { assertEnabled, assertPurchaseAmount, getGiftCardSettings } from './settings'

/** What codes are matched on: upper case, without spaces and dashes. */
export const normalizeCode = (code: string): string => code.toUpperCase().replace(/[\s-]/g, '')

export const codeHashOf = (code: string): string =>
  new Bun.CryptoHasher('sha256').update(normalizeCode(code)).digest('hex')

export function checkedCode(code: string, path: string): string {
  const display = code.trim().toUpperCase()
  if (!/^[A-Z0-9]{6,64}$/.test(normalizeCode(display))) {
    throw invalid(path, 'a code has 6 to 64 letters or digits (spaces and dashes allowed between them)')
  }
  return display
}

/** Crockford base32 without I, L, O, U: 16 characters, 80 bits from the system's CSPRNG. */
export function generateCode(): string {
  const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'
  const bytes = crypto.getRandomValues(new Uint8Array(16))
  return Array.from(bytes, (b) => alphabet[b & 31]).join('')
}

export function assertLocation(db: Queryable, locationId: string | null | undefined, path: string) {
  if (locationId && !findLocation(db, locationId)) throw invalid(path, `location ${locationId} not found`)
}

/** A customer id of a card body: the live customer it names (following a merge), or 400. */
function checkedCustomerId(db: Queryable, id: string | null | undefined): string | null | undefined {
  if (!id) return id
  try {
    return resolveCustomerId(db, id)
  } catch {
    throw invalid('body/customerId', `customer ${id} not found`)
  }
}

/** Cards as the API shows them; with `expand=customer`, each with its `customer` (or null). */
export function giftCardViews(db: Queryable, rows: GiftCardRow[], expand: { customer?: boolean } = {}) {
  if (!expand.customer) return rows.map(presentGiftCard)
  const ids = [...new Set(rows.map((r) => r.customerId).filter((id): id is string => id !== null))]
  const byId = new Map(
    ids.length === 0 ? [] : customerViews(db, [...customersByIds(db, ids).values()]).map((c) => [c.id, c]),
  )
  return rows.map((row) => ({
    ...presentGiftCard(row),
    customer: row.customerId ? (byId.get(row.customerId) ?? null) : null,
  }))
}

export function getGiftCardRow(db: Queryable, id: string): GiftCardRow {
  const row = db.select().from(giftCards).where(eq(giftCards.id, id)).get()
  if (!row) throw notFound('gift card', id)
  return row
}

export const getGiftCard = (db: Queryable, id: string, expand: { customer?: boolean } = {}) =>
  giftCardViews(db, [getGiftCardRow(db, id)], expand)[0]!

export function listGiftCards(
  db: Queryable,
  query: { q?: string; expand?: { customer?: boolean } } & PageRequest,
) {
  const text = query.q?.trim()
  const where = text
    ? or(
        searchColumns(text, [
          giftCards.title,
          giftCards.code,
          giftCards.recipientName,
          giftCards.recipientEmail,
          giftCards.purchaserEmail,
        ]),
        /^\d+$/.test(text) ? eq(giftCards.giftCardNumber, Number(text)) : undefined,
        eq(giftCards.codeHash, codeHashOf(text)),
      )
    : undefined
  const total = db.select({ n: sql<number>`count(*)` }).from(giftCards).where(where).get()?.n ?? 0
  const rows = db
    .select()
    .from(giftCards)
    .where(where)
    .orderBy(desc(giftCards.giftCardNumber))
    .limit(query.limit)
    .offset(offsetOf(query))
    .all()
  return { giftCards: giftCardViews(db, rows, query.expand), total }
}

/**
 * Finds a card by its code. The database is searched by the code's SHA-256, so how long the
 * index search takes says nothing about how close a guess was; the match is then confirmed with
 * a constant-time comparison. Every miss is the same 404.
 */
export function findByCode(db: Queryable, code: string): GiftCardRow | undefined {
  const wanted = Buffer.from(normalizeCode(code))
  const row = db
    .select()
    .from(giftCards)
    .where(eq(giftCards.codeHash, codeHashOf(code)))
    .get()
  const stored = Buffer.from(row ? normalizeCode(row.code) : '')
  const same = stored.length === wanted.length && timingSafeEqual(stored, wanted)
  return row && same ? row : undefined
}

export const codeNotFound = () => notFound('gift card', undefined)

function assertCodeFree(tx: Queryable, code: string) {
  if (
    tx
      .select({ id: giftCards.id })
      .from(giftCards)
      .where(eq(giftCards.codeHash, codeHashOf(code)))
      .get()
  ) {
    throw conflict('a gift card with this code already exists')
  }
}

function deliveryState(input: {
  deliveryChannel?: 'email' | 'sms' | null
  deliveryDestination?: string | null
  deliveryScheduledAt?: string | null
  recipientEmail?: string | null
  recipientPhone?: string | null
}) {
  if (!input.deliveryChannel) {
    return {
      deliveryStatus: 'not_applicable' as const,
      deliveryChannel: null,
      deliveryDestination: input.deliveryDestination ?? null,
      deliveryScheduledAt: input.deliveryScheduledAt ?? null,
    }
  }
  const destination =
    input.deliveryDestination ??
    (input.deliveryChannel === 'email' ? input.recipientEmail : input.recipientPhone)
  if (!destination) {
    throw invalid('body/deliveryDestination', `a ${input.deliveryChannel} delivery needs a destination`)
  }
  if (input.deliveryChannel === 'email' && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(destination)) {
    throw invalid('body/deliveryDestination', 'an email delivery needs an email address')
  }
  return {
    deliveryStatus: 'scheduled' as const,
    deliveryChannel: input.deliveryChannel,
    deliveryDestination: destination,
    deliveryScheduledAt: input.deliveryScheduledAt
      ? new Date(input.deliveryScheduledAt).toISOString()
      : nowIso(),
    deliveryFailureReason: null,
    deliveryClaimedAt: null,
  }
}

export interface NewCard extends Omit<CreateGiftCardInput, 'activate' | 'source'> {
  source?: 'manual' | 'import' | 'sale'
  purchasedOnOrderId?: string | null
  purchasedOnOrderNumber?: string | null
  purchasedOnOrderLineId?: string | null
}

/** Inserts an Inactive card with a zero balance; value arrives only through the ledger. */
/**
 * Inserts a card, Inactive with no value. A bulk import passes the card's own id and `createdAt`
 * and records the write itself (`recordedByCaller`: no entry or event here).
 */
export function insertGiftCard(
  tx: Queryable,
  actor: Actor,
  input: NewCard,
  options: { id?: string; createdAt?: string; recordedByCaller?: boolean } = {},
): GiftCardRow {
  const code = checkedCode(input.code, 'body/code')
  assertCodeFree(tx, code)
  assertLocation(tx, input.originLocationId, 'body/originLocationId')
  const customerId = checkedCustomerId(tx, input.customerId)
  const next =
    (tx
      .select({ n: max(giftCards.giftCardNumber) })
      .from(giftCards)
      .get()?.n ?? 0) + 1
  const now = nowIso()
  const { code: _c, originLocationId, ...rest } = input
  const row = tx
    .insert(giftCards)
    .values({
      ...rest,
      ...deliveryState(input),
      ...(customerId === undefined ? {} : { customerId }),
      id: options.id ?? newId(),
      giftCardNumber: next,
      status: 'Inactive',
      code,
      codeHash: codeHashOf(code),
      currentBalance: 0,
      valueAccountId: newId(),
      originLocationId: originLocationId ?? actor.locationId,
      source: input.source ?? 'manual',
      notifyPurchaserWhenOpened: input.notifyPurchaserWhenOpened ?? false,
      createdAt: options.createdAt ?? now,
      updatedAt: now,
    })
    .returning()
    .get()
  if (options.recordedByCaller) return row
  recordWrite(tx, actor, {
    action: 'gift_card.create',
    entityType: 'gift_card',
    entityId: row.id,
    metadata: { giftCard: presentGiftCard(row) },
    event: presentGiftCard(row),
  })
  return row
}

export function createGiftCard(db: Db, actor: Actor, input: CreateGiftCardInput) {
  return inWriteTransaction(db, (tx) => {
    const settings = getGiftCardSettings(tx)
    assertEnabled(settings)
    const { activate, ...fields } = input
    if (activate) assertPurchaseAmount(settings, input.type, input.initialAmount, 'body/initialAmount')
    const card = insertGiftCard(tx, actor, fields)
    if (!activate) return presentGiftCard(card)
    return presentGiftCard(
      appendLedgerEntry(
        tx,
        actor,
        card.id,
        {
          entryType: 'activate',
          amountDelta: input.initialAmount,
          transactionLocationId: card.originLocationId,
        },
        { status: 'Active' },
      ).giftCard,
    )
  })
}

export function updateGiftCard(db: Db, actor: Actor, id: string, body: UpdateGiftCardInput) {
  return inWriteTransaction(db, (tx) => {
    const before = getGiftCardRow(tx, id)
    if (body.productId && !findProductRow(tx, body.productId))
      throw invalid('body/productId', `product ${body.productId} not found`)
    const patch =
      body.customerId === undefined ? body : { ...body, customerId: checkedCustomerId(tx, body.customerId) }
    const changes = diffFields(before, patch)
    if (Object.keys(changes).length === 0) return presentGiftCard(before)
    const touchesDelivery = ['deliveryChannel', 'deliveryDestination', 'deliveryScheduledAt'].some(
      (f) => f in changes,
    )
    const merged = { ...before, ...patch }
    const delivery = touchesDelivery
      ? deliveryState({
          ...merged,
          // A changed channel without a new destination falls back to the recipient's.
          deliveryDestination:
            'deliveryDestination' in patch || !('deliveryChannel' in changes)
              ? merged.deliveryDestination
              : undefined,
        })
      : {}
    const row = tx
      .update(giftCards)
      .set({ ...patch, ...delivery, updatedAt: nowIso() })
      .where(eq(giftCards.id, id))
      .returning()
      .get()
    recordWrite(tx, actor, {
      action: 'gift_card.update',
      entityType: 'gift_card',
      entityId: id,
      metadata: { changes },
      event: presentGiftCard(row),
    })
    return presentGiftCard(row)
  })
}

const statusMoves: Record<'disable' | 'enable', { from: GiftCardStatus[]; to: GiftCardStatus }> = {
  disable: { from: ['Active', 'Inactive'], to: 'Disabled' },
  enable: { from: ['Disabled'], to: 'Active' },
}

/** Disabling freezes a card (no redemption, no loads); its balance stays owed. */
export function changeGiftCardStatus(
  db: Db,
  actor: Actor,
  id: string,
  move: 'disable' | 'enable',
  reason: string | null | undefined,
) {
  return inWriteTransaction(db, (tx) => {
    const card = getGiftCardRow(tx, id)
    const { from, to } = statusMoves[move]
    if (!from.includes(card.status)) {
      throw conflict(`a ${card.status} gift card cannot be ${move}d`, { giftCardStatus: card.status })
    }
    // An Inactive card never got value, so re-enabling it must not make it Active.
    const target = move === 'enable' && card.currentBalance === 0 && !hasLedger(tx, id) ? 'Inactive' : to
    const row = tx
      .update(giftCards)
      .set({ status: target, updatedAt: nowIso() })
      .where(eq(giftCards.id, id))
      .returning()
      .get()
    recordWrite(tx, actor, {
      action: `gift_card.${move}`,
      entityType: 'gift_card',
      entityId: id,
      metadata: { from: card.status, to: target, reason: reason ?? null },
      event: presentGiftCard(row),
    })
    return presentGiftCard(row)
  })
}

function hasLedger(tx: Queryable, id: string): boolean {
  return !!tx.get<{ one: number }>(
    sql`SELECT 1 AS one FROM gift_card_transactions WHERE gift_card_id = ${id} LIMIT 1`,
  )
}

/** Records that the recipient opened the card (first time only); a purchaser notice may follow. */
export function markGiftCardOpened(db: Db, actor: Actor, id: string) {
  return inWriteTransaction(db, (tx) => {
    const card = getGiftCardRow(tx, id)
    if (card.openedAt) return presentGiftCard(card)
    const row = tx
      .update(giftCards)
      .set({ openedAt: nowIso(), updatedAt: nowIso() })
      .where(eq(giftCards.id, id))
      .returning()
      .get()
    recordWrite(tx, actor, {
      action: 'gift_card.open',
      entityType: 'gift_card',
      entityId: id,
      event: presentGiftCard(row),
    })
    return presentGiftCard(row)
  })
}

export type { GiftCardType }
