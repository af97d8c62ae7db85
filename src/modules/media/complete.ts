// Completing a direct upload: the object must be in the store, within MEDIA_MAX_BYTES and of a
// type its kind accepts and its claims name; then the asset is `ready` with its public URL.
// Refused bytes are removed from the store (the draft stays, without them).
import { eq } from 'drizzle-orm'
import type { Actor } from '../../platform/foundation/actor'
import { nowIso } from '../../platform/foundation/ids'
import { ApiError, conflict } from '../../platform/foundation/problem'
import type { Db } from '../../platform/tenancy/databases'
import { inWriteTransaction } from '../../platform/tenancy/transaction'
import { inspectFile } from './inspect'
import type { CompleteUploadInput, MediaAssetView } from './model'
import { mediaAssets } from './schema'
import { getAsset, type MediaContext, type MediaScope, recordAssetWrite, toView } from './service'

const tooLarge = (maxBytes: number, sizeBytes: number) =>
  new ApiError(
    'payload_too_large',
    `The file is ${sizeBytes} bytes; media files are limited to ${maxBytes}`,
    {
      errors: [{ path: 'object', message: `must be at most ${maxBytes} bytes` }],
    },
  )

export async function completeUpload(
  db: Db,
  actor: Actor,
  scope: MediaScope,
  context: MediaContext,
  id: string,
  input: CompleteUploadInput,
): Promise<MediaAssetView> {
  const asset = getAsset(db, scope, id)
  if (asset.status === 'ready') return toView(asset, actor.tenantId)
  if (asset.status === 'deleted')
    throw conflict('A deleted asset cannot be completed; restore it first', {
      asset: { id, status: asset.status },
    })
  const { store, maxBytes } = context
  const key = asset.providerAssetId
  const object = await store.stat(key)
  if (!object)
    throw conflict('Nothing has been uploaded for this asset yet: PUT the file to its uploadUrl first', {
      asset: { id, status: asset.status, uploadExpiresAt: asset.uploadExpiresAt },
    })
  const refuseAndRemove = async (error: unknown): Promise<never> => {
    await store.remove(key)
    throw error
  }
  if (object.sizeBytes > maxBytes) await refuseAndRemove(tooLarge(maxBytes, object.sizeBytes))
  const bytes = await store.read(key)
  if (bytes.byteLength > maxBytes) await refuseAndRemove(tooLarge(maxBytes, bytes.byteLength))
  const filename = input.filename ?? asset.filename
  const inspection = await inspectFile(bytes, {
    kind: asset.kind,
    declaredMimeType: asset.declaredMimeType,
    contentType: object.contentType,
    filename,
  }).catch(refuseAndRemove)
  if (input.checksum && input.checksum !== inspection.checksum)
    await refuseAndRemove(
      new ApiError('validation_failed', 'The uploaded bytes do not match the checksum sent', {
        errors: [{ path: 'body/checksum', message: `the uploaded file's SHA-256 is ${inspection.checksum}` }],
      }),
    )
  const publicUrl = store.publicUrl(key, context.serviceBaseUrl)

  return inWriteTransaction(db, (tx) => {
    // Another request may have completed or deleted it while the bytes were read.
    const current = getAsset(tx, scope, id)
    if (current.status === 'ready') return toView(current, actor.tenantId)
    if (current.status !== 'draft')
      throw conflict(`This asset is ${current.status} now`, { asset: { id, status: current.status } })
    const row = tx
      .update(mediaAssets)
      .set({
        status: 'ready',
        uploadUrl: null,
        publicUrl,
        variants: { original: publicUrl },
        filename,
        mimeType: inspection.mimeType,
        width: inspection.width,
        height: inspection.height,
        sizeBytes: inspection.sizeBytes,
        checksum: inspection.checksum,
        metadata: input.metadata ? { ...current.metadata, ...input.metadata } : current.metadata,
        updatedAt: nowIso(),
      })
      .where(eq(mediaAssets.id, id))
      .returning()
      .get()
    const view = toView(row, actor.tenantId)
    recordAssetWrite(tx, actor, view, {
      verb: 'complete',
      metadata: {
        mimeType: inspection.mimeType,
        sizeBytes: inspection.sizeBytes,
        checksum: inspection.checksum,
        width: inspection.width,
        height: inspection.height,
      },
    })
    return view
  })
}
