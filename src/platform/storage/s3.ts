// Media objects in S3 or any S3-compatible store (MinIO, R2, Ceph...) through the AWS SDK: the
// client uploads straight to the bucket with a presigned PUT; this service only checks and reads.
// The SDK is loaded on first use (it adds ~300 ms to start-up, which the embedded default and
// every command-line run would otherwise pay).
import type { MediaS3Config } from '../../config'
import {
  assertObjectKey,
  type ObjectStore,
  type StoredObject,
  tenantPrefix,
  type UploadUrlRequest,
} from './store'

/** SigV4 presigned URLs live at most 7 days. */
const MAX_PRESIGN_SECONDS = 7 * 86400

async function loadSdk(config: MediaS3Config) {
  const sdk = await import('@aws-sdk/client-s3')
  const { getSignedUrl } = await import('@aws-sdk/s3-request-presigner')
  const client = new sdk.S3Client({
    region: config.region,
    endpoint: config.endpoint,
    forcePathStyle: config.forcePathStyle,
    credentials:
      config.accessKeyId && config.secretAccessKey
        ? { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey }
        : undefined,
    // Otherwise the SDK signs a CRC32 of the (empty) body into presigned PUT URLs, and stores
    // that check it refuse the client's real bytes.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  })
  return { sdk, getSignedUrl, client }
}

export class S3Store implements ObjectStore {
  readonly provider = 's3' as const
  private loaded: ReturnType<typeof loadSdk> | null = null

  constructor(
    private readonly config: MediaS3Config,
    private readonly publicBaseUrl: string | undefined,
  ) {}

  private sdk() {
    this.loaded ??= loadSdk(this.config)
    return this.loaded
  }

  private objectKey(key: string): string {
    assertObjectKey(key)
    return `${this.config.prefix}${key}`
  }

  private target(key: string) {
    return { Bucket: this.config.bucket, Key: this.objectKey(key) }
  }

  async createUploadUrl(request: UploadUrlRequest): Promise<string> {
    const { sdk, getSignedUrl, client } = await this.sdk()
    const seconds = Math.ceil((request.expiresAt.getTime() - Date.now()) / 1000)
    const command = new sdk.PutObjectCommand({
      ...this.target(request.key),
      ContentType: request.contentType ?? undefined,
    })
    return getSignedUrl(client, command, {
      expiresIn: Math.max(1, Math.min(seconds, MAX_PRESIGN_SECONDS)),
      // The declared type is part of the signature: the PUT must send that Content-Type.
      signableHeaders: request.contentType ? new Set(['content-type']) : undefined,
    })
  }

  async stat(key: string): Promise<StoredObject | null> {
    const { sdk, client } = await this.sdk()
    try {
      const head = await client.send(new sdk.HeadObjectCommand(this.target(key)))
      return { sizeBytes: head.ContentLength ?? 0, contentType: head.ContentType ?? null }
    } catch (error) {
      if (error instanceof sdk.S3ServiceException && error.$metadata.httpStatusCode === 404) return null
      throw error
    }
  }

  async read(key: string): Promise<Uint8Array> {
    const { sdk, client } = await this.sdk()
    const object = await client.send(new sdk.GetObjectCommand(this.target(key)))
    if (!object.Body) return new Uint8Array()
    return object.Body.transformToByteArray()
  }

  async remove(key: string): Promise<void> {
    const { sdk, client } = await this.sdk()
    await client.send(new sdk.DeleteObjectCommand(this.target(key)))
  }

  async removeTenant(tenantId: string): Promise<void> {
    const { sdk, client } = await this.sdk()
    const Prefix = `${this.config.prefix}${tenantPrefix(tenantId)}`
    // A page lists at most 1000 keys, which is what one DeleteObjects takes.
    for (;;) {
      const page = await client.send(new sdk.ListObjectsV2Command({ Bucket: this.config.bucket, Prefix }))
      const keys = (page.Contents ?? []).flatMap((object) => (object.Key ? [{ Key: object.Key }] : []))
      if (keys.length === 0) return
      const deleted = await client.send(
        new sdk.DeleteObjectsCommand({ Bucket: this.config.bucket, Delete: { Objects: keys, Quiet: true } }),
      )
      const failed = deleted.Errors?.[0]
      if (failed) throw new Error(`could not remove media object ${failed.Key}: ${failed.Message}`)
    }
  }

  publicUrl(key: string): string {
    const path = this.objectKey(key)
    if (this.publicBaseUrl) return `${this.publicBaseUrl}/${path}`
    const { endpoint, bucket, region, forcePathStyle } = this.config
    if (endpoint) {
      const base = new URL(endpoint)
      const basePath = base.pathname.replace(/\/+$/, '')
      if (forcePathStyle) return `${base.origin}${basePath}/${bucket}/${path}`
      return `${base.protocol}//${bucket}.${base.host}${basePath}/${path}`
    }
    return `https://${bucket}.s3.${region}.amazonaws.com/${path}`
  }

  close(): void {
    void this.loaded?.then(({ client }) => client.destroy()).catch(() => {})
  }
}
