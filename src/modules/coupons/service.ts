import { and, asc, count, eq, sql } from 'drizzle-orm'
import { diffFields } from '../../platform/audit/diff'
import { recordWrite } from '../../platform/audit/record-write'
import type { Actor } from '../../platform/foundation/actor'
import { newId, nowIso } from '../../platform/foundation/ids'
import { offsetOf, type PageRequest, searchColumns } from '../../platform/foundation/paging'
import { ApiError, conflict, type FieldError, notFound } from '../../platform/foundation/problem'
import type { Db } from '../../platform/tenancy/databases'
import { inWriteTransaction, type Queryable } from '../../platform/tenancy/transaction'
import { clubsByIds } from '../clubs'
import { existingCollectionIds } from '../collections'
import { resolveCustomerId } from '../customers'
import { existingProductIds } from '../products'
import { findTag } from '../tags'
import type { CreateCouponInput, UpdateCouponInput } from './model'
import { type CouponFields, couponErrors } from './rules'
import { type CouponRow, coupons } from './schema'

export function listCoupons(
  db: Queryable,
  query: { q?: string; status?: CouponRow['status'] } & PageRequest,
) {
  const where = and(
    searchColumns(query.q, [coupons.code, coupons.title]),
    query.status ? eq(coupons.status, query.status) : undefined,
  )
  const total = db.select({ n: count() }).from(coupons).where(where).get()?.n ?? 0
  const rows = db
    .select()
    .from(coupons)
    .where(where)
    .orderBy(asc(sql`lower(${coupons.code})`), asc(coupons.id))
    .limit(query.limit)
    .offset(offsetOf(query))
    .all()
  return { coupons: rows, total }
}

export function getCoupon(db: Queryable, id: string): CouponRow {
  const row = db.select().from(coupons).where(eq(coupons.id, id)).get()
  if (!row) throw notFound('coupon', id)
  return row
}

/** The coupon a guest's code names, case-insensitively, or null: what orders look up. */
export function findCouponByCode(db: Queryable, code: string): CouponRow | null {
  return (
    db
      .select()
      .from(coupons)
      .where(eq(sql`lower(${coupons.code})`, code.trim().toLowerCase()))
      .get() ?? null
  )
}

function assertCodeFree(db: Queryable, code: string, exceptId?: string) {
  const holder = findCouponByCode(db, code)
  if (holder && holder.id !== exceptId)
    throw conflict(`coupon code "${code}" is already in use`, { existingCouponId: holder.id })
}

/** Unambiguous characters (no 0/O, 1/I/L) for generated codes. */
const codeAlphabet = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789'

function generateCode(db: Queryable): string {
  for (;;) {
    const bytes = crypto.getRandomValues(new Uint8Array(8))
    const code = Array.from(bytes, (b) => codeAlphabet[b % codeAlphabet.length]).join('')
    if (!findCouponByCode(db, code)) return code
  }
}

/**
 * The ids a coupon names must be records of this tenant: products (appliesTo Product),
 * collections (Collection), customers (availableTo Customer; an id merged away becomes the
 * customer it was merged into), clubs (Club) or customer tags (Customer Tag). Answers the
 * coupon with customer ids resolved, or the errors naming each bad id.
 */
function checkedReferences(
  db: Queryable,
  coupon: CouponFields,
  check: { appliesTo: boolean; availableTo: boolean },
): { coupon: CouponFields; errors: FieldError[] } {
  const errors: FieldError[] = []
  const refuse = (field: string, i: number, message: string) =>
    errors.push({ path: `body/${field}/${i}`, message })
  const next = { ...coupon }
  if (check.appliesTo && coupon.appliesTo !== 'Store') {
    const found = (coupon.appliesTo === 'Product' ? existingProductIds : existingCollectionIds)(
      db,
      coupon.appliesToObjectIds,
    )
    coupon.appliesToObjectIds.forEach((id, i) => {
      if (!found.has(id))
        refuse('appliesToObjectIds', i, `${id} is not a ${coupon.appliesTo.toLowerCase()} of this tenant`)
    })
  }
  if (check.availableTo && coupon.availableTo === 'Customer') {
    next.availableToObjectIds = coupon.availableToObjectIds.map((id, i) => {
      try {
        return resolveCustomerId(db, id)
      } catch {
        refuse('availableToObjectIds', i, `${id} is not a customer of this tenant`)
        return id
      }
    })
    next.availableToObjectIds = [...new Set(next.availableToObjectIds)]
  } else if (check.availableTo && coupon.availableTo === 'Club') {
    const found = clubsByIds(db, coupon.availableToObjectIds)
    coupon.availableToObjectIds.forEach((id, i) => {
      if (!found.has(id)) refuse('availableToObjectIds', i, `${id} is not a club of this tenant`)
    })
  } else if (check.availableTo && coupon.availableTo === 'Customer Tag') {
    coupon.availableToObjectIds.forEach((id, i) => {
      if (findTag(db, id)?.objectType !== 'Customer')
        refuse('availableToObjectIds', i, `${id} is not a customer tag`)
    })
  }
  return { coupon: next, errors }
}

