import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { locations } from '../locations/schema'

export const mediaStatuses = ['draft', 'ready', 'deleted'] as const
export type MediaStatus = (typeof mediaStatuses)[number]

export const mediaAssets = sqliteTable(
  'media_assets',
  {
    id: text('id').primaryKey(),
    locationId: text('location_id').references(() => locations.id),
    kind: text('kind').notNull(),
    provider: text('provider', { enum: ['embedded', 's3'] }).notNull(),
    /** The object key in the store (`<tenant id>/<object id>`); reused assets share their source's. */
    providerAssetId: text('provider_asset_id').notNull(),
    /** The direct-upload URL while the asset is a draft; null once ready. */
    uploadUrl: text('upload_url'),
    uploadExpiresAt: text('upload_expires_at'),
    /** When bytes arrived through the embedded store's single-use URL (null: not yet, or S3). */
    uploadedAt: text('uploaded_at'),
    publicUrl: text('public_url'),
    variants: text('variants', { mode: 'json' }).$type<Record<string, string>>().notNull(),
    status: text('status', { enum: mediaStatuses }).notNull(),
    /** What `restore` goes back to. */
    statusBeforeDelete: text('status_before_delete', { enum: ['draft', 'ready'] }),
    filename: text('filename'),
    /** The type the client declared when it started the upload; the bytes must be of this type. */
    declaredMimeType: text('declared_mime_type'),
    mimeType: text('mime_type'),
    width: integer('width'),
    height: integer('height'),
    sizeBytes: integer('size_bytes'),
    checksum: text('checksum'),
    linkedEntityType: text('linked_entity_type'),
    linkedEntityId: text('linked_entity_id'),
    role: text('role'),
    metadata: text('metadata', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    reusedFromAssetId: text('reused_from_asset_id'),
    createdByStaffUserId: text('created_by_staff_user_id'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
    deletedAt: text('deleted_at'),
  },
  (table) => [
    index('media_assets_status').on(table.status, table.createdAt),
    index('media_assets_linked').on(table.linkedEntityType, table.linkedEntityId),
    index('media_assets_location').on(table.locationId),
    index('media_assets_object').on(table.providerAssetId),
  ],
)

export type MediaAssetRow = typeof mediaAssets.$inferSelect
