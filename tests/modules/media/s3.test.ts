// Direct uploads to S3 through the AWS SDK's presigned PUTs, against s3rver (a local
// S3-compatible server from npm) on a loopback port.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'bun:test'
import S3rver from 's3rver'
import type { MediaS3Config } from '../../../src/config'
import { createTestApp, type TestApp } from '../../harness'
import { makeTestDir, removeTestDir } from '../../temp-dirs'
import { pdf, png, sha256 } from './files'
import { putBytes, startUpload } from './helpers'

let server: S3rver
let directory: string
let endpoint: string

beforeAll(async () => {
  directory = makeTestDir('s3')
  server = new S3rver({
    port: 0,
    address: '127.0.0.1',
    silent: true,
    directory,
    configureBuckets: [{ name: 'menu-media', configs: [] }],
  })
  const { port } = (await server.run()) as unknown as { port: number }
  endpoint = `http://127.0.0.1:${port}`
})
afterAll(async () => {
  await server.close()
  removeTestDir(directory)
})

const s3Config = (): MediaS3Config => ({
  bucket: 'menu-media',
  endpoint,
  region: 'us-east-1',
  accessKeyId: 'S3RVER',
  secretAccessKey: 'S3RVER',
  forcePathStyle: true,
  prefix: 'assets/',
})

let t: TestApp
beforeEach(async () => {
  t = await createTestApp({ config: { mediaS3: s3Config(), mediaMaxBytes: 4096 } })
})
afterEach(() => t.close())

const objectUrl = (key: string) => `${endpoint}/menu-media/assets/${key}`

describe('direct uploads to S3', () => {
  test('a presigned PUT to the bucket, then complete: ready with the bucket URL', async () => {
    const bytes = png(5, 4)
    const { asset, uploadUrl } = await startUpload(t, {
      kind: 'product_image',
      mimeType: 'image/png',
      filename: 'rose.png',
    })
    expect(asset).toMatchObject({
      provider: 's3',
      status: 'draft',
      providerAssetId: `${t.tenant.id}/${asset.id}`,
    })
    const url = new URL(uploadUrl)
    expect(`${url.origin}${url.pathname}`).toBe(objectUrl(asset.providerAssetId))
    expect(url.searchParams.get('X-Amz-Algorithm')).toBe('AWS4-HMAC-SHA256')
    expect(url.searchParams.get('X-Amz-SignedHeaders')?.split(';')).toContain('content-type')
    expect(Number(url.searchParams.get('X-Amz-Expires'))).toBeGreaterThan(800)
    // No checksum of an empty body signed in (S3 would refuse the real bytes).
    expect([...url.searchParams.keys()].filter((k) => k.startsWith('x-amz-checksum'))).toEqual([])

    const put = await putBytes(t, uploadUrl, bytes, 'image/png')
    expect(put.status).toBe(200)

    const done = await t.request('POST', `/media/assets/${asset.id}/complete`)
    expect(done.status).toBe(200)
    expect(done.body).toMatchObject({
      status: 'ready',
      provider: 's3',
      mimeType: 'image/png',
      width: 5,
      height: 4,
      sizeBytes: bytes.byteLength,
      checksum: sha256(bytes),
      publicUrl: objectUrl(asset.providerAssetId),
      uploadUrl: null,
    })
    const served = await fetch(done.body.publicUrl)
    expect(Buffer.from(await served.arrayBuffer()).equals(Buffer.from(bytes))).toBe(true)
  })

  test('MEDIA_PUBLIC_BASE_URL (a CDN in front of the bucket) makes the public URL', async () => {
    const cdn = await createTestApp({
      config: { mediaS3: s3Config(), mediaPublicBaseUrl: 'https://cdn.example.com' },
    })
    try {
      const { asset, uploadUrl } = await startUpload(cdn, { kind: 'logo' })
      expect((await putBytes(cdn, uploadUrl, png(1, 1), 'image/png')).status).toBe(200)
      const done = await cdn.request('POST', `/media/assets/${asset.id}/complete`)
      expect(done.body.publicUrl).toBe(`https://cdn.example.com/assets/${asset.providerAssetId}`)
    } finally {
      cdn.close()
    }
  })

  test('an object above MEDIA_MAX_BYTES is 413 at complete and removed from the bucket', async () => {
    const { asset, uploadUrl } = await startUpload(t, { kind: 'product_image' })
    const big = png(4, 4, 6000)
    expect((await putBytes(t, uploadUrl, big, 'image/png')).status).toBe(200)
    const done = await t.request('POST', `/media/assets/${asset.id}/complete`)
    expect(done.status).toBe(413)
    expect(done.body.code).toBe('payload_too_large')
    expect((await fetch(objectUrl(asset.providerAssetId), { method: 'HEAD' })).status).toBe(404)
    const draft = await t.request('GET', '/media/assets?status=draft')
    expect(draft.body.map((a: any) => a.id)).toEqual([asset.id])
  })

  test('a file that is not what its kind takes is 415 and removed from the bucket', async () => {
    const { asset, uploadUrl } = await startUpload(t, { kind: 'product_image' })
    expect((await putBytes(t, uploadUrl, pdf(), 'application/pdf')).status).toBe(200)
    const done = await t.request('POST', `/media/assets/${asset.id}/complete`)
    expect(done.status).toBe(415)
    expect(done.body.detectedMimeType).toBe('application/pdf')
    expect((await fetch(objectUrl(asset.providerAssetId), { method: 'HEAD' })).status).toBe(404)
  })

  test('completing before the PUT is 409', async () => {
    const { asset } = await startUpload(t, { kind: 'logo' })
    const done = await t.request('POST', `/media/assets/${asset.id}/complete`)
    expect(done.status).toBe(409)
  })

  test('the embedded store’s routes are off (404)', async () => {
    const { asset } = await startUpload(t, { kind: 'logo' })
    const put = await t.app.handle(
      new Request(
        `http://localhost/media/uploads/${t.tenant.id}/${asset.id}?expires=9999999999&signature=x`,
        {
          method: 'PUT',
          body: png(1, 1),
        },
      ),
    )
    expect(put.status).toBe(404)
    const get = await t.app.handle(new Request(`http://localhost/media/files/${t.tenant.id}/${asset.id}`))
    expect(get.status).toBe(404)
  })
})
