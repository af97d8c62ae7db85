// Media assets: direct uploads, attaching, reusing, soft delete and restore. Completing an upload
// (reading and checking the bytes) is in complete.ts; the embedded store's routes in uploads.ts.
import { and, asc, eq, ne, type SQL } from 'drizzle-orm'
import { recordWrite } from '../../platform/audit/record-write'
import { assertReaches, type LocationScope, scopeCondition } from '../../platform/auth/location-scope'
import type { Actor } from '../../platform/foundation/actor'
import { newId, nowIso } from '../../platform/foundation/ids'
import { offsetOf, type PageRequest } from '../../platform/foundation/paging'
import { ApiError, conflict, notFound } from '../../platform/foundation/problem'
import { type ObjectStore, objectKey } from '../../platform/storage/store'
import type { Db } from '../../platform/tenancy/databases'
import { inWriteTransaction, type Queryable } from '../../platform/tenancy/transaction'
import { getLocation } from '../locations'
import { assertEntityExists } from './entities'
import type { AttachAssetInput, CreateDirectUploadInput, MediaAssetView, ReuseAssetInput } from './model'
import { type MediaAssetRow, type MediaStatus, mediaAssets } from './schema'

/** The request's view of media: its tenant, and the locations it reaches (assets at none are seen by all). */
export interface MediaScope {
  tenantId: string
  locations: LocationScope
}

export interface MediaContext {
  store: ObjectStore
  maxBytes: number
  uploadTtlSeconds: number
  /** This service's external origin: MEDIA_PUBLIC_BASE_URL, else the request's. */
  serviceBaseUrl: string
}

/**
 * A change to an asset: the audit entry `media_asset.<verb>` and the `media_asset` event carrying
 * the asset, named `announceAs` when its verb differs from the entry's (a purge is a `delete`).
 */
export function recordAssetWrite(
  tx: Queryable,
  actor: Actor,
  asset: MediaAssetView,
  change: { verb: string; metadata: Record<string, unknown>; announceAs?: string },
): void {
  recordWrite(tx, actor, {
    action: `media_asset.${change.verb}`,
    entityType: 'media_asset',
    entityId: asset.id,
    metadata: change.metadata,
    events: [
      {
        object: 'media_asset',
        action: change.announceAs ?? change.verb,
        aggregateId: asset.id,
        payload: asset,
      },
    ],
  })
}

export function toView(row: MediaAssetRow, tenantId: string): MediaAssetView {
  return {
    id: row.id,
    tenantId,
    locationId: row.locationId,
    kind: row.kind,
    provider: row.provider,
    providerAssetId: row.providerAssetId,
    uploadUrl: row.uploadUrl,
    uploadExpiresAt: row.uploadExpiresAt,
    publicUrl: row.publicUrl,
    variants: row.variants,
    status: row.status,
    filename: row.filename,
    mimeType: row.mimeType,
    width: row.width,
    height: row.height,
    sizeBytes: row.sizeBytes,
    checksum: row.checksum,
    linkedEntityType: row.linkedEntityType,
    linkedEntityId: row.linkedEntityId,
    role: row.role,
    metadata: row.metadata,
    reusedFromAssetId: row.reusedFromAssetId,
    createdByStaffUserId: row.createdByStaffUserId,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    deletedAt: row.deletedAt,
  }
}

const visibleAt = (locations: LocationScope): SQL | undefined =>
  scopeCondition(locations, mediaAssets.locationId, { unlocatedToo: true })

