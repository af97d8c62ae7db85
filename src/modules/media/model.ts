import { t } from 'elysia'
import { pagingQuery } from '../../platform/foundation/paging'
import { int, oneOf } from '../../platform/foundation/types'
import { mediaKinds, mediaTypes } from './kinds'
import { mediaStatuses } from './schema'

const nullableString = () => t.Nullable(t.String())
const token = (description: string) =>
  t.String({ minLength: 1, maxLength: 64, pattern: '^[a-z][a-z0-9_-]*$', description })
const entityId = () => t.String({ minLength: 1, maxLength: 200 })
const metadata = () =>
  t.Record(t.String({ maxLength: 100 }), t.Unknown(), {
    maxProperties: 50,
    description: 'Free-form key/value data kept with the asset (alt text, credits...).',
  })
const filename = () =>
  t.String({
    minLength: 1,
    maxLength: 255,
    pattern: '^[^/\\\\\\u0000-\\u001f]+$',
    description:
      'The original file name; an extension of a known type (`.png`, `.pdf`...) must match the bytes.',
  })

export const MediaAsset = t.Object(
  {
    id: t.String({ format: 'uuid' }),
    tenantId: t.String(),
    locationId: nullableString(),
    kind: t.String({ description: `One of ${mediaKinds.join(', ')}.` }),
    provider: t.String({ description: '`embedded` (stored by this service) or `s3`.' }),
    providerAssetId: t.String({ description: 'The object key in the store; reused assets share it.' }),
    uploadUrl: t.Nullable(t.String({ description: 'The direct-upload URL while a draft; null once ready.' })),
    uploadExpiresAt: nullableString(),
    publicUrl: t.Nullable(t.String({ description: 'Where the ready file is served; null while a draft.' })),
    variants: t.Record(t.String(), t.String(), { description: '`original` is the uploaded file.' }),
    status: oneOf(mediaStatuses),
    filename: nullableString(),
    mimeType: t.Nullable(t.String({ description: 'The type of the bytes, as sniffed from them.' })),
    width: t.Nullable(t.Integer({ minimum: 1 })),
    height: t.Nullable(t.Integer({ minimum: 1 })),
    sizeBytes: t.Nullable(t.Integer({ minimum: 0 })),
    checksum: t.Nullable(t.String({ description: 'SHA-256 of the bytes, lower-case hex.' })),
    linkedEntityType: nullableString(),
    linkedEntityId: nullableString(),
    role: nullableString(),
    metadata: t.Record(t.String(), t.Unknown()),
    reusedFromAssetId: nullableString(),
    createdByStaffUserId: nullableString(),
    createdAt: t.String({ format: 'date-time' }),
    updatedAt: t.String({ format: 'date-time' }),
    deletedAt: t.Nullable(t.String({ format: 'date-time' })),
  },
  { description: 'An uploaded image or document, possibly attached to another record.' },
)

export const DirectUpload = t.Object({
  asset: MediaAsset,
  uploadUrl: t.String({ description: 'PUT the bytes here before `expiresAt`.' }),
  expiresAt: t.String({ format: 'date-time' }),
})

export const CreateDirectUpload = t.Object(
  {
    kind: oneOf(mediaKinds),
    filename: t.Optional(filename()),
    mimeType: t.Optional(
      oneOf(mediaTypes, {
        description:
          'The type of the file to come; the upload must send it as Content-Type and the bytes must be of it.',
      }),
    ),
    sizeBytes: t.Optional(
      int({
        minimum: 0,
        description: 'The size of the file to come; larger than MEDIA_MAX_BYTES is 413 at once.',
      }),
    ),
    locationId: t.Optional(t.Nullable(t.String({ minLength: 1, maxLength: 200 }))),
    metadata: t.Optional(metadata()),
  },
  { additionalProperties: false },
)

export const CompleteUpload = t.Object(
  {
    filename: t.Optional(filename()),
    checksum: t.Optional(
      t.String({ pattern: '^[0-9a-f]{64}$', description: 'SHA-256 the client computed; a mismatch is 400.' }),
    ),
    metadata: t.Optional(metadata()),
  },
  { additionalProperties: false },
)

export const AttachAsset = t.Object(
  {
    entityType: token(
      'What the asset belongs to: `product`, `location`, `collection`, `customer`, `vendor`, `staff_user`, ...',
    ),
    entityId: entityId(),
    role: token('How it is used there: `primary`, `gallery`, `thumbnail`, `logo`, ...'),
  },
  { additionalProperties: false },
)

export const ReuseAsset = t.Object(
  {
    locationId: t.Optional(t.Nullable(t.String({ minLength: 1, maxLength: 200 }))),
    linkedEntityType: token('The record the copy belongs to.'),
    linkedEntityId: entityId(),
    role: token('How the copy is used there.'),
  },
  { additionalProperties: false },
)

export const MediaListQuery = t.Object({
  locationId: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
  kind: t.Optional(t.String({ minLength: 1, maxLength: 64 })),
  linkedEntityType: t.Optional(t.String({ minLength: 1, maxLength: 64 })),
  linkedEntityId: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
  status: t.Optional(oneOf(mediaStatuses, { description: 'Default: every status but `deleted`.' })),
  ...pagingQuery(100),
})

export const MediaParams = t.Object({ id: t.String({ minLength: 1, maxLength: 200 }) })

export type CreateDirectUploadInput = typeof CreateDirectUpload.static
export type CompleteUploadInput = typeof CompleteUpload.static
export type AttachAssetInput = typeof AttachAsset.static
export type ReuseAssetInput = typeof ReuseAsset.static
export type MediaAssetView = typeof MediaAsset.static
