// The embedded store's two public routes. Neither takes a bearer token:
// - PUT /media/uploads/{tenantId}/{assetId}?expires&signature: the signed, expiring, single-use URL
//   that POST /media/uploads/direct hands out is the authority (like an S3 presigned PUT). The
//   body is the raw file, of any content type, read here (not by the JSON parser).
// - GET /media/files/{tenantId}/{objectId}: the public URL of a ready asset (product images are
//   shown on websites and menus to anyone).
// With MEDIA_S3_BUCKET set, uploads and files go to S3 and both routes answer 404.
import { and, eq, isNull } from 'drizzle-orm'
import { Elysia, t } from 'elysia'
import { recordWrite } from '../../platform/audit/record-write'
import type { Actor } from '../../platform/foundation/actor'
import { nowIso } from '../../platform/foundation/ids'
import { ApiError, conflict, forbidden, notFound } from '../../platform/foundation/problem'
import { requestInfo } from '../../platform/foundation/request-context'
import { rawBodyRoute } from '../../platform/http/request-body'
import type { Platform } from '../../platform/platform'
import { EMBEDDED_FILES_PATH, EmbeddedStore, TooLargeError } from '../../platform/storage/embedded'
import { objectKey } from '../../platform/storage/store'
import { findTenantById } from '../../platform/tenancy/tenants'
import { inWriteTransaction } from '../../platform/tenancy/transaction'
import { mediaAssets } from './schema'
import { UPLOADS_PATH } from './service'

const idPart = t.String({ pattern: '^[A-Za-z0-9-]{1,64}$' })

const UploadParams = t.Object({ tenantId: idPart, assetId: idPart })
const UploadQuery = t.Object({
  expires: t.Optional(t.String({ description: 'Unix seconds after which the URL is refused.' })),
  signature: t.Optional(t.String({ description: 'HMAC-SHA256 of the URL, made by this service.' })),
})
const UploadResult = t.Object({
  assetId: t.String(),
  sizeBytes: t.Integer({ minimum: 0 }),
  checksum: t.String({ description: 'SHA-256 of the bytes received, lower-case hex.' }),
})

const tooLarge = (maxBytes: number) =>
  new ApiError('payload_too_large', `Media files are limited to ${maxBytes} bytes`)