export function listAssets(
  db: Queryable,
  scope: MediaScope,
  query: {
    locationId?: string
    kind?: string
    linkedEntityType?: string
    linkedEntityId?: string
    status?: MediaStatus
  } & PageRequest,
): MediaAssetView[] {
  const where = and(
    visibleAt(scope.locations),
    query.locationId ? eq(mediaAssets.locationId, query.locationId) : undefined,
    query.kind ? eq(mediaAssets.kind, query.kind) : undefined,
    query.linkedEntityType ? eq(mediaAssets.linkedEntityType, query.linkedEntityType) : undefined,
    query.linkedEntityId ? eq(mediaAssets.linkedEntityId, query.linkedEntityId) : undefined,
    query.status ? eq(mediaAssets.status, query.status) : ne(mediaAssets.status, 'deleted'),
  )
  return db
    .select()
    .from(mediaAssets)
    .where(where)
    .orderBy(asc(mediaAssets.createdAt), asc(mediaAssets.id))
    .limit(query.limit)
    .offset(offsetOf(query))
    .all()
    .map((row) => toView(row, scope.tenantId))
}

/** The asset, if this caller may see it; another tenant's or another location's is 404. */
export function getAsset(db: Queryable, scope: MediaScope, id: string): MediaAssetRow {
  const row = db
    .select()
    .from(mediaAssets)
    .where(and(eq(mediaAssets.id, id), visibleAt(scope.locations)))
    .get()
  if (!row) throw notFound('media asset', id)
  return row
}

const stateConflict = (row: MediaAssetRow, detail: string) =>
  conflict(detail, { asset: { id: row.id, status: row.status } })

/** The location an asset goes to: checked to exist, and within a location-scoped caller's location. */
function assetLocation(db: Queryable, scope: MediaScope, locationId: string | null): string | null {
  if (locationId === null) return null
  getLocation(db, locationId)
  assertReaches(scope.locations, locationId)
  return locationId
}

export async function createDirectUpload(
  db: Db,
  actor: Actor,
  scope: MediaScope,
  context: MediaContext,
  input: CreateDirectUploadInput,
): Promise<{ asset: MediaAssetView; uploadUrl: string; expiresAt: string }> {
  if (input.sizeBytes !== undefined && input.sizeBytes > context.maxBytes)
    throw new ApiError('payload_too_large', `Media files are limited to ${context.maxBytes} bytes`, {
      errors: [{ path: 'body/sizeBytes', message: `must be at most ${context.maxBytes}` }],
    })
  const locationId = assetLocation(
    db,
    scope,
    input.locationId !== undefined ? input.locationId : actor.locationId,
  )
  const id = newId()
  const key = objectKey(actor.tenantId, id)
  const expiresAt = new Date(Date.now() + context.uploadTtlSeconds * 1000)
  const uploadUrl = await context.store.createUploadUrl({
    key,
    contentType: input.mimeType ?? null,
    expiresAt,
    serviceUploadUrl: `${context.serviceBaseUrl}${UPLOADS_PATH}/${key}`,
  })
  const row = inWriteTransaction(db, (tx) => {
    const now = nowIso()
    const inserted = tx
      .insert(mediaAssets)
      .values({
        id,
        locationId,
        kind: input.kind,
        provider: context.store.provider,
        providerAssetId: key,
        uploadUrl,
        uploadExpiresAt: expiresAt.toISOString(),
        publicUrl: null,
        variants: {},
        status: 'draft',
        filename: input.filename ?? null,
        declaredMimeType: input.mimeType ?? null,
        metadata: input.metadata ?? {},
        createdByStaffUserId: actor.staffUserId,
        createdAt: now,
        updatedAt: now,
      })
      .returning()
      .get()
    const view = toView(inserted, actor.tenantId)
    recordAssetWrite(tx, actor, view, {
      verb: 'create',
      metadata: {
        kind: input.kind,
        filename: inserted.filename,
        mimeType: inserted.declaredMimeType,
        locationId,
      },
    })
    return inserted
  })
  return { asset: toView(row, actor.tenantId), uploadUrl, expiresAt: expiresAt.toISOString() }
}

/** Path of the embedded store's upload route: `<this>/<tenant id>/<asset id>`. */
export const UPLOADS_PATH = '/media/uploads'

