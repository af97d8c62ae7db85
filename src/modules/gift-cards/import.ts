// One gift card of a bulk import (the imports family's `gift-cards` kind): an upsert by id or
// code whose balance lands on the ledger (an opening `activate` entry, or an `adjust` entry for a
// changed balance), so the ledger still sums to the balance. One audit entry per row
// (`gift_card.import`, naming the import and the line, the ledger entry with it); events only
// when asked.
import { eq } from 'drizzle-orm'
import { diffFields } from '../../platform/audit/diff'
import { recordWrite } from '../../platform/audit/record-write'
import { type ImportedRow, type ImportOutcome, importEvents } from '../../platform/bulk-import'
import type { Actor } from '../../platform/foundation/actor'
import { nowIso } from '../../platform/foundation/ids'
import { invalid } from '../../platform/foundation/problem'
import type { Db } from '../../platform/tenancy/databases'
import { inWriteTransaction } from '../../platform/tenancy/transaction'
import { checkedCode, codeHashOf, insertGiftCard } from './cards'
import { appendLedgerEntry, presentGiftCard } from './ledger'
import type { ImportedGiftCardInput } from './model'
import { giftCards } from './schema'

export function importGiftCard(
  db: Db,
  actor: Actor,
  input: ImportedGiftCardInput,
  row: ImportedRow,
): ImportOutcome {
  return inWriteTransaction(db, (tx) => {
    const code = checkedCode(input.code, 'code')
    const byCode = tx
      .select()
      .from(giftCards)
      .where(eq(giftCards.codeHash, codeHashOf(code)))
      .get()
    const existing = input.id ? tx.select().from(giftCards).where(eq(giftCards.id, input.id)).get() : byCode
    if (existing && byCode && byCode.id !== existing.id)
      throw invalid('code', 'another gift card (not the one this id names) has this code')
    const fields = {
      title: input.title,
      type: input.type,
      recipientName: input.recipientName,
      recipientEmail: input.recipientEmail,
      notes: input.notes,
      expiryDate: input.expiryDate,
    }
    let card = existing
    let changes: Record<string, unknown> = {}
    if (!card) {
      card = insertGiftCard(
        tx,
        actor,
        {
          ...fields,
          title: input.title ?? 'Gift card',
          type: input.type ?? 'Physical',
          code,
          initialAmount: input.balance,
          source: 'import',
          originLocationId: actor.locationId,
        },
        { id: input.id, createdAt: input.createdAt, recordedByCaller: true },
      )
      const opened = appendLedgerEntry(
        tx,
        actor,
        card.id,
        {
          entryType: 'activate',
          amountDelta: input.balance,
          reason: `opening balance (import ${row.importId})`,
        },
        { status: 'Active' },
        { recordedByCaller: true },
      )
      card = opened.giftCard
      changes = { created: true, transaction: opened.transaction.id }
    } else {
      const patch = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined))
      changes = diffFields(card, patch)
      if (Object.keys(changes).length > 0)
        card = tx
          .update(giftCards)
          .set({ ...patch, updatedAt: nowIso() })
          .where(eq(giftCards.id, card.id))
          .returning()
          .get()
      if (card.currentBalance !== input.balance) {
        const adjusted = appendLedgerEntry(
          tx,
          actor,
          card.id,
          {
            entryType: 'adjust',
            amountDelta: input.balance - card.currentBalance,
            reason: `balance set by import ${row.importId}`,
          },
          {},
          { recordedByCaller: true },
        )
        changes.balance = {
          from: card.currentBalance,
          to: input.balance,
          transaction: adjusted.transaction.id,
        }
        card = adjusted.giftCard
      }
    }
    if (Object.keys(changes).length === 0) return 'unchanged'
    const outcome: ImportOutcome = existing ? 'updated' : 'created'
    const view = presentGiftCard(card)
    recordWrite(tx, actor, {
      action: 'gift_card.import',
      entityType: 'gift_card',
      entityId: card.id,
      metadata: { importId: row.importId, line: row.line, outcome, changes },
      events: importEvents(row, {
        object: 'gift_card',
        created: outcome === 'created',
        aggregateId: card.id,
        payload: () => view,
      }),
    })
    return outcome
  })
}