export const mediaFileRoutes = (platform: Platform) => {
  const store = platform.storage instanceof EmbeddedStore ? platform.storage : null
  const maxBytes = platform.config.mediaMaxBytes
  const tenantDb = (tenantId: string) => {
    if (!store) throw notFound('media file')
    const tenant = findTenantById(platform.control.db, tenantId)
    if (!tenant) throw notFound('media file')
    return platform.pool.get(tenant.id).db
  }

  return new Elysia({ name: 'media-files', detail: { tags: ['Media'] } })
    .put(
      rawBodyRoute('PUT', `${UPLOADS_PATH}/:tenantId/:assetId`),
      async ({ params, query, request, route, set }) => {
        if (!store) throw notFound('upload URL')
        const key = objectKey(params.tenantId, params.assetId)
        const check = store.checkUploadUrl(key, query.expires, query.signature)
        if (check === 'invalid') throw forbidden('This upload URL is not valid')
        if (check === 'expired')
          throw forbidden('This upload URL has expired: start a new upload with POST /media/uploads/direct')
        const db = tenantDb(params.tenantId)
        const find = () => db.select().from(mediaAssets).where(eq(mediaAssets.id, params.assetId)).get()
        const asset = find()
        if (!asset || asset.providerAssetId !== key) throw notFound('media asset', params.assetId)
        const used = () =>
          conflict(
            'This upload URL has already been used: start a new upload with POST /media/uploads/direct',
            {
              asset: { id: asset.id, status: asset.status },
            },
          )
        if (asset.uploadedAt !== null) throw used()
        if (asset.status !== 'draft')
          throw conflict(`This asset is ${asset.status}; only a draft takes an upload`, {
            asset: { id: asset.id, status: asset.status },
          })
        const declared = Number(request.headers.get('content-length') ?? 0)
        if (declared > maxBytes) throw tooLarge(maxBytes)

        let staged: Awaited<ReturnType<EmbeddedStore['stage']>>
        try {
          staged = await store.stage(key, request.body, {
            maxBytes,
            contentType: request.headers.get('content-type'),
          })
        } catch (error) {
          if (error instanceof TooLargeError) throw tooLarge(maxBytes)
          throw error
        }
        const info = requestInfo(request)
        const actor: Actor = {
          kind: 'system',
          subject: `upload-url:${asset.id}`,
          staffUserId: asset.createdByStaffUserId,
          tenantId: params.tenantId,
          locationId: asset.locationId,
          requestId: info.requestId,
          ipAddress: info.ipAddress,
          userAgent: info.userAgent,
          method: request.method,
          route,
        }
        try {
          inWriteTransaction(db, (tx) => {
            // Single use: only the first upload to finish claims the URL, even under races.
            const claimed = tx
              .update(mediaAssets)
              .set({ uploadedAt: nowIso(), updatedAt: nowIso() })
              .where(
                and(
                  eq(mediaAssets.id, asset.id),
                  eq(mediaAssets.status, 'draft'),
                  isNull(mediaAssets.uploadedAt),
                ),
              )
              .returning({ id: mediaAssets.id })
              .get()
            if (!claimed) throw used()
            recordWrite(tx, actor, {
              action: 'media_asset.upload',
              entityType: 'media_asset',
              entityId: asset.id,
              metadata: {
                sizeBytes: staged.sizeBytes,
                checksum: staged.sha256,
                contentType: request.headers.get('content-type'),
              },
            })
            // Last: if it fails the transaction rolls back and the URL stays unused.
            staged.commit()
          })
        } catch (error) {
          staged.discard()
          throw error
        }
        set.headers.etag = `"${staged.sha256}"`
        return { assetId: asset.id, sizeBytes: staged.sizeBytes, checksum: staged.sha256 }
      },
      {
        params: UploadParams,
        query: UploadQuery,
        parse: ({ request }) => request.body ?? new Uint8Array(),
        response: UploadResult,
        detail: {
          summary: 'Upload the bytes of a direct upload (embedded store)',
          description:
            'The `uploadUrl` of `POST /media/uploads/direct`, when media is stored by this service. No bearer: ' +
            'the signature is the authority. The body is the raw file; send its `Content-Type`. A bad signature ' +
            'or an expired URL is 403, a second upload to the same URL 409 (the URL is single-use, even under ' +
            'concurrent PUTs), a body above `MEDIA_MAX_BYTES` 413 (nothing is kept). Then call ' +
            '`POST /media/assets/{id}/complete`.',
          'x-problems': ['forbidden', 'conflict'],
        },
      },
    )
    .get(
      `${EMBEDDED_FILES_PATH}/:tenantId/:objectId`,
      ({ params, request }) => {
        const db = tenantDb(params.tenantId)
        const key = objectKey(params.tenantId, params.objectId)
        const asset = db
          .select()
          .from(mediaAssets)
          .where(and(eq(mediaAssets.providerAssetId, key), eq(mediaAssets.status, 'ready')))
          .get()
        if (!asset || !store) throw notFound('media file')
        const etag = `"${asset.checksum}"`
        const headers: Record<string, string> = {
          etag,
          'cache-control': 'public, max-age=3600',
          'x-content-type-options': 'nosniff',
          'content-security-policy': "default-src 'none'; sandbox",
        }
        if (request.headers.get('if-none-match') === etag) return new Response(null, { status: 304, headers })
        return new Response(store.file(key), {
          headers: { ...headers, 'content-type': asset.mimeType ?? 'application/octet-stream' },
        })
      },
      {
        params: t.Object({ tenantId: idPart, objectId: idPart }),
        detail: {
          summary: 'A ready media file (embedded store)',
          description:
            'The `publicUrl` of a ready asset stored by this service; no authentication, as product images ' +
            'appear on public pages. Served with its sniffed type, `nosniff`, and the SHA-256 as ETag ' +
            '(`if-none-match` answers 304). 404 while no asset using the file is ready (draft or deleted).',
          responses: {
            200: {
              description: 'The file, with its sniffed content type.',
              content: { '*/*': { schema: { type: 'string', format: 'binary' } } },
            },
            304: { description: 'Not modified: `if-none-match` names the current ETag.' },
          },
        },
      },
    )
}
