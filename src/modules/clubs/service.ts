import { asc, count, eq, inArray, type SQL, sql } from 'drizzle-orm'
import { diffFields } from '../../platform/audit/diff'
import { recordWrite } from '../../platform/audit/record-write'
import type { Actor } from '../../platform/foundation/actor'
import { newId, nowIso } from '../../platform/foundation/ids'
import { offsetOf, type PageRequest, searchColumns } from '../../platform/foundation/paging'
import { conflict, notFound } from '../../platform/foundation/problem'
import type { Db } from '../../platform/tenancy/databases'
import { inWriteTransaction, type Queryable } from '../../platform/tenancy/transaction'
import type { ClubView, CreateClubInput, UpdateClubInput } from './model'
import { type ClubRow, clubs } from './schema'

/** Called inside the transaction that changed a club's cadence (memberships recompute dates). */
export type ClubCadenceListener = (tx: Queryable, actor: Actor, clubId: string) => void
const cadenceListeners = new Map<string, ClubCadenceListener>()
export function onClubCadenceChange(name: string, listener: ClubCadenceListener): void {
  cadenceListeners.set(name, listener)
}

export const DEFAULT_CADENCE = { unit: 'month', count: 3 } as const

export function clubView(row: ClubRow): ClubView {
  const { seoTitle, seoDescription, cadenceUnit, cadenceCount, ...rest } = row
  return {
    ...rest,
    seo: { title: seoTitle, description: seoDescription },
    cadence: { unit: cadenceUnit, count: cadenceCount },
  }
}

export function getClubRow(db: Queryable, id: string): ClubRow {
  const row = db.select().from(clubs).where(eq(clubs.id, id)).get()
  if (!row) throw notFound('club', id)
  return row
}

export const getClub = (db: Queryable, id: string): ClubView => clubView(getClubRow(db, id))

export function listClubs(db: Queryable, query: { q?: string } & PageRequest) {
  const where = searchColumns(query.q, [clubs.title, clubs.slug])
  const total = db.select({ n: count() }).from(clubs).where(where).get()?.n ?? 0
  const rows = db
    .select()
    .from(clubs)
    .where(where)
    .orderBy(asc(sql`lower(${clubs.title})`), asc(clubs.id))
    .limit(query.limit)
    .offset(offsetOf(query))
    .all()
  return { clubs: rows.map(clubView), total }
}

function assertSlugFree(db: Queryable, slug: string, exceptId?: string) {
  const holder = db
    .select({ id: clubs.id })
    .from(clubs)
    .where(eq(sql`lower(${clubs.slug})`, slug.toLowerCase()))
    .get()
  if (holder && holder.id !== exceptId)
    throw conflict(`club slug "${slug}" is already in use`, { clubId: holder.id })
}

/** The stored columns a create or update body sets (nested seo and cadence flattened). */
function columnsOf(input: UpdateClubInput) {
  const { seo, cadence, ...rest } = input
  return {
    ...rest,
    ...(seo?.title !== undefined ? { seoTitle: seo.title } : {}),
    ...(seo?.description !== undefined ? { seoDescription: seo.description } : {}),
    ...(cadence ? { cadenceUnit: cadence.unit, cadenceCount: cadence.count } : {}),
  }
}

export function createClub(db: Db, actor: Actor, input: CreateClubInput): ClubView {
  return inWriteTransaction(db, (tx) => {
    assertSlugFree(tx, input.slug)
    const now = nowIso()
    const row = tx
      .insert(clubs)
      .values({
        id: newId(),
        type: 'Traditional',
        content: null,
        publishDate: null,
        seoTitle: null,
        seoDescription: null,
        webStatus: 'Available',
        adminStatus: 'Available',
        cadenceUnit: DEFAULT_CADENCE.unit,
        cadenceCount: DEFAULT_CADENCE.count,
        ...columnsOf(input),
        title: input.title,
        slug: input.slug,
        createdAt: now,
        updatedAt: now,
      })
      .returning()
      .get()
    const view = clubView(row)
    recordWrite(tx, actor, {
      action: 'club.create',
      entityType: 'club',
      entityId: row.id,
      metadata: { club: view },
      event: view,
    })
    return view
  })
}

export function updateClub(db: Db, actor: Actor, id: string, patch: UpdateClubInput): ClubView {
  return inWriteTransaction(db, (tx) => {
    const before = getClubRow(tx, id)
    if (patch.slug !== undefined) assertSlugFree(tx, patch.slug, id)
    const columns = columnsOf(patch)
    const changes = diffFields(before, columns)
    if (Object.keys(changes).length === 0) return clubView(before)
    const row = tx
      .update(clubs)
      .set({ ...columns, updatedAt: nowIso() })
      .where(eq(clubs.id, id))
      .returning()
      .get()
    if (changes.cadenceUnit || changes.cadenceCount)
      for (const listener of cadenceListeners.values()) listener(tx, actor, id)
    const view = clubView(row)
    recordWrite(tx, actor, {
      action: 'club.update',
      entityType: 'club',
      entityId: id,
      metadata: { changes },
      event: view,
    })
    return view
  })
}

export function deleteClub(db: Db, actor: Actor, id: string): ClubView {
  return inWriteTransaction(db, (tx) => {
    const view = clubView(getClubRow(tx, id))
    try {
      tx.delete(clubs).where(eq(clubs.id, id)).run()
    } catch (error) {
      if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_FOREIGNKEY')
        throw conflict(
          'the club has memberships (current or past); set its statuses to Not Available instead',
          {
            clubId: id,
          },
        )
      throw error
    }
    recordWrite(tx, actor, {
      action: 'club.delete',
      entityType: 'club',
      entityId: id,
      metadata: { club: view },
      event: view,
    })
    return view
  })
}

/** The clubs of these ids that exist. */
export function clubsByIds(db: Queryable, ids: readonly string[]): Map<string, ClubRow> {
  if (ids.length === 0) return new Map()
  return new Map(
    db
      .select()
      .from(clubs)
      .where(inArray(clubs.id, [...new Set(ids)]))
      .all()
      .map((c) => [c.id, c]),
  )
}

/**
 * The club a reference names, as an import's file does: its id, else its slug, else its title
 * (case-insensitively). 'ambiguous' when two clubs share the title; undefined when none matches.
 */
export function clubByReference(db: Queryable, reference: string): ClubRow | 'ambiguous' | undefined {
  const byId = db.select().from(clubs).where(eq(clubs.id, reference)).get()
  if (byId) return byId
  const key = reference.toLowerCase()
  const bySlug = db
    .select()
    .from(clubs)
    .where(eq(sql`lower(${clubs.slug})`, key))
    .get()
  if (bySlug) return bySlug
  const byTitle = db
    .select()
    .from(clubs)
    .where(eq(sql`lower(${clubs.title})`, key))
    .limit(2)
    .all()
  return byTitle.length > 1 ? 'ambiguous' : byTitle[0]
}

/** SQL for the ids of the clubs whose title contains `q` (a parenthesised subquery); undefined for no `q`. */
export function clubIdsMatching(q: string | undefined): SQL | undefined {
  const match = searchColumns(q, [clubs.title])
  return match && sql`(SELECT ${clubs.id} FROM ${clubs} WHERE ${match})`
}