/**
 * The coupon's own rules, plus the records it names (checked on create, and on update when the
 * patch touches them). Answers the coupon to store.
 */
function assertValid(
  db: Queryable,
  coupon: CouponFields,
  check = { appliesTo: true, availableTo: true },
): CouponFields {
  const errors: FieldError[] = couponErrors(coupon)
  const checked = errors.length === 0 ? checkedReferences(db, coupon, check) : { coupon, errors: [] }
  errors.push(...checked.errors)
  if (errors.length > 0)
    throw new ApiError('validation_failed', `${errors[0]!.path}: ${errors[0]!.message}`, { errors })
  return checked.coupon
}

export function createCoupon(db: Db, actor: Actor, input: CreateCouponInput): CouponRow {
  return inWriteTransaction(db, (tx) => {
    if (input.code !== undefined) assertCodeFree(tx, input.code)
    const given: CouponFields = {
      code: input.code ?? generateCode(tx),
      title: input.title,
      actionMessage: input.actionMessage ?? null,
      usageLimitType: input.usageLimitType ?? 'Unlimited',
      usageLimit: input.usageLimit ?? null,
      appliesTo: input.appliesTo ?? 'Store',
      appliesToObjectIds: input.appliesToObjectIds ?? [],
      productDiscountType: input.productDiscountType ?? 'No Discount',
      productDiscount: input.productDiscount ?? null,
      shippingDiscountType: input.shippingDiscountType ?? 'No Discount',
      shippingDiscount: input.shippingDiscount ?? null,
      startDate: input.startDate ?? null,
      endDate: input.endDate ?? null,
      status: input.status ?? 'Enabled',
      minimumCartAmount: input.minimumCartAmount ?? null,
      availableTo: input.availableTo ?? 'Everyone',
      availableToObjectIds: input.availableToObjectIds ?? [],
      combinability: input.combinability ?? 'combinable',
      requiresManagerApproval: input.requiresManagerApproval ?? false,
      excludesServiceCharges: input.excludesServiceCharges ?? true,
      serviceChargeInteraction: input.serviceChargeInteraction ?? 'pre_discount',
      maxDiscountAmount: input.maxDiscountAmount ?? null,
      promotionSets: input.promotionSets ?? [],
    }
    const fields = assertValid(tx, given)
    const now = nowIso()
    const row = tx
      .insert(coupons)
      .values({ id: newId(), ...fields, createdAt: now, updatedAt: now })
      .returning()
      .get()
    recordWrite(tx, actor, {
      action: 'coupon.create',
      entityType: 'coupon',
      entityId: row.id,
      metadata: { coupon: row },
      event: row,
    })
    return row
  })
}

export function updateCoupon(db: Db, actor: Actor, id: string, patch: UpdateCouponInput): CouponRow {
  return inWriteTransaction(db, (tx) => {
    const before = getCoupon(tx, id)
    if (patch.code !== undefined) assertCodeFree(tx, patch.code, id)
    const { id: _id, createdAt: _c, updatedAt: _u, ...current } = before
    const given: CouponFields = { ...current }
    for (const [key, value] of Object.entries(patch))
      if (value !== undefined) (given as Record<string, unknown>)[key] = value
    // Ids already stored are not checked again unless the patch touches them.
    const merged = assertValid(tx, given, {
      appliesTo: patch.appliesTo !== undefined || patch.appliesToObjectIds !== undefined,
      availableTo: patch.availableTo !== undefined || patch.availableToObjectIds !== undefined,
    })
    const changes = diffFields(before, merged)
    if (Object.keys(changes).length === 0) return before
    const row = tx
      .update(coupons)
      .set({ ...merged, updatedAt: nowIso() })
      .where(eq(coupons.id, id))
      .returning()
      .get()
    recordWrite(tx, actor, {
      action: 'coupon.update',
      entityType: 'coupon',
      entityId: id,
      metadata: { changes },
      event: row,
    })
    return row
  })
}

export function deleteCoupon(db: Db, actor: Actor, id: string): void {
  inWriteTransaction(db, (tx) => {
    const row = getCoupon(tx, id)
    tx.delete(coupons).where(eq(coupons.id, id)).run()
    recordWrite(tx, actor, {
      action: 'coupon.delete',
      entityType: 'coupon',
      entityId: id,
      metadata: { coupon: row },
      event: row,
    })
  })
}

/** club-releases: the codes of the Enabled coupons available to a club, in code order. */
export const clubCouponCodes = (db: Queryable, clubId: string): string[] =>
  db
    .select({ code: coupons.code, ids: coupons.availableToObjectIds })
    .from(coupons)
    .where(and(eq(coupons.status, 'Enabled'), eq(coupons.availableTo, 'Club')))
    .orderBy(asc(coupons.code))
    .all()
    .filter((c) => c.ids.includes(clubId))
    .map((c) => c.code)
