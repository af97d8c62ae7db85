import { and, asc, count, eq, sql } from 'drizzle-orm'
import { diffFields } from '../../platform/audit/diff'
import { recordWrite } from '../../platform/audit/record-write'
import type { Actor } from '../../platform/foundation/actor'
import { newId, nowIso } from '../../platform/foundation/ids'
import { offsetOf, type PageRequest, searchColumns } from '../../platform/foundation/paging'
import { conflict, notFound } from '../../platform/foundation/problem'
import type { Db } from '../../platform/tenancy/databases'
import { inWriteTransaction, type Queryable } from '../../platform/tenancy/transaction'
import type { CreateTaxInput, UpdateTaxInput } from './model'
import { type TaxRow, taxes } from './schema'

const upper = (value: string | null | undefined) => (value ? value.toUpperCase() : null)

export function listTaxes(
  db: Queryable,
  query: { q?: string; countryCode?: string; stateCode?: string } & PageRequest,
) {
  const where = and(
    searchColumns(query.q, [taxes.title]),
    query.countryCode ? eq(taxes.countryCode, query.countryCode.toUpperCase()) : undefined,
    query.stateCode ? eq(taxes.stateCode, query.stateCode.toUpperCase()) : undefined,
  )
  const total = db.select({ n: count() }).from(taxes).where(where).get()?.n ?? 0
  const rows = db
    .select()
    .from(taxes)
    .where(where)
    .orderBy(asc(taxes.countryCode), asc(sql`coalesce(${taxes.stateCode}, '')`), asc(taxes.id))
    .limit(query.limit)
    .offset(offsetOf(query))
    .all()
  return { taxes: rows, total }
}

export function getTax(db: Queryable, id: string): TaxRow {
  const row = db.select().from(taxes).where(eq(taxes.id, id)).get()
  if (!row) throw notFound('tax', id)
  return row
}

function assertPlaceFree(db: Queryable, countryCode: string, stateCode: string | null, exceptId?: string) {
  const holder = db
    .select({ id: taxes.id })
    .from(taxes)
    .where(
      and(eq(taxes.countryCode, countryCode), eq(sql`coalesce(${taxes.stateCode}, '')`, stateCode ?? '')),
    )
    .get()
  if (holder && holder.id !== exceptId) {
    const place = stateCode ? `${countryCode}-${stateCode}` : `${countryCode} (country-wide)`
    throw conflict(`a tax for ${place} already exists`, { existingTaxId: holder.id })
  }
}

export function createTax(db: Db, actor: Actor, input: CreateTaxInput): TaxRow {
  return inWriteTransaction(db, (tx) => {
    const countryCode = input.countryCode.toUpperCase()
    const stateCode = upper(input.stateCode)
    assertPlaceFree(tx, countryCode, stateCode)
    const now = nowIso()
    const row = tx
      .insert(taxes)
      .values({ id: newId(), ...input, countryCode, stateCode, createdAt: now, updatedAt: now })
      .returning()
      .get()
    recordWrite(tx, actor, {
      action: 'tax.create',
      entityType: 'tax',
      entityId: row.id,
      metadata: { tax: row },
      event: row,
    })
    return row
  })
}

export function updateTax(db: Db, actor: Actor, id: string, input: UpdateTaxInput): TaxRow {
  return inWriteTransaction(db, (tx) => {
    const before = getTax(tx, id)
    const patch = {
      ...input,
      ...(input.countryCode !== undefined ? { countryCode: input.countryCode.toUpperCase() } : {}),
      ...(input.stateCode !== undefined ? { stateCode: upper(input.stateCode) } : {}),
    }
    if (patch.countryCode !== undefined || patch.stateCode !== undefined)
      assertPlaceFree(
        tx,
        patch.countryCode ?? before.countryCode,
        patch.stateCode !== undefined ? patch.stateCode : before.stateCode,
        id,
      )
    const changes = diffFields(before, patch)
    if (Object.keys(changes).length === 0) return before
    const row = tx
      .update(taxes)
      .set({ ...patch, updatedAt: nowIso() })
      .where(eq(taxes.id, id))
      .returning()
      .get()
    recordWrite(tx, actor, {
      action: 'tax.update',
      entityType: 'tax',
      entityId: id,
      metadata: { changes },
      event: row,
    })
    return row
  })
}

export function deleteTax(db: Db, actor: Actor, id: string): void {
  inWriteTransaction(db, (tx) => {
    const row = getTax(tx, id)
    tx.delete(taxes).where(eq(taxes.id, id)).run()
    recordWrite(tx, actor, {
      action: 'tax.delete',
      entityType: 'tax',
      entityId: id,
      metadata: { tax: row },
      event: row,
    })
  })
}
