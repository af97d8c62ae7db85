// The object store media bytes live in: the embedded store under DATA_DIR (default) or S3 (or any
// S3-compatible store) when MEDIA_S3_BUCKET is set. Keys are `<tenant id>/<object id>`.

export interface StoredObject {
  sizeBytes: number
  /** The Content-Type the object was uploaded with, when the store kept one. */
  contentType: string | null
}

export interface UploadUrlRequest {
  key: string
  /** The type the client declared; S3 signs it, so the PUT must send the same Content-Type. */
  contentType: string | null
  expiresAt: Date
  /** The embedded store's upload route on this service for this key, unsigned. */
  serviceUploadUrl: string
}

export interface ObjectStore {
  readonly provider: 'embedded' | 's3'
  /** A URL the client PUTs the bytes to, valid until `expiresAt`. */
  createUploadUrl(request: UploadUrlRequest): Promise<string>
  /** The object's size and type, or null when nothing was uploaded under the key. */
  stat(key: string): Promise<StoredObject | null>
  /** The whole object (callers check its size with `stat` first). */
  read(key: string): Promise<Uint8Array>
  remove(key: string): Promise<void>
  /** Removes every object of a tenant (`<tenant id>/...`): its database is being deleted. */
  removeTenant(tenantId: string): Promise<void>
  /** Where a ready object is served publicly; `serviceBaseUrl` is this service's external origin. */
  publicUrl(key: string, serviceBaseUrl: string): string
  /** Releases connections, if the store holds any. */
  close?(): void
}

const keyPattern = /^[A-Za-z0-9-]{1,64}\/[A-Za-z0-9-]{1,64}$/
const tenantPattern = /^[A-Za-z0-9-]{1,64}$/

/** Keys are made by the media module from ids; anything else is a programming error. */
export function assertObjectKey(key: string): void {
  if (!keyPattern.test(key)) throw new Error(`invalid object key ${JSON.stringify(key)}`)
}

/** The key prefix of a tenant's objects. */
export function tenantPrefix(tenantId: string): string {
  if (!tenantPattern.test(tenantId)) throw new Error(`invalid tenant id ${JSON.stringify(tenantId)}`)
  return `${tenantId}/`
}

export const objectKey = (tenantId: string, objectId: string): string => {
  const key = `${tenantId}/${objectId}`
  assertObjectKey(key)
  return key
}
