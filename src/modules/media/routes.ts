import { Elysia, t } from 'elysia'
import type { LocationScope } from '../../platform/auth/location-scope'
import type { AuthPlugin } from '../../platform/auth/plugin'
import { pageOf } from '../../platform/foundation/paging'
import type { Platform } from '../../platform/platform'
import { completeUpload } from './complete'
import { mediaKinds } from './kinds'
import {
  AttachAsset,
  CompleteUpload,
  CreateDirectUpload,
  DirectUpload,
  MediaAsset,
  MediaListQuery,
  MediaParams,
  ReuseAsset,
} from './model'
import {
  attachAsset,
  createDirectUpload,
  deleteAsset,
  listAssets,
  type MediaContext,
  restoreAsset,
  reuseAsset,
} from './service'

export const mediaRoutes = (auth: AuthPlugin, platform: Platform) => {
  const { config, storage } = platform
  const context = (request: Request): MediaContext => ({
    store: storage,
    maxBytes: config.mediaMaxBytes,
    uploadTtlSeconds: config.mediaUploadTtlSeconds,
    serviceBaseUrl: config.mediaPublicBaseUrl ?? new URL(request.url).origin,
  })
  const scopeOf = (actor: { tenantId: string }, locations: LocationScope) => ({
    tenantId: actor.tenantId,
    locations,
  })

  return new Elysia({ name: 'media', prefix: '/media', detail: { tags: ['Media'] } })
    .use(auth)
    .get(
      '/assets',
      ({ db, actor, locations, query }) =>
        listAssets(db, scopeOf(actor, locations), {
          locationId: query.locationId,
          kind: query.kind,
          linkedEntityType: query.linkedEntityType,
          linkedEntityId: query.linkedEntityId,
          status: query.status,
          ...pageOf(query),
        }),
      {
        permission: 'media:read',
        query: MediaListQuery,
        response: t.Array(MediaAsset),
        detail: {
          summary: 'List media assets',
          description:
            'A bare array, oldest first, paged with `page`/`limit`. Deleted assets are left out unless ' +
            '`status=deleted`. A caller whose role is limited to one location sees that location’s assets ' +
            'and those at no location.',
        },
      },
    )
    .post(
      '/uploads/direct',
      async ({ db, actor, locations, body, request, set }) => {
        const result = await createDirectUpload(db, actor, scopeOf(actor, locations), context(request), body)
        set.status = 201
        return result
      },
      {
        permission: 'media:write',
        body: CreateDirectUpload,
        response: { 201: DirectUpload },
        detail: {
          summary: 'Start a direct upload',
          description:
            `Creates a \`draft\` asset and answers where to PUT the file, until \`expiresAt\` (\`MEDIA_UPLOAD_TTL\`, ` +
            `default 15 minutes). Kinds: ${mediaKinds.join(', ')}; \`document\` takes PDF, every other kind ` +
            'JPEG, PNG, GIF, WebP or AVIF. Embedded store: a signed, single-use URL on this service. S3: a ' +
            'presigned PUT to the bucket (with `mimeType`, the PUT must send that `Content-Type`). The ' +
            'location is `locationId`, else `x-location-id`, else none. A declared `sizeBytes` above ' +
            '`MEDIA_MAX_BYTES` is 413 at once. A draft still not completed a day after its URL expired is ' +
            'deleted with its bytes by the hourly job `media.purge-abandoned-drafts`.',
        },
      },
    )
    .post(
      '/assets/:id/complete',
      ({ db, actor, locations, params, body, request }) =>
        completeUpload(db, actor, scopeOf(actor, locations), context(request), params.id, body),
      {
        permission: 'media:write',
        params: MediaParams,
        body: CompleteUpload,
        response: MediaAsset,
        detail: {
          summary: 'Complete a direct upload',
          description:
            'Checks the uploaded object and makes the asset `ready` with its `publicUrl`, recording ' +
            '`sizeBytes`, `mimeType` (sniffed from the bytes), `checksum` (SHA-256) and, for images, ' +
            '`width`/`height`. Refused, and the bytes removed from the store: a type the kind does not take ' +
            'or that differs from the declared `mimeType`, the upload’s `Content-Type` or the file name’s ' +
            'extension (415 `unsupported_media_type`), a file above `MEDIA_MAX_BYTES` (413), a `checksum` ' +
            'that does not match (400); start a new upload after a refusal. Nothing uploaded yet, or a ' +
            'deleted asset: 409. Completing a ready asset answers it unchanged.',
        },
      },
    )
    .post(
      '/assets/:id/attach',
      ({ db, actor, locations, params, body }) =>
        attachAsset(db, actor, scopeOf(actor, locations), params.id, body),
      {
        permission: 'media:write',
        params: MediaParams,
        body: AttachAsset,
        response: MediaAsset,
        detail: {
          summary: 'Attach an asset to a record',
          description:
            'Sets `linkedEntityType`, `linkedEntityId` and `role` (replacing an earlier link; use reuse to ' +
            'show one file in several places). Only a ready asset: otherwise 409. For `location`, ' +
            '`product`, `collection`, `customer`, `vendor` and `staff_user` the record must exist in this ' +
            'tenant (404); other entity types are taken as given. Customer merges move attached media to ' +
            'the surviving customer.',
        },
      },
    )
    .post(
      '/assets/:id/reuse',
      ({ db, actor, locations, params, body, set }) => {
        set.status = 201
        return reuseAsset(db, actor, scopeOf(actor, locations), params.id, body)
      },
      {
        permission: 'media:write',
        params: MediaParams,
        body: ReuseAsset,
        response: { 201: MediaAsset },
        detail: {
          summary: 'Reuse an asset at another location or record',
          description:
            'Creates a new ready asset for the same stored file (same `providerAssetId`, `publicUrl`, ' +
            '`checksum`), linked to the given record, at `locationId` (default: the source’s location), with ' +
            '`reusedFromAssetId` naming the source. No bytes are copied; deleting either asset leaves the ' +
            'other served. Only a ready asset: otherwise 409.',
        },
      },
    )
    .delete(
      '/assets/:id',
      ({ db, actor, locations, params, set }) => {
        deleteAsset(db, actor, scopeOf(actor, locations), params.id)
        set.status = 204
      },
      {
        permission: 'media:write',
        params: MediaParams,
        response: { 204: t.Void() },
        detail: {
          summary: 'Delete an asset (soft)',
          description:
            'Marks the asset `deleted` (204): it leaves the default list and its public URL stops serving ' +
            'unless another ready asset reuses the file. The bytes are kept so `restore` can bring it back. ' +
            'Deleting a deleted asset is 204 and changes nothing.',
        },
      },
    )
    .post(
      '/assets/:id/restore',
      ({ db, actor, locations, params }) => restoreAsset(db, actor, scopeOf(actor, locations), params.id),
      {
        permission: 'media:write',
        params: MediaParams,
        response: MediaAsset,
        detail: {
          summary: 'Restore a deleted asset',
          description: 'Back to the status it had when deleted (`ready` or `draft`). Not deleted: 409.',
        },
      },
    )
}
