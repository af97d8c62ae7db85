// The embedded object store: files under DATA_DIR/media/<tenant id>/<object id>, uploaded through
// this service with signed, expiring URLs (HMAC-SHA256 with a key kept in DATA_DIR, like the
// development issuer's) and served by the media module's public file route.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { stat as statFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import {
  assertObjectKey,
  type ObjectStore,
  type StoredObject,
  tenantPrefix,
  type UploadUrlRequest,
} from './store'

/** Path of the public route that serves ready embedded objects: `<this>/<tenant id>/<object id>`. */
export const EMBEDDED_FILES_PATH = '/media/files'

export type UploadUrlCheck = 'valid' | 'invalid' | 'expired'

/** Bytes received for a key, not yet visible under it: `commit` moves them in place, `discard` drops them. */
export interface StagedObject {
  sizeBytes: number
  sha256: string
  commit(): void
  discard(): void
}

export class TooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`the object is larger than ${maxBytes} bytes`)
  }
}

function loadOrCreateSecret(dataDir: string): Buffer {
  const path = join(dataDir, 'media-signing.key')
  mkdirSync(dataDir, { recursive: true })
  try {
    // wx: two processes starting at once must not overwrite each other's key.
    writeFileSync(path, randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
  }
  return Buffer.from(readFileSync(path, 'utf8').trim(), 'hex')
}

export class EmbeddedStore implements ObjectStore {
  readonly provider = 'embedded' as const
  private readonly root: string
  private key: Buffer | null = null

  constructor(private readonly dataDir: string) {
    this.root = join(dataDir, 'media')
  }

  /** Made on first use, so commands that never sign leave no key behind. */
  private get secret(): Buffer {
    this.key ??= loadOrCreateSecret(this.dataDir)
    return this.key
  }

  private path(key: string): string {
    assertObjectKey(key)
    return join(this.root, key)
  }

  // Signed over the key rather than the URL's path, so a proxy that rewrites paths in front of
  // the service (MEDIA_PUBLIC_BASE_URL with a path) does not break the signature.
  private sign(key: string, expires: number): string {
    return createHmac('sha256', this.secret).update(`PUT\n${key}\n${expires}`).digest('base64url')
  }

  async createUploadUrl(request: UploadUrlRequest): Promise<string> {
    assertObjectKey(request.key)
    const url = new URL(request.serviceUploadUrl)
    const expires = Math.floor(request.expiresAt.getTime() / 1000)
    url.searchParams.set('expires', String(expires))
    url.searchParams.set('signature', this.sign(request.key, expires))
    return url.toString()
  }

  /** Whether an upload URL was signed by this store for this key, and is still in time. */
  checkUploadUrl(key: string, expiresParam: unknown, signature: unknown, now = Date.now()): UploadUrlCheck {
    if (typeof expiresParam !== 'string' || !/^\d{1,12}$/.test(expiresParam)) return 'invalid'
    if (typeof signature !== 'string') return 'invalid'
    const expected = Buffer.from(this.sign(key, Number(expiresParam)))
    const given = Buffer.from(signature)
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid'
    return Number(expiresParam) * 1000 <= now ? 'expired' : 'valid'
  }

  /**
   * Streams a request body to a temporary file beside the key, refusing (TooLargeError) past
   * `maxBytes` without keeping anything. Nothing is visible under the key until `commit`.
   */
  async stage(
    key: string,
    body: ReadableStream<Uint8Array> | null,
    options: { maxBytes: number; contentType: string | null },
  ): Promise<StagedObject> {
    const target = this.path(key)
    mkdirSync(dirname(target), { recursive: true })
    const temp = `${target}.${randomBytes(8).toString('hex')}.part`
    const writer = Bun.file(temp).writer()
    const hasher = new Bun.CryptoHasher('sha256')
    let size = 0
    try {
      if (body) {
        for await (const chunk of body) {
          size += chunk.byteLength
          if (size > options.maxBytes) throw new TooLargeError(options.maxBytes)
          hasher.update(chunk)
          writer.write(chunk)
        }
      }
      await writer.end()
    } catch (error) {
      await Promise.resolve(writer.end()).catch(() => {})
      rmSync(temp, { force: true })
      throw error
    }
    const typeFile = `${temp}.type`
    writeFileSync(typeFile, options.contentType ?? '')
    return {
      sizeBytes: size,
      sha256: hasher.digest('hex'),
      commit: () => {
        renameSync(typeFile, `${target}.type`)
        renameSync(temp, target)
      },
      discard: () => {
        rmSync(temp, { force: true })
        rmSync(typeFile, { force: true })
      },
    }
  }

  async stat(key: string): Promise<StoredObject | null> {
    const path = this.path(key)
    try {
      const info = await statFile(path)
      let contentType: string | null = null
      try {
        contentType = readFileSync(`${path}.type`, 'utf8') || null
      } catch {}
      return { sizeBytes: info.size, contentType }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
      throw error
    }
  }

  async read(key: string): Promise<Uint8Array> {
    return Bun.file(this.path(key)).bytes()
  }

  /** The stored file, for the public route to stream. */
  file(key: string) {
    return Bun.file(this.path(key))
  }

  async remove(key: string): Promise<void> {
    const path = this.path(key)
    rmSync(path, { force: true })
    rmSync(`${path}.type`, { force: true })
  }

  async removeTenant(tenantId: string): Promise<void> {
    rmSync(join(this.root, tenantPrefix(tenantId)), { recursive: true, force: true })
  }

  publicUrl(key: string, serviceBaseUrl: string): string {
    assertObjectKey(key)
    return `${serviceBaseUrl}${EMBEDDED_FILES_PATH}/${key}`
  }
}