export function attachAsset(
  db: Db,
  actor: Actor,
  scope: MediaScope,
  id: string,
  input: AttachAssetInput,
): MediaAssetView {
  return inWriteTransaction(db, (tx) => {
    const before = getAsset(tx, scope, id)
    if (before.status !== 'ready')
      throw stateConflict(before, `Only a ready asset can be attached; this one is ${before.status}`)
    assertEntityExists(tx, input.entityType, input.entityId)
    const same =
      before.linkedEntityType === input.entityType &&
      before.linkedEntityId === input.entityId &&
      before.role === input.role
    if (same) return toView(before, actor.tenantId)
    const row = tx
      .update(mediaAssets)
      .set({
        linkedEntityType: input.entityType,
        linkedEntityId: input.entityId,
        role: input.role,
        updatedAt: nowIso(),
      })
      .where(eq(mediaAssets.id, id))
      .returning()
      .get()
    const view = toView(row, actor.tenantId)
    recordAssetWrite(tx, actor, view, {
      verb: 'attach',
      metadata: {
        from: { entityType: before.linkedEntityType, entityId: before.linkedEntityId, role: before.role },
        to: input,
      },
    })
    return view
  })
}

export function reuseAsset(
  db: Db,
  actor: Actor,
  scope: MediaScope,
  id: string,
  input: ReuseAssetInput,
): MediaAssetView {
  return inWriteTransaction(db, (tx) => {
    const source = getAsset(tx, scope, id)
    if (source.status !== 'ready')
      throw stateConflict(source, `Only a ready asset can be reused; this one is ${source.status}`)
    const locationId = assetLocation(
      tx,
      scope,
      input.locationId !== undefined ? input.locationId : source.locationId,
    )
    assertEntityExists(tx, input.linkedEntityType, input.linkedEntityId)
    const now = nowIso()
    const row = tx
      .insert(mediaAssets)
      .values({
        ...source,
        id: newId(),
        locationId,
        uploadUrl: null,
        uploadExpiresAt: null,
        uploadedAt: null,
        status: 'ready',
        statusBeforeDelete: null,
        linkedEntityType: input.linkedEntityType,
        linkedEntityId: input.linkedEntityId,
        role: input.role,
        reusedFromAssetId: source.id,
        createdByStaffUserId: actor.staffUserId,
        createdAt: now,
        updatedAt: now,
        deletedAt: null,
      })
      .returning()
      .get()
    const view = toView(row, actor.tenantId)
    recordAssetWrite(tx, actor, view, {
      verb: 'reuse',
      metadata: { sourceAssetId: source.id, locationId, ...input },
    })
    return view
  })
}

export function deleteAsset(db: Db, actor: Actor, scope: MediaScope, id: string): void {
  inWriteTransaction(db, (tx) => {
    const before = getAsset(tx, scope, id)
    if (before.status === 'deleted') return
    const now = nowIso()
    const row = tx
      .update(mediaAssets)
      .set({ status: 'deleted', statusBeforeDelete: before.status, deletedAt: now, updatedAt: now })
      .where(eq(mediaAssets.id, id))
      .returning()
      .get()
    recordAssetWrite(tx, actor, toView(row, actor.tenantId), {
      verb: 'delete',
      metadata: { statusBefore: before.status },
    })
  })
}

export function restoreAsset(db: Db, actor: Actor, scope: MediaScope, id: string): MediaAssetView {
  return inWriteTransaction(db, (tx) => {
    const before = getAsset(tx, scope, id)
    if (before.status !== 'deleted')
      throw stateConflict(before, `Only a deleted asset can be restored; this one is ${before.status}`)
    const status = before.statusBeforeDelete ?? 'draft'
    const row = tx
      .update(mediaAssets)
      .set({ status, statusBeforeDelete: null, deletedAt: null, updatedAt: nowIso() })
      .where(eq(mediaAssets.id, id))
      .returning()
      .get()
    const view = toView(row, actor.tenantId)
    recordAssetWrite(tx, actor, view, {
      verb: 'restore',
      metadata: { status },
    })
    return view
  })
}
