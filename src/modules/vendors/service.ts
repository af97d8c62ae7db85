import { asc, count, eq, sql } from 'drizzle-orm'
import { diffFields } from '../../platform/audit/diff'
import { recordWrite } from '../../platform/audit/record-write'
import type { Actor } from '../../platform/foundation/actor'
import { newId, nowIso } from '../../platform/foundation/ids'
import { offsetOf, type PageRequest, searchColumns } from '../../platform/foundation/paging'
import { conflict, notFound } from '../../platform/foundation/problem'
import type { Db } from '../../platform/tenancy/databases'
import { rowById } from '../../platform/tenancy/row-by-id'
import { inWriteTransaction, type Queryable } from '../../platform/tenancy/transaction'
import type { CreateVendorInput, UpdateVendorInput } from './model'
import { type VendorRow, vendors } from './schema'

export function listVendors(db: Queryable, query: { q?: string } & PageRequest) {
  const where = searchColumns(query.q, [vendors.name, vendors.code, vendors.email])
  const total = db.select({ n: count() }).from(vendors).where(where).get()?.n ?? 0
  const rows = db
    .select()
    .from(vendors)
    .where(where)
    .orderBy(asc(sql`lower(${vendors.name})`), asc(vendors.id))
    .limit(query.limit)
    .offset(offsetOf(query))
    .all()
  return { vendors: rows, page: { total, page: query.page, limit: query.limit } }
}

export const findVendor = (db: Queryable, id: string): VendorRow | undefined => rowById(db, vendors, id)

export function getVendor(db: Queryable, id: string): VendorRow {
  const row = findVendor(db, id)
  if (!row) throw notFound('vendor', id)
  return row
}

function assertCodeFree(db: Queryable, code: string | null | undefined, exceptId?: string) {
  if (!code) return
  const holder = db
    .select({ id: vendors.id })
    .from(vendors)
    .where(eq(sql`lower(${vendors.code})`, code.toLowerCase()))
    .get()
  if (holder && holder.id !== exceptId) throw conflict(`vendor code "${code}" is already in use`)
}

export function createVendor(db: Db, actor: Actor, input: CreateVendorInput): VendorRow {
  return inWriteTransaction(db, (tx) => {
    assertCodeFree(tx, input.code)
    const now = nowIso()
    const row = tx
      .insert(vendors)
      .values({
        id: newId(),
        name: input.name,
        code: input.code ?? null,
        status: input.status ?? 'active',
        website: input.website ?? null,
        phone: input.phone ?? null,
        email: input.email ?? null,
        notes: input.notes ?? null,
        createdAt: now,
        updatedAt: now,
      })
      .returning()
      .get()
    recordWrite(tx, actor, {
      action: 'vendor.create',
      entityType: 'vendor',
      entityId: row.id,
      metadata: { vendor: row },
      event: row,
    })
    return row
  })
}

export function updateVendor(db: Db, actor: Actor, id: string, patch: UpdateVendorInput): VendorRow {
  return inWriteTransaction(db, (tx) => {
    const before = getVendor(tx, id)
    if (patch.code !== undefined) assertCodeFree(tx, patch.code, id)
    const changes = diffFields(before, patch)
    if (Object.keys(changes).length === 0) return before
    const row = tx
      .update(vendors)
      .set({ ...patch, updatedAt: nowIso() })
      .where(eq(vendors.id, id))
      .returning()
      .get()
    recordWrite(tx, actor, {
      action: 'vendor.update',
      entityType: 'vendor',
      entityId: id,
      metadata: { changes },
      event: row,
    })
    return row
  })
}

export function deleteVendor(db: Db, actor: Actor, id: string): VendorRow {
  return inWriteTransaction(db, (tx) => {
    const row = getVendor(tx, id)
    tx.delete(vendors).where(eq(vendors.id, id)).run()
    recordWrite(tx, actor, {
      action: 'vendor.delete',
      entityType: 'vendor',
      entityId: id,
      metadata: { vendor: row },
      event: row,
    })
    return row
  })
}
