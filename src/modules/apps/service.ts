import { and, asc, count, eq, sql } from 'drizzle-orm'
import { diffFields } from '../../platform/audit/diff'
import { recordWrite } from '../../platform/audit/record-write'
import type { Actor } from '../../platform/foundation/actor'
import { newId, nowIso } from '../../platform/foundation/ids'
import { offsetOf, type PageRequest, searchColumns } from '../../platform/foundation/paging'
import { conflict, notFound } from '../../platform/foundation/problem'
import type { Db } from '../../platform/tenancy/databases'
import { inWriteTransaction, type Queryable } from '../../platform/tenancy/transaction'
import type { CreateAppInput, UpdateAppInput } from './model'
import { type AppRow, appData, apps } from './schema'

export function listApps(db: Queryable, query: { q?: string; status?: AppRow['status'] } & PageRequest) {
  const where = and(
    searchColumns(query.q, [apps.slug, apps.name, apps.description]),
    query.status ? eq(apps.status, query.status) : undefined,
  )
  const total = db.select({ n: count() }).from(apps).where(where).get()?.n ?? 0
  const rows = db
    .select()
    .from(apps)
    .where(where)
    .orderBy(asc(sql`lower(${apps.name})`), asc(apps.id))
    .limit(query.limit)
    .offset(offsetOf(query))
    .all()
  return { apps: rows, page: { total } }
}

export function getApp(db: Queryable, id: string): AppRow {
  const row = db.select().from(apps).where(eq(apps.id, id)).get()
  if (!row) throw notFound('app', id)
  return row
}

function assertSlugFree(db: Queryable, slug: string | undefined, exceptId?: string) {
  if (!slug) return
  const holder = db
    .select({ id: apps.id })
    .from(apps)
    .where(eq(sql`lower(${apps.slug})`, slug.toLowerCase()))
    .get()
  if (holder && holder.id !== exceptId) throw conflict(`app slug "${slug}" is already in use`)
}

export function createApp(db: Db, actor: Actor, input: CreateAppInput): AppRow {
  return inWriteTransaction(db, (tx) => {
    assertSlugFree(tx, input.slug)
    const now = nowIso()
    const row = tx
      .insert(apps)
      .values({
        id: newId(),
        slug: input.slug,
        name: input.name,
        description: input.description ?? null,
        homepageUrl: input.homepageUrl ?? null,
        status: input.status ?? 'active',
        syncStatus: 'idle',
        lastSyncedAt: null,
        createdAt: now,
        updatedAt: now,
      })
      .returning()
      .get()
    recordWrite(tx, actor, {
      action: 'app.create',
      entityType: 'app',
      entityId: row.id,
      metadata: { app: row },
      event: row,
    })
    return row
  })
}

export function updateApp(db: Db, actor: Actor, id: string, patch: UpdateAppInput): AppRow {
  return inWriteTransaction(db, (tx) => {
    const before = getApp(tx, id)
    if (patch.slug !== undefined) assertSlugFree(tx, patch.slug, id)
    const changes = diffFields(before, patch)
    if (Object.keys(changes).length === 0) return before
    const row = tx
      .update(apps)
      .set({ ...patch, updatedAt: nowIso() })
      .where(eq(apps.id, id))
      .returning()
      .get()
    recordWrite(tx, actor, {
      action: 'app.update',
      entityType: 'app',
      entityId: id,
      metadata: { changes },
      event: row,
    })
    return row
  })
}

/** Deletes the app with its data and its sync records. */
export function deleteApp(db: Db, actor: Actor, id: string): { message: string } {
  return inWriteTransaction(db, (tx) => {
    const row = getApp(tx, id)
    tx.delete(apps).where(eq(apps.id, id)).run()
    recordWrite(tx, actor, {
      action: 'app.delete',
      entityType: 'app',
      entityId: id,
      metadata: { app: row },
      event: row,
    })
    return { message: `App "${row.slug}" deleted` }
  })
}

/** Records a sync of the app now; refused (409) for an inactive app. */
export function syncApp(db: Db, actor: Actor, id: string): AppRow {
  return inWriteTransaction(db, (tx) => {
    const before = getApp(tx, id)
    if (before.status !== 'active') {
      throw conflict(`app "${before.slug}" is inactive; activate it before syncing`, {
        status: before.status,
        syncStatus: before.syncStatus,
      })
    }
    const now = nowIso()
    const row = tx
      .update(apps)
      .set({ syncStatus: 'synced', lastSyncedAt: now, updatedAt: now })
      .where(eq(apps.id, id))
      .returning()
      .get()
    recordWrite(tx, actor, {
      action: 'app.sync',
      entityType: 'app',
      entityId: id,
      metadata: { previousSyncStatus: before.syncStatus, previousLastSyncedAt: before.lastSyncedAt },
      event: row,
    })
    return row
  })
}

export function getAppData(db: Queryable, appId: string) {
  getApp(db, appId)
  const row = db.select().from(appData).where(eq(appData.appId, appId)).get()
  return row ?? { appId, data: {}, updatedAt: null }
}

export function putAppData(db: Db, actor: Actor, appId: string, data: Record<string, unknown>) {
  return inWriteTransaction(db, (tx) => {
    getApp(tx, appId)
    const now = nowIso()
    const row = tx
      .insert(appData)
      .values({ appId, data, updatedAt: now })
      .onConflictDoUpdate({ target: appData.appId, set: { data, updatedAt: now } })
      .returning()
      .get()
    recordWrite(tx, actor, {
      action: 'app.data.put',
      entityType: 'app',
      entityId: appId,
      metadata: { keys: Object.keys(data) },
    })
    return row
  })
}
